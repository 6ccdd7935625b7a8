"""Message ids as mc assigns them, for the uniqueness rules.

An id belongs to a *string*: the first element (in mc's order) that references a
string without an id gives it one, and every later reference reuses it.  Strings named
by a ``<messageTable>`` entry have that entry's value.  Automatic ids are
``tag << 28 | provider index << 24 | low 24 bits`` with, per kind of element:

======================  ====  ============================================
provider, channel       0x9   a counter per provider: 1, 2, ...
level                   0x5   value
task                    0x7   value
opcode                  0x3   task value (low 8 bits) << 16 | value
keyword                 0x1   bit index + 1
event                   0xB   version << 16 | id (tag 0x0 on System,
                              Application or Security: classic Event Log ids)
valueMap / bitMap item  0xD   a counter per provider (bitMap items: 0xF)
filter                  0x5   0x80 << 16 | version << 8 | value
======================  ====  ============================================

The provider index has 4 bits; providers after the 16th wrap around (that is what
makes their ids collide, and why they need fixed ids).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from .. import winmeta as wm
from ..diagnostics import Span
from ..model import Manifest, Provider


@dataclass(frozen=True, slots=True)
class Assigned:
    string: str
    id: int
    span: Span
    what: str  # the element that gave the string its id
    provider: int | None  # index of the provider that assigned it; None for <messageTable>


def _id(tag: int, index: int, low: int) -> int:
    return (tag & 0xF) << 28 | (index & 0xF) << 24 | (low & 0xFFFFFF)


def _requests(p: Provider) -> Iterator[tuple[str, int, Span, str]]:
    """(string id, message id, span, what) for every message of a provider, in mc's order."""
    i = p.index
    counter = 0
    if p.message:
        counter += 1
        yield p.message, _id(0x9, i, counter), p.span, f'<provider name="{p.name}">'
    for c in p.channels:
        if c.message and not c.imported:
            counter += 1
            yield c.message, _id(0x9, i, counter), c.span, f'<channel name="{c.name}">'
    for lv in p.levels:
        if lv.message:
            yield lv.message, _id(0x5, i, lv.value & 0xFFFF), lv.span, f'<level name="{lv.name}">'
    for t in p.tasks:
        if t.message:
            yield t.message, _id(0x7, i, t.value & 0xFFFF), t.span, f'<task name="{t.name}">'
    for op in p.all_opcodes():
        if op.message:
            low = (op.task_value & 0xFF) << 16 | (op.value & 0xFFFF)
            yield op.message, _id(0x3, i, low), op.span, f'<opcode name="{op.name}">'
    for k in p.keywords:
        if k.message:
            yield k.message, _id(0x1, i, k.mask.bit_length()), k.span, f'<keyword name="{k.name}">'
    for e in p.events:
        if e.message:
            classic = (
                e.channel is not None
                and e.channel.name in wm.GLOBAL_EVENTLOG_CHANNELS
                and (e.channel.builtin or e.channel.imported)
            )
            low = (e.version & 0xFF) << 16 | (e.value & 0xFFFF)
            yield e.message, _id(0x0 if classic else 0xB, i, low), e.span, (
                f'<event value="{e.value}" version="{e.version}">'
            )
    counters = {"value": 0, "bit": 0}
    for mp in p.maps:
        for item in mp.items:
            if item.message:
                counters[mp.kind] += 1
                tag = 0xF if mp.kind == "bit" else 0xD
                yield item.message, _id(tag, i, counters[mp.kind]), item.span, (
                    f'an item of map "{mp.name}"'
                )
    for f in p.filters:
        if f.message:
            low = 0x80 << 16 | (f.version & 0xFF) << 8 | (f.value & 0xFF)
            yield f.message, _id(0x5, i, low), f.span, f'<filter name="{f.name}">'


def assign(m: Manifest) -> dict[str, Assigned]:
    """The message id of every referenced string."""
    out: dict[str, Assigned] = {}
    for msg in m.messages:
        if msg.message and msg.message not in out:
            out[msg.message] = Assigned(
                msg.message, msg.value, msg.span, f'<message value="{msg.value}">', None
            )
    for p in m.providers:
        for sid, mid, span, what in _requests(p):
            if sid not in out:
                out[sid] = Assigned(sid, mid, span, what, p.index)
    return out
