"""What generated provider modules import for their payloads (standard library only).

A generated module encodes simple templates inline (one precompiled ``struct.Struct``
per run of scalars, plus :data:`u16` and :data:`ansi` for strings) and hands everything
else to :func:`encode`, which walks a template's :class:`Field` specs (in
:mod:`etwmc.runtime.encoder`, imported on first use).  When an encoding fails,
:func:`fail` says which field and what is wrong, as one :class:`EventError`; nothing is
written.

This module is imported with every generated module, so it imports nothing heavy: no
typing, no win: tables (the encoder loads them when an event needs it).
"""

from __future__ import annotations

import codecs
import struct
from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from typing import Final, NamedTuple

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


class EventError(ValueError):
    """An event argument has the wrong type or is out of range; nothing was written."""

    def __init__(self, event: str, field: str, problem: str) -> None:
        super().__init__(f"event {event}: field {field!r}: {problem}")
        self.event = event
        self.field = field
        self.problem = problem


class KeywordOnly:
    """The type of the marker that keeps ``activity_id`` keyword-only (see above)."""


KW: Final = KeywordOnly()


def keyword_only_error(extra: object) -> TypeError:
    return TypeError(
        f"an extra positional argument ({extra!r}): "
        "activity_id and related_activity_id are keyword-only"
    )


if TYPE_CHECKING:

    class Field(NamedTuple):
        """(What type checkers see: the run-time class below has the same fields.)"""

        name: str
        code: int
        count_const: int | None = None
        count_ref: int | None = None
        length_const: int | None = None
        length_ref: int | None = None
        derived: bool = False
        members: tuple[Field, ...] = ()
        utf8: bool = False

else:
    # collections.namedtuple at run time (see EnableState in state.py).
    Field = namedtuple(
        "Field",
        "name code count_const count_ref length_const length_ref derived members utf8",
        defaults=(None, None, None, None, False, (), False),
    )
    Field.__doc__ = "How one template item is encoded (inType code 0 is a struct)."


# What encoding an argument of the wrong type or out of range raises, in a generated
# write function (an ``except`` clause narrower than ``Exception``): struct's error and
# TypeError for a value struct or a codec refuses, ValueError (UnicodeEncodeError among
# them, and the generic encoder's own) for a value out of range, AttributeError for a
# "GUID" without ``bytes_le``, OverflowError for an int beyond any C type.
ENCODING_ERRORS: Final = (struct.error, TypeError, ValueError, AttributeError, OverflowError)

u16: Final = codecs.utf_16_le_encode
# ANSI strings are written in Windows-1252 (what decoders assume for the ANSI code page)
# unless their outType is win:Utf8.
ansi: Final = codecs.getencoder("cp1252")
# A pointer is as wide as this process's pointers (what ETW records with each event).
POINTER_FORMAT: Final = "Q" if struct.calcsize("P") == 8 else "I"


def fields(*fields: Field) -> tuple[Field, ...]:
    return fields


def pointers(fmt: str) -> str:
    return fmt.replace("P", POINTER_FORMAT)


def encode(fields: tuple[Field, ...], *values: object) -> bytes:
    """Encode the values of one template (or struct) into its payload bytes."""
    from .encoder import encode

    return encode(fields, *values)


def fail(event: str, fields: tuple[Field, ...], exc: Exception, *values: object) -> EventError:
    """The clear error for a failed encoding: which field, and what is wrong with it."""
    from .encoder import fail

    return fail(event, fields, exc, *values)
