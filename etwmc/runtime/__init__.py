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

from typing import TYPE_CHECKING

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
from .backends import BACKEND_ENV, Backend, BackendError, get_backend
from .backends.session import SessionLimitError
from .decoding import PayloadDecodeError, decode_payload
from .descriptor import EventDescriptor, pack_descriptor, unpack_descriptor
from .eventfile import EventFileError, EventRecord, read_events, write_events
from .filters import EventIdFilter, PayloadFilter
from .provider import ProviderRuntime, unregister_all
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

if TYPE_CHECKING:
    from .loghandler import EtwLoggingHandler

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
    # EtwLoggingHandler loads on first use: its module imports the provider module etwmc
    # ships, which imports this package, so importing it here would run that module
    # against a half-initialised package; and most users never log through ETW.
    if name == "EtwLoggingHandler":
        from .loghandler import EtwLoggingHandler

        return EtwLoggingHandler
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
