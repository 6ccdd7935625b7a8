"""A template's fields as the runtime encodes them, and the error that names one.

:class:`Field` says how one template item is encoded; :class:`EventError` says which
field of which event could not be, and why.  Generated modules import both (through
:mod:`etwmc.runtime.payload`), as do the generic encoder (:mod:`.encoder`), the payload
decoder and the in-process backend's payload filters: they stand here, below all of
them, with the string encoders and the pointer width (one, for the generated code,
the encoder, the decoder and the backend's records).

Imported with every generated module, so it imports nothing heavy (no typing).
"""

from __future__ import annotations

import codecs
import struct
from collections import namedtuple

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from typing import Final, NamedTuple

__all__ = ["POINTER_FORMAT", "POINTER_SIZE", "EventError", "Field", "ansi", "u16"]


class EventError(ValueError):
    """An event argument has the wrong type or is out of range; nothing was written."""

    def __init__(self, event: str, field: str, problem: str) -> None:
        super().__init__(f"event {event}: field {field!r}: {problem}")
        self.event = event
        self.field = field
        self.problem = problem


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


u16: Final = codecs.utf_16_le_encode
# ANSI strings are written in Windows-1252 (what decoders assume for the ANSI code page)
# unless their outType is win:Utf8.
ansi: Final = codecs.getencoder("cp1252")
# A pointer is as wide as this process's pointers (what ETW records with each event).
POINTER_SIZE: Final = struct.calcsize("P")
POINTER_FORMAT: Final = "Q" if POINTER_SIZE == 8 else "I"
