"""Activity ids that follow the caller through threads and asyncio tasks.

An activity is a set of events sharing a non-zero 128-bit ActivityId: the first event
has opcode Start (and may carry the parent's id as RelatedActivityId), the last Stop.

ETW itself keeps one current activity id per *thread*, which breaks as soon as work
hops between asyncio tasks.  etwmc keeps the current id in a :mod:`contextvars`
variable instead: each thread starts with none, each asyncio task inherits a copy of
its creator's context, and ``asyncio.to_thread`` / ``contextvars.copy_context().run``
carry it into worker threads.  :meth:`ProviderRuntime.write
<etwmc.runtime.provider.ProviderRuntime.write>` stamps the current id on events
written without an explicit one; with no current id, the backend decides (real ETW
uses the thread's own activity id).

Ids are 16-byte ``bytes`` in GUID layout (``uuid.UUID.bytes_le``), ready to hand to
the backend.  The usual pattern::

    with activity() as act:          # new id; related = the id that was current
        provider.RequestStart(...)   # stamped with act.id, related act.related
        ...
        provider.RequestStop(...)
    # the previous id is current again
"""

from __future__ import annotations

import contextvars
import itertools
import os

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    import uuid
    from collections.abc import Callable
    from types import TracebackType

GUID_SIZE = 16

_current: contextvars.ContextVar[bytes | None] = contextvars.ContextVar(
    "etwmc_activity_id", default=None
)

# Locally unique ids: a random per-process prefix plus a counter.  itertools.count is
# advanced atomically under the GIL, so threads never share a value.
_prefix = os.urandom(8)
_counter = itertools.count(1)


def current_activity_id() -> bytes | None:
    """The current activity id of this context, or ``None``."""
    return _current.get()


def set_activity_id(activity_id: bytes | uuid.UUID | None) -> contextvars.Token[bytes | None]:
    """Make ``activity_id`` current; returns a token for :func:`reset_activity_id`."""
    return _current.set(_as_guid(activity_id) if activity_id is not None else None)


def reset_activity_id(token: contextvars.Token[bytes | None]) -> None:
    """Restore the id that was current before the matching :func:`set_activity_id`."""
    _current.reset(token)


def new_activity_id(*, locally_unique: bool = False) -> bytes:
    """A fresh non-zero activity id.

    By default a random (version 4) GUID.  ``locally_unique=True`` gives a cheaper id
    unique within this process only, like EventActivityIdControl(CREATE_ID).
    """
    if locally_unique:
        return _prefix + next(_counter).to_bytes(8, "little")
    return random_guid()


def random_guid() -> bytes:
    """A random (version 4, RFC 4122 variant) GUID in Windows layout, as
    ``uuid.uuid4().bytes_le`` gives, without importing uuid (a third of a generated
    module's import time, for one call)."""
    data = bytearray(os.urandom(16))
    data[7] = (data[7] & 0x0F) | 0x40  # the version: high nibble of the 3rd field (LE)
    data[8] = (data[8] & 0x3F) | 0x80  # the variant
    return bytes(data)


def activity_uuid(activity_id: bytes) -> uuid.UUID:
    """An activity id (GUID layout) as a :class:`uuid.UUID`."""
    # uuid (and the platform module it loads) only when asked: importing a generated
    # module stays under 2x a bare interpreter (bench/run.py --only import).
    import uuid

    return uuid.UUID(bytes_le=_as_guid(activity_id))


class Activity:
    """A scope in which a new activity id is current.

    ``related`` defaults to the id that was current when the scope starts (the parent
    activity).  Use it as a context manager, or call :meth:`start` and :meth:`stop`
    yourself (generated Start/Stop helpers do).  :meth:`stop` restores the previous
    id; stopping in a different context than the one started in (another asyncio task)
    restores it there only if this activity is still current.
    """

    __slots__ = ("id", "related", "_token", "_previous")

    def __init__(
        self,
        related: bytes | uuid.UUID | None = None,
        *,
        activity_id: bytes | uuid.UUID | None = None,
        locally_unique: bool = False,
    ) -> None:
        self.id: bytes = (
            _as_guid(activity_id)
            if activity_id is not None
            else new_activity_id(locally_unique=locally_unique)
        )
        self.related: bytes | None = _as_guid(related) if related is not None else None
        self._token: contextvars.Token[bytes | None] | None = None
        self._previous: bytes | None = None

    def start(self) -> Activity:
        """Make this activity current (idempotent); returns ``self``."""
        if self._token is None:
            self._previous = _current.get()
            if self.related is None:
                self.related = self._previous
            self._token = _current.set(self.id)
        return self

    def stop(self) -> None:
        """Restore the id that was current before :meth:`start` (idempotent)."""
        token, self._token = self._token, None
        if token is None:
            return
        try:
            _current.reset(token)
        except ValueError:
            # Stopped from another context than the one that started it.
            if _current.get() == self.id:
                _current.set(self._previous)

    @property
    def uuid(self) -> uuid.UUID:
        return activity_uuid(self.id)

    def __enter__(self) -> Activity:
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()


def activity(related: bytes | uuid.UUID | None = None, *, locally_unique: bool = False) -> Activity:
    """A new :class:`Activity` (not yet started): ``with activity() as act: ...``."""
    return Activity(related, locally_unique=locally_unique)


def start_activity(
    related: bytes | uuid.UUID | None = None, *, locally_unique: bool = False
) -> Activity:
    """Create and start an activity (for generated Start helpers); end it with ``stop()``."""
    return Activity(related, locally_unique=locally_unique).start()


def _as_guid(value: bytes | uuid.UUID) -> bytes:
    if isinstance(value, bytes | bytearray | memoryview) and len(value) == GUID_SIZE:
        return bytes(value)
    import uuid  # only now: importing it costs more than a generated module's own import

    if isinstance(value, uuid.UUID):
        return value.bytes_le
    raise ValueError(
        f"an activity id is 16 bytes (GUID layout) or a uuid.UUID, got {type(value).__name__}"
        + (f" of length {len(value)}" if isinstance(value, bytes | bytearray) else "")
    )


def start_event(
    enabled: bool, write: Callable[..., int], related: uuid.UUID | None, *values: object
) -> Activity:
    """What a generated ``start_<Event>`` does: a new activity becomes current (related:
    ``related``, else the id that was current), then, when ``enabled`` (the event's flag,
    read once by the caller), ``write(*values)`` writes the event with the activity's
    ids.  Arguments ``write`` refuses (an ``EventError``) end the activity again before
    the error goes on."""
    act = Activity(related).start()
    if enabled:
        try:
            write(
                *values,
                activity_id=activity_uuid(act.id),
                related_activity_id=None if act.related is None else activity_uuid(act.related),
            )
        except BaseException:
            act.stop()
            raise
    return act


def stop_event(
    enabled: bool, write: Callable[..., int], activity: Activity, *values: object
) -> int:
    """What a generated ``stop_<Event>`` does: when ``enabled``, ``write(*values)`` writes
    the event with ``activity``'s id; then the activity ends, whatever the write did.
    Returns the write's status (0 when not enabled)."""
    try:
        return write(*values, activity_id=activity_uuid(activity.id)) if enabled else 0
    finally:
        activity.stop()
