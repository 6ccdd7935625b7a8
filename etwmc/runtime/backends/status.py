"""The Win32 status codes backends return, and the error a backend raises.

Kept apart from the backend protocol (:mod:`.base`, which needs :mod:`typing`) so that
the null backend, what a provider registers with off Windows by default, loads nothing
more.
"""

from __future__ import annotations

__all__ = [
    "ERROR_ARITHMETIC_OVERFLOW",
    "ERROR_INVALID_HANDLE",
    "ERROR_INVALID_PARAMETER",
    "ERROR_NOT_ENOUGH_MEMORY",
    "ERROR_SUCCESS",
    "BackendError",
]

ERROR_SUCCESS = 0
ERROR_INVALID_HANDLE = 6
ERROR_NOT_ENOUGH_MEMORY = 8  # a session had no room: the event was lost
ERROR_INVALID_PARAMETER = 87
ERROR_ARITHMETIC_OVERFLOW = 534  # the event is larger than ETW's 64 KiB


class BackendError(RuntimeError):
    """A backend could not be created or could not register a provider."""
