"""The null backend: no tracing facility.  Nothing is ever enabled, writes are dropped."""

from __future__ import annotations

from .status import ERROR_SUCCESS

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    import uuid

    from .base import EnableCallback


class NullBackend:
    """Registers nothing and drops every event; never an error.

    Since no callback ever fires, generated modules keep their enable flags False and
    never call :meth:`write`; it exists for callers that skip the check.
    """

    name = "null"

    def register(self, guid: uuid.UUID, callback: EnableCallback) -> object:
        return None

    def set_traits(self, handle: object, blob: bytes) -> int:
        return ERROR_SUCCESS

    def write(
        self,
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        return ERROR_SUCCESS

    def unregister(self, handle: object) -> None:
        return None


NULL_BACKEND = NullBackend()
