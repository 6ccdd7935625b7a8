"""A lock made on first use.

Importing :mod:`threading` costs a generated module a tenth of its import time; the
runtime's registration locks are needed only once something registers with a backend
that has threads of its own (not the null backend), so they are made then.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    import threading

__all__ = ["LazyLock"]


class LazyLock:
    """``with lock:`` as with a :class:`threading.Lock` (or ``RLock`` when
    ``reentrant``), which is made at the first use.

    Two threads using it for the very first time at once may each make one; both then
    use the first one appended (``list.append`` and indexing are atomic), so there is
    only ever one lock in use.
    """

    __slots__ = ("_made", "_reentrant")

    def __init__(self, *, reentrant: bool = False) -> None:
        self._made: list[threading.Lock | threading.RLock] = []
        self._reentrant = reentrant

    def get(self) -> threading.Lock | threading.RLock:
        if not self._made:
            # threading on first use: importing a generated module must stay cheap.
            import threading

            self._made.append(threading.RLock() if self._reentrant else threading.Lock())
        return self._made[0]

    def __enter__(self) -> None:
        self.get().acquire()

    def __exit__(self, *exc: object) -> None:
        self._made[0].release()
