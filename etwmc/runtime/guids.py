"""GUID constants of generated modules, made on first read.

A generated module's provider classes hold their GUIDs as :class:`uuid.UUID` values
(``HELLO_PROVIDER.GUID``).  Importing :mod:`uuid` costs more than the rest of a small
generated module's import (on Linux it loads :mod:`platform` and :mod:`re`), and a
module whose events are never enabled never reads its GUIDs.  So a class attribute
holds a :class:`GuidConstant`, which reads as the ``uuid.UUID`` (type checkers see it
so too) and puts that value in its place on the first read.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    import uuid

__all__ = ["GuidConstant"]


class GuidConstant:
    """A class attribute that reads as ``uuid.UUID(text)``, made on the first read."""

    __slots__ = ("text", "_name")

    def __init__(self, text: str) -> None:
        self.text = text
        self._name = ""

    def __set_name__(self, owner: type, name: str) -> None:
        self._name = name

    def __get__(self, instance: object, owner: type | None = None) -> uuid.UUID:
        # uuid (and the platform module it loads) only when asked: importing a generated
        # module stays under 2x a bare interpreter (bench/run.py --only import).
        from uuid import UUID

        value = UUID(self.text)
        if owner is not None and self._name:
            # The plain value replaces this object: later reads cost nothing.  Two
            # threads reading at once both store an equal value.
            setattr(owner, self._name, value)
        return value

    def __repr__(self) -> str:
        return f"GuidConstant({self.text!r})"
