"""What mc computes per event and per provider, which every generator reproduces (the
Python module and the C header alike).

* :func:`descriptor`: the values mc puts in each EVENT_DESCRIPTOR;
* :func:`enable_pairs`: mc's enable bits, one per distinct (level, keyword) pair of a
  provider's events, in event order;
* :func:`traits_blob`: the provider-traits blob mc registers with (:func:`checked_traits`
  reports one that is too long, for both generators);
* :func:`provider_items`: the channels, levels, tasks, opcodes and keywords a provider's
  metadata lists, in mc's order (the message ids, the WEVT blob and the header's
  constants all follow it).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TypeVar

from .codes import E_TRAITS
from .diagnostics import Diagnostic, diag
from .eventdescriptor import EventDescriptor
from .model import Channel, Event, Keyword, Level, Opcode, Provider, Task
from .record import Record
from .traits import build_traits

START_OPCODE = 1
STOP_OPCODE = 2


def descriptor(provider: Provider, event: Event) -> EventDescriptor:
    """The event's descriptor as mc writes it.

    Channel: the channel's value; with no channel, 12 (ProviderMetadata) for a provider
    with a controlGuid, else 0.  Keyword: the OR of the event's keywords plus the
    channel's bit (63 - position in the provider's ``<channels>`` list), if listed.
    """
    if event.channel is not None:
        channel = event.channel.value
        keyword = event.keyword_mask | event.channel.keyword_bit
    else:
        channel = 12 if provider.control_guid is not None else 0
        keyword = event.keyword_mask
    level, opcode, task = event.level, event.opcode, event.task
    # By position (id, version, channel, level, opcode, task, keyword): one per event.
    return EventDescriptor(
        event.value,
        event.version,
        channel,
        level.value if level else 0,
        opcode.value if opcode else 0,
        task.value if task else 0,
        keyword,
    )


def enable_pairs(descriptors: Sequence[EventDescriptor]) -> tuple[list[tuple[int, int]], list[int]]:
    """mc's enable bits for a provider whose events have ``descriptors`` (see
    :func:`descriptor`; events with ``notLogged`` included, as mc does): the distinct
    (level, keyword) pairs in event order, and each event's bit index."""
    pairs: list[tuple[int, int]] = []
    index: dict[tuple[int, int], int] = {}
    bits: list[int] = []
    for d in descriptors:
        key = (d.level, d.keyword)
        if key not in index:
            index[key] = len(pairs)
            pairs.append(key)
        bits.append(index[key])
    return pairs, bits


def traits_blob(provider: Provider) -> bytes:
    """The provider-traits blob mc registers with (empty when mc registers none).

    mc emits traits when the provider has a controlGuid, a group GUID or
    ``includeName``: the name (or a lone NUL), the group trait and, for controlGuid
    providers, the decode-GUID trait (the provider GUID).  Raises ``ValueError`` when
    the blob would not fit in the 255 bytes ETW allows.
    """
    t = provider.traits
    group = t.group_guid if t else None
    include_name = bool(t and t.include_name)
    if provider.control_guid is None and group is None and not include_name:
        return b""
    return build_traits(
        provider.name if include_name else "",
        group,
        decode_guid=provider.guid if provider.control_guid is not None else None,
    )


def checked_traits(provider: Provider, diags: list[Diagnostic]) -> bytes:
    """:func:`traits_blob`, or empty with an ETW602 diagnostic added to ``diags`` when
    the blob would be longer than ETW allows."""
    try:
        return traits_blob(provider)
    except ValueError as e:
        diags.append(
            diag(
                E_TRAITS,
                provider.span,
                f"provider '{provider.name}': {e}",
                hint='shorten the provider name or set includeName="false" in <traits>',
            )
        )
        return b""


# --------------------------------------------------------------------------- listed items

_Item = TypeVar("_Item", Channel, Level, Task, Opcode, Keyword)


class ProviderItems(Record, kw_only=True):
    """What a provider's metadata lists, before any sorting (:func:`provider_items`)."""

    channels: tuple[Channel, ...]
    levels: tuple[Level, ...]
    tasks: tuple[Task, ...]
    opcodes: tuple[Opcode, ...]
    keywords: tuple[Keyword, ...]


def _extend(declared: Iterable[_Item], used: Iterable[_Item | None]) -> tuple[_Item, ...]:
    out = list(declared)
    seen = {id(x) for x in out}
    for x in used:
        if x is not None and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return tuple(out)


def provider_items(p: Provider) -> ProviderItems:
    """The items ``p``'s metadata lists, in mc's order before any sorting.

    mc lists what the provider declares plus the predefined ``win:`` items its events
    refer to (``win:Error``, ``win:Start``, ``win:None``, ``win:ResponseTime``,
    ``System``...).  Declared items come first in document order, then each predefined
    item the first time an event (in document order) refers to it.  A ``win:`` channel
    named directly by an event is appended to the channel list (it has no keyword bit).
    """
    ev = p.events
    return ProviderItems(
        channels=_extend(p.channels, (e.channel for e in ev)),
        levels=_extend(p.levels, (e.level for e in ev)),
        tasks=_extend(p.tasks, (e.task for e in ev)),
        opcodes=_extend(p.all_opcodes(), (e.opcode for e in ev)),
        keywords=_extend(p.keywords, (k for e in ev for k in e.keywords)),
    )
