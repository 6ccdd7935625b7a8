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

import contextlib
import os
import sys
import threading
from collections.abc import Iterator

from .base import Backend, BackendError, EnableCallback
from .null import NULL_BACKEND, NullBackend

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

_lock = threading.Lock()
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


@contextlib.contextmanager
def replaced_backend(name: str, backend: Backend) -> Iterator[Backend]:
    """Within the block, ``get_backend(name)`` returns ``backend`` (for test harnesses:
    each test gets its own in-process backend); the previous one is restored after."""
    chosen = name.strip().lower()
    if chosen not in BACKEND_NAMES or chosen == "null":
        raise ValueError(f"cannot replace the {name!r} backend")
    with _lock:
        previous = _singletons.get(chosen)
        _singletons[chosen] = backend
    try:
        yield backend
    finally:
        with _lock:
            if previous is None:
                _singletons.pop(chosen, None)
            else:
                _singletons[chosen] = previous
