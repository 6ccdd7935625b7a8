"""etwmc.runtime: what generated provider modules import.

Standard library only: an application that imports a generated provider module needs
``pip install etwmc`` and nothing else.  Importing registers nothing and loads no DLL.

* :class:`ProviderRuntime`: registration, enable state, the write path;
* :func:`event_enabled` / :func:`compute_flags`: mc's enable rule over the combined state;
* :func:`pack_descriptor`: the 16-byte EVENT_DESCRIPTOR;
* :mod:`~etwmc.runtime.activity`: activity ids that follow threads and asyncio tasks;
* :mod:`~etwmc.runtime.backends`: ``windows`` (ETW), ``inproc`` (in-process sessions),
  ``null``; chosen by argument, ``ETWMC_BACKEND`` or platform;
* :mod:`~etwmc.runtime.eventfile`: :class:`EventRecord` and the event file format;
* :class:`EventIdFilter` / :class:`PayloadFilter`: what an in-process session filters;
* :func:`decode_payload`: a payload's fields, by the template's layout;
* :class:`EtwLoggingHandler`: Python log records as ETW events of a provider etwmc ships.
"""

from __future__ import annotations

# Loaded at once (cheap, and every generated module uses it), and bound here so that
# `activity` is the function, not the submodule of the same name.
from .activity import (
    Activity,
    activity,
    activity_uuid,
    current_activity_id,
    new_activity_id,
    reset_activity_id,
    set_activity_id,
    start_activity,
)

# Every name loads its module on first use (PEP 562): importing a generated module
# imports this package, and must not pay for the backends, sessions, filters, event
# files or decoding that a module never enabled does not use.
_HOMES = {
    "BACKEND_ENV": "backends",
    "Backend": "backends",
    "BackendError": "backends",
    "get_backend": "backends",
    "SessionLimitError": "backends.session",
    "PayloadDecodeError": "decoding",
    "decode_payload": "decoding",
    "EventDescriptor": "descriptor",
    "pack_descriptor": "descriptor",
    "unpack_descriptor": "descriptor",
    "EventFileError": "eventfile",
    "EventRecord": "eventfile",
    "read_events": "eventfile",
    "write_events": "eventfile",
    "EventIdFilter": "filters",
    "PayloadFilter": "filters",
    # EtwLoggingHandler's module imports the provider module etwmc ships, which imports
    # this package: only a lazy name can give it.
    "EtwLoggingHandler": "loghandler",
    "ProviderRuntime": "provider",
    "Registration": "provider",
    "unregister_all": "provider",
    "CAPTURE_STATE": "state",
    "DISABLED": "state",
    "DISABLE_PROVIDER": "state",
    "ENABLE_PROVIDER": "state",
    "EnableState": "state",
    "compute_flags": "state",
    "event_enabled": "state",
    "flags_mask": "state",
    "build_traits": "traits",
    "parse_traits": "traits",
}

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (see state.py)
if TYPE_CHECKING:
    from .backends import BACKEND_ENV, Backend, BackendError, get_backend
    from .backends.session import SessionLimitError
    from .decoding import PayloadDecodeError, decode_payload
    from .descriptor import EventDescriptor, pack_descriptor, unpack_descriptor
    from .eventfile import EventFileError, EventRecord, read_events, write_events
    from .filters import EventIdFilter, PayloadFilter
    from .loghandler import EtwLoggingHandler
    from .provider import ProviderRuntime, Registration, unregister_all
    from .state import (
        CAPTURE_STATE,
        DISABLE_PROVIDER,
        DISABLED,
        ENABLE_PROVIDER,
        EnableState,
        compute_flags,
        event_enabled,
        flags_mask,
    )
    from .traits import build_traits, parse_traits

__all__ = [
    "BACKEND_ENV",
    "CAPTURE_STATE",
    "DISABLED",
    "DISABLE_PROVIDER",
    "ENABLE_PROVIDER",
    "Activity",
    "Backend",
    "BackendError",
    "EnableState",
    "EtwLoggingHandler",
    "EventDescriptor",
    "EventFileError",
    "EventIdFilter",
    "EventRecord",
    "PayloadDecodeError",
    "PayloadFilter",
    "ProviderRuntime",
    "Registration",
    "SessionLimitError",
    "activity",
    "activity_uuid",
    "build_traits",
    "compute_flags",
    "current_activity_id",
    "decode_payload",
    "event_enabled",
    "flags_mask",
    "get_backend",
    "new_activity_id",
    "pack_descriptor",
    "parse_traits",
    "read_events",
    "reset_activity_id",
    "set_activity_id",
    "start_activity",
    "unpack_descriptor",
    "unregister_all",
    "write_events",
]


def __getattr__(name: str) -> object:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    # The import statement's own machinery (importlib would load more modules).
    module = __import__(f"{__name__}.{home}", fromlist=[name])
    value = getattr(module, name)
    globals()[name] = value  # found directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
