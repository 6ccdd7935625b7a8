"""ProviderRuntime: one registered provider as generated modules see it.

A generated provider module builds one :class:`ProviderRuntime` at import time (which
does nothing else: no registration, no backend) and registers it when the application
asks.  The runtime

* registers with a backend and keeps the handle; :meth:`~ProviderRuntime.register` is
  a no-op when already registered, :meth:`~ProviderRuntime.unregister` is idempotent,
  and every provider still registered is unregistered at interpreter exit;
* records the combined enable state on each enable callback and calls the module's
  ``on_enable(state)`` hook, where the module recomputes its per-(level, keyword) flags
  with :func:`compute_flags`;  CAPTURE_STATE calls ``on_capture_state(request)``;
  unknown control codes are ignored.  Hook exceptions never reach the caller of ETW:
  the latest one is kept in :attr:`~ProviderRuntime.hook_error`;
* writes events with :meth:`~ProviderRuntime.write`: one backend call, no ctypes
  objects made per call;
* hands its events' payload layouts (``layouts``, if given) to a backend that evaluates
  payload filters itself (the in-process one); on Windows ETW reads them from the
  installed manifest instead.

The enable callback can fire inside ``register`` (a session was already listening), so
all state exists before the backend is called.
"""

from __future__ import annotations

import atexit
import threading
import uuid
import weakref
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType, TracebackType

from .activity import _current as _current_activity
from .backends import Backend, get_backend
from .backends.base import ERROR_SUCCESS
from .payload import Field
from .state import (
    CAPTURE_STATE,
    DISABLE_PROVIDER,
    DISABLED,
    ENABLE_PROVIDER,
    EnableState,
    compute_flags,
    event_enabled,
)

__all__ = ["EnableHook", "ProviderRuntime", "compute_flags", "event_enabled"]

EnableHook = Callable[[EnableState], None]
_Writer = Callable[[object, bytes, bytes | None, bytes | None, bytes], int]


def _drop(
    handle: object,
    descriptor: bytes,
    activity: bytes | None,
    related: bytes | None,
    payload: bytes,
) -> int:
    return ERROR_SUCCESS


class ProviderRuntime:
    """A provider's registration, enable state and write path.

    ``guid`` is the provider GUID; ``traits`` the provider-traits blob (see
    :func:`etwmc.runtime.traits.build_traits`) or empty; ``layouts`` the payload layout
    of each event, ``{(event id, version): fields}``, for backends that decode payloads.
    ``on_enable`` and ``on_capture_state`` may also be assigned later (before
    :meth:`register`).
    """

    __slots__ = (
        "guid",
        "name",
        "traits",
        "layouts",
        "on_enable",
        "on_capture_state",
        "state",
        "hook_error",
        "_backend",
        "_handle",
        "_write",
        "_lock",
        "__weakref__",
    )

    def __init__(
        self,
        guid: uuid.UUID | str,
        name: str,
        traits: bytes = b"",
        *,
        on_enable: EnableHook | None = None,
        on_capture_state: EnableHook | None = None,
        layouts: Mapping[tuple[int, int], Sequence[Field]] | None = None,
    ) -> None:
        self.guid = guid if isinstance(guid, uuid.UUID) else uuid.UUID(guid)
        self.name = name
        self.traits = bytes(traits)
        self.layouts: Mapping[tuple[int, int], Sequence[Field]] = MappingProxyType(
            dict(layouts or {})
        )
        self.on_enable = on_enable
        self.on_capture_state = on_capture_state
        self.state: EnableState = DISABLED
        self.hook_error: BaseException | None = None
        self._backend: Backend | None = None
        self._handle: object = None
        self._write: _Writer = _drop
        self._lock = threading.Lock()

    # -- registration -------------------------------------------------------------

    @property
    def registered(self) -> bool:
        return self._backend is not None

    @property
    def backend(self) -> Backend | None:
        """The backend this provider is registered with, or ``None``."""
        return self._backend

    def register(self, backend: Backend | str | None = None) -> ProviderRuntime:
        """Register with ``backend`` (an instance, a name, or the default); returns self.

        Already registered: nothing happens.  Raises :class:`BackendError
        <etwmc.runtime.backends.BackendError>` when the backend refuses.
        """
        with self._lock:
            if self._backend is not None:
                return self
            chosen = (
                backend
                if backend is not None and not isinstance(backend, str)
                else (get_backend(backend))
            )
            self.state = DISABLED
            # Only a backend that filters payloads itself takes layouts (duck-typed: the
            # backend protocol does not require it).
            install = getattr(chosen, "install_layouts", None)
            if self.layouts and install is not None:
                install(self.guid, self.layouts)
            handle = chosen.register(self.guid, self._control)
            self._handle = handle
            self._backend = chosen
            if self.traits:
                chosen.set_traits(handle, self.traits)
            self._write = chosen.write
            _track(self)
        return self

    def unregister(self) -> None:
        """Unregister (idempotent); the provider reads as disabled afterwards."""
        with self._lock:
            backend, handle = self._backend, self._handle
            if backend is None:
                return
            self._write = _drop
            self._backend = None
            self._handle = None
            _live.discard(self)
            try:
                backend.unregister(handle)
            finally:
                if self.state.is_enabled:
                    self._control(DISABLE_PROVIDER, 0, 0, 0)

    def __enter__(self) -> ProviderRuntime:
        return self.register()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.unregister()

    # -- enable state ---------------------------------------------------------------

    def _control(self, code: int, level: int, match_any: int, match_all: int) -> None:
        """The enable callback: record the state, call the hook, return quickly."""
        if code == ENABLE_PROVIDER:
            state = EnableState(1, level, match_any, match_all)
            self.state = state
            hook = self.on_enable
        elif code == DISABLE_PROVIDER:
            state = DISABLED
            self.state = state
            hook = self.on_enable
        elif code == CAPTURE_STATE:
            state = EnableState(CAPTURE_STATE, level, match_any, match_all)
            hook = self.on_capture_state
        else:
            return
        if hook is not None:
            try:
                hook(state)
            except Exception as exc:  # never let a hook escape into ETW's thread
                self.hook_error = exc

    @property
    def is_enabled(self) -> bool:
        """Whether any session enables this provider at all."""
        return bool(self.state.is_enabled)

    def enabled(self, level: int = 0, keyword: int = 0) -> bool:
        """Whether an event of this level and keyword passes the combined state."""
        return event_enabled(level, keyword, self.state)

    # -- writing ----------------------------------------------------------------------

    def write(
        self,
        descriptor: bytes,
        payload: bytes = b"",
        activity_id: bytes | None = None,
        related_activity_id: bytes | None = None,
    ) -> int:
        """Write one event; returns the backend's status (0 = success or dropped).

        ``descriptor`` is a packed 16-byte EVENT_DESCRIPTOR, ``payload`` the whole user
        data.  Without ``activity_id`` the current activity id of the caller's context
        (:mod:`etwmc.runtime.activity`) is used, if any.  When unregistered, the event
        is dropped.
        """
        if activity_id is None:
            activity_id = _current_activity.get()
        return self._write(self._handle, descriptor, activity_id, related_activity_id, payload)

    def __repr__(self) -> str:
        where = self._backend.name if self._backend is not None else "unregistered"
        return f"<ProviderRuntime {self.name} {{{self.guid}}} {where} {self.state}>"


# Providers still registered; unregistered at exit so that no late enable callback
# calls into a finalizing interpreter.
_live: weakref.WeakSet[ProviderRuntime] = weakref.WeakSet()


_atexit_installed = False


def _track(provider: ProviderRuntime) -> None:
    global _atexit_installed
    _live.add(provider)
    if not _atexit_installed:
        # Installed on first registration, not at import: importing does nothing.
        atexit.register(unregister_all)
        _atexit_installed = True


def unregister_all(backend: Backend | None = None) -> None:
    """Unregister every provider of the process (runs at interpreter exit), or only those
    registered with ``backend``."""
    for provider in sorted(_live, key=lambda p: (p.name, str(p.guid))):
        if backend is not None and provider.backend is not backend:
            continue
        try:
            provider.unregister()
        except Exception:  # at exit, keep going: every provider gets its turn
            pass
