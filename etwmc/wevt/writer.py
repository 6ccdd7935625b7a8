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
"""

from __future__ import annotations

import struct
from collections.abc import Callable

from ..descriptors import ProviderItems, provider_items
from ..model import Channel, Event, Manifest, Provider
from ..msgids import NO_MESSAGE, MessageIds, message_ids
from .maps import write_maps, write_qtab
from .strings import ordinal_key, sized_string, z_string
from .ttbl import write_ttbl

LEVL, TASK, OPCO, KEYW, EVNT, CHAN, MAPS, TTBL, QTAB, FLTR = range(10)
EVTA, PRVA = 12, 13
V3_SLOTS = 11

PRVA_NAME = 0x10000001
PRVA_CONTROL_GUID = 0x20000001
PRVA_GROUP_GUID = 0x20000002
EVTA_NAME = 0x11
EVTA_ATTRIBUTE = 0x12


_pack_into = struct.pack_into
# Model values are cut to the width of their field: out-of-range values have already
# been reported by the validator, and the writer must still not fail on them.
_U32 = 0xFFFFFFFF


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
        out += bytes(16 + 20 * len(provs))
        for i, p in enumerate(provs):
            off = len(out)
            self.wevt(p)
            _pack_into("<16sI", out, 16 + 20 * i, p.guid.bytes_le, off)
        _pack_into("<4sIHHI", out, 0, b"CRIM", len(out), self.version, 1, len(provs))
        out += b"\0\0"
        return bytes(out)

    def wevt(self, p: Provider) -> None:
        self.at = {}
        items = provider_items(p)
        v5 = self.version >= 5
        kinds: list[tuple[int, Callable[[], None]]] = []
        if items.channels:
            kinds.append((CHAN, lambda: self.chan(items)))
        if p.maps:
            kinds.append((MAPS, lambda: write_maps(self.out, self.at, p.maps, self.ids)))
        if p.pattern_maps:
            kinds.append((QTAB, lambda: write_qtab(self.out, self.at, p.pattern_maps)))
        if p.templates:
            kinds.append(
                (TTBL, lambda: write_ttbl(self.out, self.at, p, legacy_ids=self.legacy_ids))
            )
        if v5:
            kinds.append((PRVA, lambda: self.prva(p)))
        kinds.append((OPCO, lambda: self.opco(items)))
        kinds.append((LEVL, lambda: self.levl(items)))
        kinds.append((TASK, lambda: self.task(items)))
        kinds.append((KEYW, lambda: self.keyw(items)))
        if p.events:
            kinds.append((EVNT, lambda: self.evnt(p)))
            if v5 and any(e.name is not None or e.attributes for e in p.events):
                kinds.append((EVTA, lambda: self.evta(p)))
        if p.filters:
            kinds.append((FLTR, lambda: self.fltr(p)))

        out = self.out
        start = len(out)
        slots = len(kinds) if v5 else V3_SLOTS
        out += bytes(16 + 8 * slots)
        for i, (kind, write) in enumerate(kinds):
            if kind == EVNT:
                out += b"\0" * (-len(out) % 8)
            _pack_into("<II", out, start + 16 + 8 * i, kind, len(out))
            write()
        _pack_into(
            "<4sIII", out, start, b"WEVT", len(out) - start, self.ids.provider_id(p), len(kinds)
        )

    # ------------------------------------------------------------------ helpers

    def _list(
        self,
        sig: bytes,
        n: int,
        entry: int,
        fill: Callable[[int, int], str],
        name_at: int | None = None,
    ) -> None:
        """A list block: header, ``n`` entries of ``entry`` bytes, then their names.

        ``fill(i, at)`` writes entry i at offset ``at`` (all but its name offset) and
        returns its name, whose offset goes at ``name_at`` in the entry (default: its
        last 4 bytes).  An empty list has size 0."""
        name_pos = entry - 4 if name_at is None else name_at
        out = self.out
        start = len(out)
        out += bytes(12 + n * entry)
        for i in range(n):
            at = start + 12 + i * entry
            name = fill(i, at)
            _pack_into("<I", out, at + name_pos, len(out))
            out += sized_string(name)
        size = len(out) - start if n else 0
        _pack_into("<4sII", out, start, sig, size, n)

    # ------------------------------------------------------------------ blocks

    def chan(self, items: ProviderItems) -> None:
        chans = items.channels
        out = self.out

        def fill(i: int, at: int) -> str:
            c = chans[i]
            self.at[id(c)] = at
            flags = 1 if (c.imported or c.builtin) else 0
            _pack_into("<I4xII", out, at, flags, c.value & _U32, self.ids.channel_id(c))
            return c.name

        self._list(b"CHAN", len(chans), 16, fill, name_at=4)

    def opco(self, items: ProviderItems) -> None:
        ops = sorted(items.opcodes, key=lambda o: (o.value << 16) | o.task_value)
        out = self.out

        def fill(i: int, at: int) -> str:
            o = ops[i]
            self.at[id(o)] = at
            _pack_into(
                "<HHI", out, at, o.task_value & 0xFFFF, o.value & 0xFFFF, self.ids.opcode_id(o)
            )
            return o.name

        self._list(b"OPCO", len(ops), 12, fill)

    def levl(self, items: ProviderItems) -> None:
        levels = sorted(items.levels, key=lambda lv: lv.value)
        out = self.out

        def fill(i: int, at: int) -> str:
            lv = levels[i]
            self.at[id(lv)] = at
            _pack_into("<II", out, at, lv.value & _U32, self.ids.level_id(lv))
            return lv.name

        self._list(b"LEVL", len(levels), 12, fill)

    def task(self, items: ProviderItems) -> None:
        tasks = items.tasks
        out = self.out

        def fill(i: int, at: int) -> str:
            t = tasks[i]
            self.at[id(t)] = at
            guid = t.event_guid.bytes_le if t.event_guid else bytes(16)
            _pack_into("<II16s", out, at, t.value & _U32, self.ids.task_id(t), guid)
            return t.name

        self._list(b"TASK", len(tasks), 28, fill)

    def keyw(self, items: ProviderItems) -> None:
        kws = sorted(items.keywords, key=lambda k: k.mask)
        out = self.out

        def fill(i: int, at: int) -> str:
            k = kws[i]
            self.at[id(k)] = at
            _pack_into("<QI", out, at, k.mask & 0xFFFFFFFFFFFFFFFF, self.ids.keyword_id(k))
            return k.name

        self._list(b"KEYW", len(kws), 16, fill)

    def prva(self, p: Provider) -> None:
        out = self.out
        start = len(out)
        entries: list[tuple[int, bytes]] = [(PRVA_NAME, z_string(p.name))]
        if p.control_guid is not None:
            entries.append((PRVA_CONTROL_GUID, p.control_guid.bytes_le))
        if p.traits is not None and p.traits.group_guid is not None:
            entries.append((PRVA_GROUP_GUID, p.traits.group_guid.bytes_le))
        out += bytes(12 + 8 * len(entries))
        for i, (kind, value) in enumerate(entries):
            if kind != PRVA_NAME:
                out += b"\0" * (-len(out) % 4)
            _pack_into("<II", out, start + 12 + 8 * i, kind, len(out))
            out += value
        out += b"\0" * (-(len(out) - start) % 4)
        _pack_into("<4sII", out, start, b"PRVA", len(out) - start, len(entries))

    def evnt(self, p: Provider) -> None:
        out = self.out
        events = sorted(p.events, key=lambda e: e.value)
        start = len(out)
        out += bytes(16 + 48 * len(events))
        kw_arrays: list[int] = []
        for e in events:
            if e.keywords:
                kw_arrays.append(len(out))
                for k in sorted(e.keywords, key=lambda k: k.mask):
                    out += struct.pack("<I", self.ref(k))
            else:
                kw_arrays.append(0)
        for i, e in enumerate(events):
            self._event_entry(start + 16 + 48 * i, e, kw_arrays[i])
        _pack_into("<4sIII", out, start, b"EVNT", len(out) - start, len(events), 0)

    def _event_entry(self, at: int, e: Event, kw_array: int) -> None:
        ch = e.channel
        mask = e.keyword_mask | _channel_bit(ch)
        _pack_into(
            "<HBBBBHQ8I", self.out, at,
            e.value & 0xFFFF, e.version & 0xFF,
            (ch.value if ch else 0) & 0xFF,
            (e.level.value if e.level else 0) & 0xFF,
            (e.opcode.value if e.opcode else 0) & 0xFF,
            (e.task.value if e.task else 0) & 0xFFFF,
            mask & 0xFFFFFFFFFFFFFFFF,
            self.ids.event_id(e), self.ref(e.template), self.ref(e.opcode), self.ref(e.level),
            self.ref(e.task), len(e.keywords), kw_array, self.ref(ch),
        )  # fmt: skip

    def evta(self, p: Provider) -> None:
        out = self.out
        rows: list[tuple[int, int, int, str]] = []
        for e in sorted(p.events, key=lambda e: (e.value, e.version)):
            if e.name is not None:
                rows.append((EVTA_NAME, e.version, e.value, e.name))
            for a in split_attributes(e.attributes or ""):
                rows.append((EVTA_ATTRIBUTE, e.version, e.value, a))
        start = len(out)
        out += bytes(12 + 8 * len(rows))
        where: dict[str, int] = {}
        for s in sorted({r[3] for r in rows}, key=ordinal_key):
            where[s] = len(out)
            out += z_string(s)
        for i, (kind, version, value, s) in enumerate(rows):
            _pack_into(
                "<BBHI", out, start + 12 + 8 * i, kind, version & 0xFF, value & 0xFFFF, where[s]
            )
        out += b"\0" * (-(len(out) - start) % 4)
        _pack_into("<4sII", out, start, b"EVTA", len(out) - start, len(rows))

    def fltr(self, p: Provider) -> None:
        out = self.out
        fs = p.filters
        start = len(out)
        out += bytes(16 + 16 * len(fs))
        for i, f in enumerate(fs):
            at = start + 16 + 16 * i
            _pack_into(
                "<BBxxIII",
                out,
                at,
                f.value & 0xFF,
                f.version & 0xFF,
                self.ids.filter_id(f),
                len(out),
                self.ref(f.template),
            )
            out += sized_string(f.name)
        # mc writes the last filter's template offset into the header's spare field.
        _pack_into(
            "<4sIII", out, start, b"FLTR", len(out) - start, len(fs), self.ref(fs[-1].template)
        )


def _channel_bit(ch: Channel | None) -> int:
    """Bit 63 - k for the k-th channel of the provider's list; none for other channels."""
    if ch is None or ch.index is None or not 0 <= ch.index < 64:
        return 0
    return 1 << (63 - ch.index)


def build(
    manifest: Manifest, *, version: int = 5, ids: MessageIds | None = None, legacy_ids: bool = False
) -> bytes:
    """The WEVT_TEMPLATE blob for ``manifest``."""
    if version not in (3, 5):
        raise ValueError(f"WEVT_TEMPLATE version must be 3 or 5, not {version}")
    if ids is None:
        ids = message_ids(manifest)
    return _Writer(manifest, version, ids, legacy_ids).crim()


__all__ = ["NO_MESSAGE", "build", "sized_string", "split_attributes", "z_string"]
