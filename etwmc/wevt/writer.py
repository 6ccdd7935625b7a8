"""The WEVT_TEMPLATE resource (``<base>TEMP.BIN``): a CRIM blob, version 3.1 or 5.1.

Layout rules (binary-formats.md §1; every one checked against mc's outputs):

* CRIM header (16 bytes) and a provider directory (GUID, WEVT offset) in manifest
  order; the blob ends with 2 zero bytes that CRIM's size does not count.
* Per provider a WEVT block: header, element descriptors (exactly N in v5, always 11
  slots in v3), then the elements in this order: CHAN (if channels), MAPS (if maps),
  QTAB (if pattern maps), TTBL (if templates), PRVA (v5), OPCO, LEVL, TASK, KEYW
  (always, an empty one is 12 bytes with size 0), EVNT (if events, 8-aligned), EVTA
  (v5, if an event has a name or attributes), FLTR (if filters).
* Every offset is absolute (from the first byte of the blob); references point at the
  12/16/28/48-byte entries, 0 meaning none; a missing message is 0xFFFFFFFF.
* Sorting: levels by value, opcodes by (value << 16 | task), keywords by mask, events
  by id, map items by value, MAPS' offset array and map-name strings by name (ordinal);
  everything else in manifest order.  All sorts are stable.
* Names are "sized strings" (u32 size incl. itself, UTF-16, NUL, padded to 4) except in
  PRVA and EVTA (bare NUL-terminated strings, the block padded to 4).

The signatures, flags and entry layouts are :mod:`etwmc.wevt.crim`'s.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from typing import TypeVar

from ..descriptors import ProviderItems, provider_items
from ..model import Channel, Keyword, Level, Manifest, Opcode, Provider, Task
from ..msgids import MessageIds, message_ids
from .crim import (
    CHAN_ENTRY,
    CHANNEL_IMPORTED,
    CRIM,
    CRIM_HEADER,
    CRIM_MINOR,
    DEFAULT_WEVT_VERSION,
    DESCRIPTOR,
    DIRECTORY_ENTRY,
    EVNT_ENTRY,
    EVTA_ATTRIBUTE,
    EVTA_ENTRY,
    EVTA_NAME,
    FLTR_ENTRY,
    KEYW_ENTRY,
    KEYWORD_REF,
    LEVL_ENTRY,
    LIST_HEADER,
    LIST_HEADER_EXTRA,
    OPCO_ENTRY,
    PRVA_CONTROL_GUID,
    PRVA_ENTRY,
    PRVA_GROUP_GUID,
    PRVA_NAME,
    TASK_ENTRY,
    V3_SLOTS,
    WEVT,
    WEVT_HEADER,
    Entry,
    Kind,
    check_version,
    ordinal_key,
    sized_string,
    z_string,
)
from .maps import write_maps, write_qtab
from .ttbl import write_ttbl

# Model values are cut to the width of their field: out-of-range values have already
# been reported by the validator, and the writer must still not fail on them.
_U32 = 0xFFFFFFFF
_by_mask = operator.attrgetter("mask")

_Listed = TypeVar("_Listed", Channel, Level, Task, Opcode, Keyword)


def split_attributes(text: str) -> list[str]:
    """An event's ``attributes`` split at ``;`` outside double quotes (``""`` is a quote)."""
    out: list[str] = []
    cur: list[str] = []
    quoted = False
    for ch in text:
        if ch == '"':
            quoted = not quoted
        if ch == ";" and not quoted:
            out.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    if cur:
        out.append("".join(cur))
    return [a for a in out if a]


class _Writer:
    def __init__(self, manifest: Manifest, version: int, ids: MessageIds, legacy_ids: bool) -> None:
        self.m = manifest
        self.version = version
        self.ids = ids
        self.legacy_ids = legacy_ids
        self.out = bytearray()
        # Offsets of written entries, by id() of the model object.
        self.at: dict[int, int] = {}

    def ref(self, obj: object | None) -> int:
        return 0 if obj is None else self.at.get(id(obj), 0)

    # ------------------------------------------------------------------ CRIM

    def crim(self) -> bytes:
        provs = self.m.providers
        out = self.out
        directory = CRIM_HEADER.size
        out += bytes(directory + DIRECTORY_ENTRY.size * len(provs))
        for i, p in enumerate(provs):
            off = len(out)
            self.wevt(p)
            DIRECTORY_ENTRY.layout.pack_into(
                out, directory + DIRECTORY_ENTRY.size * i, p.guid.bytes_le, off
            )
        CRIM_HEADER.layout.pack_into(out, 0, CRIM, len(out), self.version, CRIM_MINOR, len(provs))
        out += b"\0\0"
        return bytes(out)

    def wevt(self, p: Provider) -> None:
        self.at = {}
        items = provider_items(p)
        v5 = self.version >= 5
        kinds: list[tuple[Kind, Callable[[], None]]] = []
        if items.channels:
            kinds.append((Kind.CHAN, lambda: self.chan(items)))
        if p.maps:
            kinds.append((Kind.MAPS, lambda: write_maps(self.out, self.at, p.maps, self.ids)))
        if p.pattern_maps:
            kinds.append((Kind.QTAB, lambda: write_qtab(self.out, self.at, p.pattern_maps)))
        if p.templates:
            kinds.append(
                (Kind.TTBL, lambda: write_ttbl(self.out, self.at, p, legacy_ids=self.legacy_ids))
            )
        if v5:
            kinds.append((Kind.PRVA, lambda: self.prva(p)))
        kinds.append((Kind.OPCO, lambda: self.opco(items)))
        kinds.append((Kind.LEVL, lambda: self.levl(items)))
        kinds.append((Kind.TASK, lambda: self.task(items)))
        kinds.append((Kind.KEYW, lambda: self.keyw(items)))
        if p.events:
            kinds.append((Kind.EVNT, lambda: self.evnt(p, items)))
            if v5 and any(e.name is not None or e.attributes for e in p.events):
                kinds.append((Kind.EVTA, lambda: self.evta(p)))
        if p.filters:
            kinds.append((Kind.FLTR, lambda: self.fltr(p)))

        out = self.out
        start = len(out)
        slots = len(kinds) if v5 else V3_SLOTS
        descriptors = start + WEVT_HEADER.size
        out += bytes(WEVT_HEADER.size + DESCRIPTOR.size * slots)
        for i, (kind, write) in enumerate(kinds):
            if kind == Kind.EVNT:
                out += b"\0" * (-len(out) % 8)
            DESCRIPTOR.layout.pack_into(out, descriptors + DESCRIPTOR.size * i, kind, len(out))
            write()
        WEVT_HEADER.layout.pack_into(
            out, start, WEVT, len(out) - start, self.ids.provider_id(p), len(kinds)
        )

    # ------------------------------------------------------------------ helpers

    def _list(
        self,
        kind: Kind,
        entry: Entry,
        items: Sequence[_Listed],
        values: Callable[[_Listed, int], tuple[int | bytes, ...]],
    ) -> None:
        """A list element: header, one ``entry`` per item, then the items' names.

        ``values(item, name_at)`` gives the entry's values in layout order, ``name_at``
        being the offset its name is written at.  An empty list has size 0."""
        out = self.out
        start = len(out)
        first = start + LIST_HEADER.size
        out += bytes(LIST_HEADER.size + len(items) * entry.size)
        pack = entry.layout.pack_into
        for i, item in enumerate(items):
            at = first + i * entry.size
            self.at[id(item)] = at
            pack(out, at, *values(item, len(out)))
            out += sized_string(item.name)
        size = len(out) - start if items else 0
        LIST_HEADER.layout.pack_into(out, start, kind.signature, size, len(items))

    # ------------------------------------------------------------------ blocks

    def chan(self, items: ProviderItems) -> None:
        ids = self.ids
        self._list(
            Kind.CHAN,
            CHAN_ENTRY,
            items.channels,
            lambda c, name: (
                CHANNEL_IMPORTED if (c.imported or c.builtin) else 0,
                name,
                c.value & _U32,
                ids.channel_id(c),
            ),
        )

    def opco(self, items: ProviderItems) -> None:
        ids = self.ids
        self._list(
            Kind.OPCO,
            OPCO_ENTRY,
            sorted(items.opcodes, key=lambda o: (o.value << 16) | o.task_value),
            lambda o, name: (o.task_value & 0xFFFF, o.value & 0xFFFF, ids.opcode_id(o), name),
        )

    def levl(self, items: ProviderItems) -> None:
        ids = self.ids
        self._list(
            Kind.LEVL,
            LEVL_ENTRY,
            sorted(items.levels, key=lambda lv: lv.value),
            lambda lv, name: (lv.value & _U32, ids.level_id(lv), name),
        )

    def task(self, items: ProviderItems) -> None:
        ids = self.ids
        self._list(
            Kind.TASK,
            TASK_ENTRY,
            items.tasks,
            lambda t, name: (
                t.value & _U32,
                ids.task_id(t),
                t.event_guid.bytes_le if t.event_guid else bytes(16),
                name,
            ),
        )

    def keyw(self, items: ProviderItems) -> None:
        ids = self.ids
        self._list(
            Kind.KEYW,
            KEYW_ENTRY,
            sorted(items.keywords, key=lambda k: k.mask),
            lambda k, name: (k.mask & 0xFFFFFFFFFFFFFFFF, ids.keyword_id(k), name),
        )

    def prva(self, p: Provider) -> None:
        out = self.out
        start = len(out)
        entries: list[tuple[int, bytes]] = [(PRVA_NAME, z_string(p.name))]
        if p.control_guid is not None:
            entries.append((PRVA_CONTROL_GUID, p.control_guid.bytes_le))
        if p.traits is not None and p.traits.group_guid is not None:
            entries.append((PRVA_GROUP_GUID, p.traits.group_guid.bytes_le))
        first = start + LIST_HEADER.size
        out += bytes(LIST_HEADER.size + PRVA_ENTRY.size * len(entries))
        for i, (kind, value) in enumerate(entries):
            if kind != PRVA_NAME:
                out += b"\0" * (-len(out) % 4)
            PRVA_ENTRY.layout.pack_into(out, first + PRVA_ENTRY.size * i, kind, len(out))
            out += value
        out += b"\0" * (-(len(out) - start) % 4)
        LIST_HEADER.layout.pack_into(
            out, start, Kind.PRVA.signature, len(out) - start, len(entries)
        )

    def evnt(self, p: Provider, items: ProviderItems) -> None:
        """Header, one entry per event by id, then the events' keyword arrays (the
        offsets of their KEYW entries, by mask)."""
        events = sorted(p.events, key=lambda e: e.value)
        start = len(self.out)
        # Every offset is known before anything is written: the arrays follow the entries.
        array_at = start + LIST_HEADER_EXTRA.size + EVNT_ENTRY.size * len(events)
        ref = self.at.get  # id(None) is never a key: a missing item's offset is 0
        event_id = self.ids.event_id
        pack = EVNT_ENTRY.layout.pack
        # What an entry holds of its channel, level, opcode and task (value, offset and,
        # for a channel, its keyword bit) is worked out once per item, not per event:
        # the provider's items hold every one an event names (provider_items); None
        # (left out) stands for zeros.
        channel = {id(c): (c.value & 0xFF, ref(id(c), 0), _channel_bit(c)) for c in items.channels}
        level = {id(lv): (lv.value & 0xFF, ref(id(lv), 0)) for lv in items.levels}
        opcode = {id(o): (o.value & 0xFF, ref(id(o), 0)) for o in items.opcodes}
        task = {id(t): (t.value & 0xFFFF, ref(id(t), 0)) for t in items.tasks}
        channel[id(None)] = (0, 0, 0)
        level[id(None)] = opcode[id(None)] = task[id(None)] = (0, 0)
        # What an array holds for each keyword: its entry's offset.
        keyword_ref = {id(k): KEYWORD_REF.layout.pack(ref(id(k), 0)) for k in items.keywords}
        no_ref = KEYWORD_REF.layout.pack(0)
        entries: list[bytes] = []
        arrays: list[bytes] = []
        for e in events:
            keywords = e.keywords
            if keywords:
                by_mask = sorted(keywords, key=_by_mask)
                arrays.append(b"".join([keyword_ref.get(id(k), no_ref) for k in by_mask]))
                kw_array = array_at
                array_at += KEYWORD_REF.size * len(keywords)
            else:
                kw_array = 0
            ch_value, ch_at, ch_bit = channel[id(e.channel)]
            lv_value, lv_at = level[id(e.level)]
            op_value, op_at = opcode[id(e.opcode)]
            task_value, task_at = task[id(e.task)]
            entries.append(
                pack(
                    e.value & 0xFFFF, e.version & 0xFF, ch_value, lv_value, op_value, task_value,
                    (e.keyword_mask | ch_bit) & 0xFFFFFFFFFFFFFFFF,
                    event_id(e), ref(id(e.template), 0), op_at, lv_at, task_at, len(keywords),
                    kw_array, ch_at,
                )
            )  # fmt: skip
        out = self.out
        out += LIST_HEADER_EXTRA.layout.pack(Kind.EVNT.signature, array_at - start, len(events), 0)
        out += b"".join(entries)
        out += b"".join(arrays)

    def evta(self, p: Provider) -> None:
        out = self.out
        rows: list[tuple[int, int, int, str]] = []
        for e in sorted(p.events, key=lambda e: (e.value, e.version)):
            if e.name is not None:
                rows.append((EVTA_NAME, e.version, e.value, e.name))
            for a in split_attributes(e.attributes or ""):
                rows.append((EVTA_ATTRIBUTE, e.version, e.value, a))
        start = len(out)
        first = start + LIST_HEADER.size
        out += bytes(LIST_HEADER.size + EVTA_ENTRY.size * len(rows))
        where: dict[str, int] = {}
        for s in sorted({r[3] for r in rows}, key=ordinal_key):
            where[s] = len(out)
            out += z_string(s)
        for i, (kind, version, value, s) in enumerate(rows):
            EVTA_ENTRY.layout.pack_into(
                out, first + EVTA_ENTRY.size * i, kind, version & 0xFF, value & 0xFFFF, where[s]
            )
        out += b"\0" * (-(len(out) - start) % 4)
        LIST_HEADER.layout.pack_into(out, start, Kind.EVTA.signature, len(out) - start, len(rows))

    def fltr(self, p: Provider) -> None:
        out = self.out
        fs = p.filters
        start = len(out)
        first = start + LIST_HEADER_EXTRA.size
        out += bytes(LIST_HEADER_EXTRA.size + FLTR_ENTRY.size * len(fs))
        for i, f in enumerate(fs):
            FLTR_ENTRY.layout.pack_into(
                out,
                first + FLTR_ENTRY.size * i,
                f.value & 0xFF,
                f.version & 0xFF,
                self.ids.filter_id(f),
                len(out),
                self.ref(f.template),
            )
            out += sized_string(f.name)
        # mc writes the last filter's template offset into the header's spare field.
        LIST_HEADER_EXTRA.layout.pack_into(
            out, start, Kind.FLTR.signature, len(out) - start, len(fs), self.ref(fs[-1].template)
        )


def _channel_bit(ch: Channel | None) -> int:
    """Bit 63 - k for the k-th channel of the provider's list; none for other channels."""
    if ch is None or ch.index is None or not 0 <= ch.index < 64:
        return 0
    return 1 << (63 - ch.index)


def build(
    manifest: Manifest,
    *,
    version: int = DEFAULT_WEVT_VERSION,
    ids: MessageIds | None = None,
    legacy_ids: bool = False,
) -> bytes:
    """The WEVT_TEMPLATE blob for ``manifest``.  ValueError for a version etwmc does not
    write (:data:`~etwmc.wevt.crim.WEVT_VERSIONS`)."""
    check_version(version)
    if ids is None:
        ids = message_ids(manifest)
    return _Writer(manifest, version, ids, legacy_ids).crim()


__all__ = ["build", "split_attributes"]
