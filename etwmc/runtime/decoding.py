"""Payload decoding by a template's field layout (standard library only).

The inverse of :func:`etwmc.runtime.payload.encode`, over the same
:class:`~etwmc.runtime.fields.Field` specs: the in-process backend decodes a payload to
evaluate payload filters on its fields, and test helpers decode records to show them.
Values are read by :class:`etwmc.payloadvalues.ValueReader`, the reader ``etwmc decode``
uses too, with its rules (strings, SIDs, bounds).

Values come back as Python values: ``int`` for integers, Boolean, Pointer and FILETIME
(its raw 100 ns count, which is what payload filters compare), ``float``, ``str`` for
strings and SIDs (``S-1-...``), ``uuid.UUID`` for GUIDs, ``bytes`` for binary,
an 8-tuple for SYSTEMTIME, a ``list`` for an array and a ``dict`` for a struct.

Payloads are untrusted: every read is bounded by the bytes that are there, an array
has at most 65535 elements (a payload's maximum size), and anything malformed raises
:class:`PayloadDecodeError` (a ``ValueError``) saying which field and what is wrong.
Unlike ``etwmc decode``, which reports bytes after the last field as TDH does, a
payload with bytes left over is an error here: the layout is the one the payload was
written with, so they mean the two disagree.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..payloadvalues import PayloadValueError, ValueReader
from .encoder import STRUCT
from .fields import POINTER_SIZE, Field

__all__ = ["PayloadDecodeError", "decode_payload"]


class PayloadDecodeError(ValueError):
    """A payload does not match its layout (too short, a bad count, a malformed SID...)."""


def decode_payload(
    fields: Sequence[Field], data: bytes, pointer_size: int = POINTER_SIZE
) -> dict[str, object]:
    """Decode ``data`` by ``fields``: ``{field name: value}`` in template order.

    ``pointer_size``: the writer's (an event record carries it).  Raises
    :class:`PayloadDecodeError` when the payload is shorter than the layout, holds a bad
    count or string, or has bytes left over.
    """
    try:
        reader = ValueReader(bytes(data), pointer_size)
    except PayloadValueError as exc:
        raise PayloadDecodeError(str(exc)) from None
    values = _decode_level(tuple(fields), reader, "")
    if reader.pos != len(reader.data):
        raise PayloadDecodeError(
            f"{len(reader.data) - reader.pos} bytes are left after the last field"
        )
    return values


def _decode_level(fields: tuple[Field, ...], reader: ValueReader, prefix: str) -> dict[str, object]:
    values: list[object] = []
    for f in fields:
        try:
            count = f.count_const if f.count_ref is None else _size(values, f.count_ref)
            length = f.length_const if f.length_ref is None else _size(values, f.length_ref)
            if count is None:
                values.append(_one(f, reader, length, prefix))
                continue
            reader.spend(count, 0, max(1, len(f.members)))
            values.append([_one(f, reader, length, prefix) for _ in range(count)])
        except (PayloadValueError, IndexError) as exc:
            raise PayloadDecodeError(f"field {prefix + f.name!r}: {exc}") from None
    return {f.name: v for f, v in zip(fields, values, strict=True)}


def _size(values: list[object], ref: int) -> int:
    if ref >= len(values):
        raise PayloadValueError("its count or length field comes after it")
    value = values[ref]
    if not isinstance(value, int) or value < 0:
        raise PayloadValueError(f"its count or length field holds {value!r}, not a size")
    return value


def _one(f: Field, reader: ValueReader, length: int | None, prefix: str) -> object:
    if f.code == STRUCT:
        return _decode_level(f.members, reader, f"{prefix}{f.name}.")
    return reader.value(f.code, length, utf8=f.utf8)
