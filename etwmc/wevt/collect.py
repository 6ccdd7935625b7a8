"""The items a provider's metadata lists, in mc's order before any sorting.

mc lists what the provider declares plus the predefined ``win:`` items its events
refer to (``win:Error``, ``win:Start``, ``win:None``, ``win:ResponseTime``,
``System``...).  Declared items come first in document order, then each predefined
item the first time an event (in document order) refers to it.  A ``win:`` channel
named directly by an event is appended to the channel list (it has no keyword bit).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

from ..model import Channel, Keyword, Level, Opcode, Provider, Task

T = TypeVar("T", Channel, Level, Task, Opcode, Keyword)


@dataclass(frozen=True, slots=True)
class ProviderItems:
    channels: tuple[Channel, ...]
    levels: tuple[Level, ...]
    tasks: tuple[Task, ...]
    opcodes: tuple[Opcode, ...]
    keywords: tuple[Keyword, ...]


def _extend(declared: Iterable[T], used: Iterable[T | None]) -> tuple[T, ...]:
    out = list(declared)
    seen = {id(x) for x in out}
    for x in used:
        if x is not None and id(x) not in seen:
            seen.add(id(x))
            out.append(x)
    return tuple(out)


def provider_items(p: Provider) -> ProviderItems:
    ev = p.events
    return ProviderItems(
        channels=_extend(p.channels, (e.channel for e in ev)),
        levels=_extend(p.levels, (e.level for e in ev)),
        tasks=_extend(p.tasks, (e.task for e in ev)),
        opcodes=_extend(p.all_opcodes(), (e.opcode for e in ev)),
        keywords=_extend(p.keywords, (k for e in ev for k in e.keywords)),
    )
