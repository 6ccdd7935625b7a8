"""Which threads are writing, and through which routes: what lets the in-process
backend's common write go without its lock.

A writer on the fast path of :func:`~etwmc.runtime.backends.delivery.make_sender`
publishes the routes dictionary it found in its thread's :class:`WriterState` before it
checks that the dictionary is still the registration's, and clears it when its event is
stored.  A controller that replaces routes (an enable, a disable, a stop, a consumer
replaced, an unregistration) calls :func:`quiesce` with the dictionaries it replaced:
it returns once no other thread has one of them published.  Under the GIL attribute
stores and loads happen in one order for every thread, so the writer's recheck and the
controller's scan cannot both miss each other: either the writer sees the new routes
(and takes the locked path), or the controller sees the writer and waits for it.  A
control operation therefore returns only after every event written through the old
routes is stored, as when every write took the lock (read-copy-update, with the
routes dictionary as the copy).

Each thread's state also holds its native thread id, asked of the system once.
"""

from __future__ import annotations

import os
import threading
import time
import weakref
from collections.abc import Iterable

__all__ = ["WriterState", "local_states", "quiesce", "thread_id", "writer_state"]

_native_id = threading.get_native_id


class WriterState:
    """One thread's writer state: its native id, and the routes it is writing through
    (``None`` between writes)."""

    __slots__ = ("tid", "routes", "__weakref__")

    def __init__(self) -> None:
        self.tid = _native_id()
        self.routes: object = None


# ``local_states.state``: the calling thread's WriterState, once it has written.
local_states = threading.local()
# Every thread's state, for quiesce(); a thread's state goes with its thread-local data.
_states: weakref.WeakSet[WriterState] = weakref.WeakSet()
_states_lock = threading.Lock()


def writer_state() -> WriterState:
    """The calling thread's state (made on its first write)."""
    try:
        state: WriterState = local_states.state
    except AttributeError:
        state = WriterState()
        with _states_lock:
            _states.add(state)
        local_states.state = state
    return state


def thread_id() -> int:
    """The calling thread's native id."""
    return writer_state().tid


def quiesce(replaced: Iterable[object]) -> None:
    """Wait until no other thread writes through one of the ``replaced`` routes
    dictionaries (the caller keeps them alive, so their ids stay theirs).

    The calling thread is not waited for: a finalizer or a signal handler that runs a
    control operation in the middle of that thread's own write must not wait for it.
    """
    stale = {id(r) for r in replaced}
    if not stale:
        return
    me = getattr(local_states, "state", None)
    with _states_lock:
        states = [s for s in _states if s is not me]
    for state in states:
        # A writer holds its routes for a few dozen bytecodes: yield the GIL until done.
        while id(state.routes) in stale:
            time.sleep(0)


def _after_fork() -> None:
    """In a forked child only the forking thread runs: no other thread's write is in
    flight, whatever was published when the process forked."""
    global _states_lock
    _states_lock = threading.Lock()
    for state in list(_states):
        state.routes = None
    me = getattr(local_states, "state", None)
    if me is not None:
        me.tid = _native_id()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)
