"""A provider's write function: its type, and the general one over a backend's write().

:attr:`ProviderRuntime.write <etwmc.runtime.provider.ProviderRuntime.write>` holds a
:class:`Writer`: the function a registration binds to its backend and handle.  Both the
provider and the backends make them (the in-process backend its own, with the write
path inlined: :func:`etwmc.runtime.backends.delivery.make_sender`), so the type and the
general function stand here, below both.
"""

from __future__ import annotations

from .activity import _current as _current_activity

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from collections.abc import Callable
    from typing import Protocol

    class Writer(Protocol):
        """A provider's write function: one event, the backend's status back."""

        def __call__(
            self,
            descriptor: bytes,
            payload: bytes = b"",
            activity_id: bytes | None = None,
            related_activity_id: bytes | None = None,
        ) -> int: ...

    # write(handle, descriptor, activity_id, related_activity_id, payload): a backend's.
    BackendWrite = Callable[[object, bytes, bytes | None, bytes | None, bytes], int]

__all__ = ["bind_writer"]  # and, for type checkers, Writer


def bind_writer(
    write: BackendWrite,
    handle: object,
    failed: Callable[[int], None] | None,
    current: Callable[[], bytes | None] = _current_activity.get,
) -> Writer:
    """A write function over ``write(handle, ...)``: ``current()`` (by default the
    caller's current activity id, :mod:`etwmc.runtime.activity`) gives the activity id
    of a write without one, and ``failed(status)``, if given, hears of every refused
    write."""

    def send(
        descriptor: bytes,
        payload: bytes = b"",
        activity_id: bytes | None = None,
        related_activity_id: bytes | None = None,
    ) -> int:
        if activity_id is None:
            activity_id = current()
        status = write(handle, descriptor, activity_id, related_activity_id, payload)
        if status and failed is not None:
            failed(status)
        return status

    return send
