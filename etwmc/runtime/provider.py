"""ProviderRuntime: one registered provider as generated modules see it.

A generated provider module builds one :class:`ProviderRuntime` at import time (which
does nothing else: no registration, no backend, no GUID parsed) and registers it when
the application asks.  The runtime

* registers with a backend and keeps the handle; :meth:`~ProviderRuntime.register` is
  a no-op when already registered, :meth:`~ProviderRuntime.unregister` is idempotent,
  and every provider still registered is unregistered at interpreter exit;
* records the combined enable state on each enable callback and calls the module's
  ``on_enable(state)`` hook, where the module recomputes its per-(level, keyword) flags
  with :func:`compute_flags`;  CAPTURE_STATE calls ``on_capture_state(request)``;
  unknown control codes are ignored.  Hook exceptions never reach the caller of ETW:
  the latest one is kept in :attr:`~ProviderRuntime.hook_error`;
* writes events with :attr:`~ProviderRuntime.write`, a function bound at registration
  to the backend and its handle (one attribute read, so a writer never pairs one
  registration's function with another's handle); a write the backend refuses is
  counted in :attr:`~ProviderRuntime.write_failures`, whoever ignores its status;
* hands its events' payload layouts (``layouts``, if given) to a backend that evaluates
  payload filters itself (the in-process one); on Windows ETW reads them from the
  installed manifest instead.

The enable callback can fire inside ``register`` (a session was already listening), so
all state exists before the backend is called.

Importing this module costs little: the backends, ``threading``, ``uuid`` and the exit
hook are loaded on the first registration, which a module never enabled may not need.
"""

from __future__ import annotations

from types import MappingProxyType

from .lazylock import LazyLock
from .state import (
    CAPTURE_STATE,
    DISABLE_PROVIDER,
    DISABLED,
    ENABLE_PROVIDER,
    EnableState,
    compute_flags,
    event_enabled,
)
from .writing import bind_writer

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    import uuid
    import weakref
    from collections.abc import Callable, Iterable, Mapping, Sequence
    from types import TracebackType

    from .backends.base import Backend
    from .fields import Field
    from .writing import Writer

    EnableHook = Callable[[EnableState], None]

# EnableHook is for type checkers only (Callable[[EnableState], None]): not exported.
__all__ = ["ProviderRuntime", "compute_flags", "event_enabled"]


def _drop(
    descriptor: bytes,
    payload: bytes = b"",
    activity_id: bytes | None = None,
    related_activity_id: bytes | None = None,
) -> int:
    """The write of an unregistered provider: the event is dropped (ERROR_SUCCESS)."""
    return 0


class ProviderRuntime:
    """A provider's registration, enable state and write path.

    ``guid`` is the provider GUID (a :class:`uuid.UUID`, or its text: parsed on first
    use); ``traits`` the provider-traits blob (see
    :func:`etwmc.runtime.traits.build_traits`) or empty; ``layouts`` the payload layout
    of each event, ``{(event id, version): fields}``, for backends that decode payloads.
    ``on_enable`` and ``on_capture_state`` may also be assigned later (before
    :meth:`register`).

    ``write(descriptor, payload=b"", activity_id=None, related_activity_id=None)``
    writes one event and returns the backend's status (0: written, or dropped because
    the provider is not registered).  ``descriptor`` is a packed 16-byte
    EVENT_DESCRIPTOR, ``payload`` the whole user data, the ids 16-byte GUIDs; without
    ``activity_id`` the current activity id of the caller's context
    (:mod:`etwmc.runtime.activity`) is used, if any.  ``write_failures`` counts the
    writes the backend refused (a session without room, an event too large, an ETW
    error) and ``last_status`` holds the latest refusal's Win32 status.
    """

    __slots__ = (
        "_guid",
        "name",
        "traits",
        "layouts",
        "on_enable",
        "on_capture_state",
        "state",
        "hook_error",
        "write",
        "write_failures",
        "last_status",
        "_backend",
        "_handle",
        "__weakref__",
    )

    write: Writer

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
        self._guid: uuid.UUID | str = guid
        self.name = name
        self.traits = bytes(traits)
        self.layouts: Mapping[tuple[int, int], Sequence[Field]] = MappingProxyType(
            dict(layouts or {})
        )
        self.on_enable = on_enable
        self.on_capture_state = on_capture_state
        self.state: EnableState = DISABLED
        self.hook_error: BaseException | None = None
        self.write = _drop
        self.write_failures = 0
        self.last_status = 0
        self._backend: Backend | None = None
        self._handle: object = None

    @property
    def guid(self) -> uuid.UUID:
        """The provider GUID."""
        guid = self._guid
        if isinstance(guid, str):
            import uuid  # on first use only: importing it costs more than the module

            guid = self._guid = uuid.UUID(guid)
        return guid

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
        # Here, not at the top: importing a generated module (which imports this one)
        # loads no backend (tests/test_runtime_import.py); no backend imports this module.
        from .backends import NullBackend, get_backend

        if self._backend is not None:
            return self
        chosen = (
            backend
            if backend is not None and not isinstance(backend, str)
            else get_backend(backend)
        )
        if isinstance(chosen, NullBackend):
            # Nothing is ever enabled there and nothing is registered: no handle, no GUID
            # to parse, no lock, no exit hook (what a module imported off Windows does).
            self._backend = chosen
            return self
        with _lock:
            if self._backend is not None:
                return self
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
                status = chosen.set_traits(handle, self.traits)
                if status:  # the events go out without the traits: say so, as for a write
                    self._failed(status)
            # A backend may offer a write function of its own for a handle (the
            # in-process one does, to save a call per event); any other gets the
            # general one over its write().
            bind = getattr(chosen, "bind_writer", None)
            self.write = (
                bind(handle, self._failed)
                if bind is not None
                else bind_writer(chosen.write, handle, self._failed)
            )
            _track(self)
        return self

    def unregister(self) -> None:
        """Unregister (idempotent); the provider reads as disabled afterwards."""
        with _lock:
            backend, handle = self._backend, self._handle
            if backend is None:
                return
            self.write = _drop
            self._backend = None
            self._handle = None
            _untrack(self)
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

    def _failed(self, status: int) -> None:
        """Count one write the backend refused (any thread; never under a backend's lock)."""
        with _lock:
            self.write_failures += 1
            self.last_status = status

    def __repr__(self) -> str:
        where = self._backend.name if self._backend is not None else "unregistered"
        return f"<ProviderRuntime {self.name} {{{self.guid}}} {where} {self.state}>"


class Registration:
    """``with Registration(providers, backend):`` registers ``providers`` (ProviderRuntime
    objects) with ``backend``, and unregisters them when the block ends; what generated
    modules' ``registration()`` returns."""

    __slots__ = ("providers", "backend")

    def __init__(
        self, providers: Iterable[ProviderRuntime], backend: Backend | str | None = None
    ) -> None:
        self.providers = tuple(providers)
        self.backend = backend

    def __enter__(self) -> None:
        for provider in self.providers:
            provider.register(self.backend)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        for provider in self.providers:
            provider.unregister()


# -- what the first registration sets up ---------------------------------------------------

# One lock for every registration change of the process, and for the failure counts:
# both are rare (a hook may register another provider inside a registration, hence
# reentrant).
_lock = LazyLock(reentrant=True)


# Providers still registered; unregistered at exit so that no late enable callback
# calls into a finalizing interpreter.
_live: list[weakref.WeakSet[ProviderRuntime]] = []


def _track(provider: ProviderRuntime) -> None:
    if not _live:
        # At the first registration: a module never registered pays for neither.
        import atexit
        import weakref

        _live.append(weakref.WeakSet())
        # Installed on first registration, not at import: importing does nothing.
        atexit.register(unregister_all)
    _live[0].add(provider)


def _untrack(provider: ProviderRuntime) -> None:
    if _live:
        _live[0].discard(provider)


def unregister_all(backend: Backend | None = None) -> None:
    """Unregister every provider of the process (runs at interpreter exit), or only those
    registered with ``backend``."""
    if not _live:
        return
    for provider in sorted(_live[0], key=lambda p: (p.name, str(p.guid))):
        if backend is not None and provider.backend is not backend:
            continue
        try:
            provider.unregister()
        except Exception:  # at exit, keep going: every provider gets its turn
            pass
