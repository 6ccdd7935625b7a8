"""The backend protocol: what a :class:`~etwmc.runtime.provider.ProviderRuntime` needs.

A backend registers providers, delivers their enable callbacks and writes their events.
Handles are opaque: whatever ``register`` returns is handed back to the other methods.

``write`` returns a Win32-style status: 0 on success (including "no session wanted the
event"), otherwise an error number such as 8 (a session had no room for the event), 87
(invalid parameter) or 534 (event too large).  Writes never raise for a well-formed
call: tracing must not break the traced program.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Protocol

from .status import (
    ERROR_ARITHMETIC_OVERFLOW,
    ERROR_INVALID_HANDLE,
    ERROR_INVALID_PARAMETER,
    ERROR_NOT_ENOUGH_MEMORY,
    ERROR_SUCCESS,
    BackendError,
)

# callback(control_code, level, match_any_keyword, match_all_keyword)
EnableCallback = Callable[[int, int, int, int], None]

__all__ = [
    "ERROR_ARITHMETIC_OVERFLOW",
    "ERROR_INVALID_HANDLE",
    "ERROR_INVALID_PARAMETER",
    "ERROR_NOT_ENOUGH_MEMORY",
    "ERROR_SUCCESS",
    "Backend",
    "BackendError",
    "EnableCallback",
]


class Backend(Protocol):
    """What every backend offers (structural: backends do not inherit from it)."""

    name: str

    def register(self, guid: uuid.UUID, callback: EnableCallback) -> object:
        """Register a provider; ``callback`` may fire before this returns."""
        ...

    def set_traits(self, handle: object, blob: bytes) -> int:
        """Attach the provider traits blob; returns a status (0 on success)."""
        ...

    def write(
        self,
        handle: object,
        descriptor: bytes,
        activity: bytes | None,
        related: bytes | None,
        payload: bytes,
    ) -> int:
        """Write one event: a 16-byte descriptor, optional 16-byte GUIDs, one payload."""
        ...

    def unregister(self, handle: object) -> None:
        """Unregister; idempotent.  No callback fires for the handle afterwards."""
        ...
