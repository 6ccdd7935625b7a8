"""Backends and how one is chosen.

=========  ==========================================================================
name       what it does
=========  ==========================================================================
windows    real ETW through advapi32 (ctypes); the default on Windows
inproc     in-process sessions with ETW's semantics (tests, tools, non-Windows capture)
null       nothing is ever enabled; events are dropped; the default elsewhere
=========  ==========================================================================

:func:`get_backend` takes an explicit name first, then the ``ETWMC_BACKEND``
environment variable, then the platform.  ``windows`` and ``inproc`` are process-wide
singletons, so every provider of the process shares one set of in-process sessions.
"""

from __future__ import annotations

import os
import sys

from ..lazylock import LazyLock
from .null import NULL_BACKEND, NullBackend
from .status import BackendError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from types import TracebackType

    from .base import Backend, EnableCallback

__all__ = [
    "BACKEND_ENV",
    "BACKEND_NAMES",
    "Backend",
    "BackendError",
    "EnableCallback",
    "NullBackend",
    "get_backend",
    "replaced_backend",
]

BACKEND_ENV = "ETWMC_BACKEND"
BACKEND_NAMES = ("inproc", "null", "windows")

_lock = LazyLock()
_singletons: dict[str, Backend] = {}


def default_backend_name() -> str:
    """``ETWMC_BACKEND`` if set (and not empty), else ``windows`` on Windows, else ``null``."""
    chosen = os.environ.get(BACKEND_ENV, "").strip().lower()
    if chosen:
        return chosen
    return "windows" if sys.platform == "win32" else "null"


def get_backend(name: str | None = None) -> Backend:
    """The backend called ``name`` (or the default one, see :func:`default_backend_name`).

    Raises ``ValueError`` for an unknown name and :class:`BackendError` when the
    backend cannot work here (``windows`` off Windows).
    """
    chosen = (name or default_backend_name()).strip().lower()
    if chosen == "null":
        return NULL_BACKEND
    if chosen not in BACKEND_NAMES:
        raise ValueError(
            f"unknown ETW backend {chosen!r}; choose one of {', '.join(BACKEND_NAMES)}"
        )
    with _lock:
        backend = _singletons.get(chosen)
        if backend is None:
            backend = _create(chosen)
            _singletons[chosen] = backend
        return backend


def _create(name: str) -> Backend:
    # Imported lazily: the null-backend path must not load ctypes or build sessions.
    if name == "inproc":
        from .inproc import InProcBackend

        return InProcBackend()
    from .windows import WindowsBackend

    return WindowsBackend()


class replaced_backend:  # a class, lower case: it is used as a function is, in `with`
    """Within ``with replaced_backend(name, backend):``, ``get_backend(name)`` returns
    ``backend`` (for test harnesses: each test gets its own in-process backend); the
    previous one is restored after.  ``ValueError`` for ``null`` or an unknown name."""

    __slots__ = ("_name", "_backend", "_previous")

    def __init__(self, name: str, backend: Backend) -> None:
        chosen = name.strip().lower()
        if chosen not in BACKEND_NAMES or chosen == "null":
            raise ValueError(f"cannot replace the {name!r} backend")
        self._name = chosen
        self._backend = backend
        self._previous: Backend | None = None

    def __enter__(self) -> Backend:
        with _lock:
            self._previous = _singletons.get(self._name)
            _singletons[self._name] = self._backend
        return self._backend

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        with _lock:
            if self._previous is None:
                _singletons.pop(self._name, None)
            else:
                _singletons[self._name] = self._previous


def __getattr__(name: str) -> object:
    # The backend protocol's names load typing: only for those who ask for them.
    if name in ("Backend", "EnableCallback"):
        from . import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
