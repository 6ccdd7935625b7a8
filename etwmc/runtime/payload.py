"""What generated provider modules import for their payloads (standard library only).

A generated module encodes simple templates inline (one precompiled ``struct.Struct``
per run of scalars, plus :data:`u16` and :data:`ansi` for strings) and hands everything
else to :func:`encode`, which walks a template's :class:`Field` specs (in
:mod:`etwmc.runtime.encoder`).  When an encoding fails, :func:`fail` says which field
and what is wrong, as one :class:`EventError`; nothing is written.  The field spec, the
error and the string encoders come from :mod:`etwmc.runtime.fields`, which the encoder
imports too.

This module is imported with every generated module, so it imports nothing heavy: no
typing, no win: tables.  :func:`encode` and :func:`fail` load the encoder on their first
call: it brings the win: tables, ``typing``, ``uuid`` and ``datetime``, which a module
whose events are never written, or need no generic encoding, does not use.
"""

from __future__ import annotations

import struct

from .fields import POINTER_FORMAT, EventError, Field, ansi, u16

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from typing import Final

__all__ = [
    "ENCODING_ERRORS",
    "KW",
    "EventError",
    "Field",
    "KeywordOnly",
    "ansi",
    "encode",
    "fail",
    "fields",
    "keyword_only_error",
    "pointers",
    "u16",
]


class KeywordOnly:
    """The type of the marker that keeps ``activity_id`` keyword-only (see above)."""


KW: Final = KeywordOnly()


def keyword_only_error(extra: object) -> TypeError:
    return TypeError(
        f"an extra positional argument ({extra!r}): "
        "activity_id and related_activity_id are keyword-only"
    )


# What encoding an argument of the wrong type or out of range raises, in a generated
# write function (an ``except`` clause narrower than ``Exception``): struct's error and
# TypeError for a value struct or a codec refuses, ValueError (UnicodeEncodeError among
# them, and the generic encoder's own) for a value out of range, AttributeError for a
# "GUID" without ``bytes_le``, OverflowError for an int beyond any C type.
ENCODING_ERRORS: Final = (struct.error, TypeError, ValueError, AttributeError, OverflowError)


def fields(*fields: Field) -> tuple[Field, ...]:
    return fields


def pointers(fmt: str) -> str:
    return fmt.replace("P", POINTER_FORMAT)


def encode(fields: tuple[Field, ...], *values: object) -> bytes:
    """Encode the values of one template (or struct) into its payload bytes."""
    from .encoder import encode  # on first use: see the module docstring

    return encode(fields, *values)


def fail(event: str, fields: tuple[Field, ...], exc: Exception, *values: object) -> EventError:
    """The clear error for a failed encoding: which field, and what is wrong with it."""
    from .encoder import fail  # on first use: see the module docstring

    return fail(event, fields, exc, *values)
