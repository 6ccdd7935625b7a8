"""Message ids: the resource id of every string the metadata refers to, exactly as mc assigns them.

Every stage reads them through :func:`message_ids`, which computes them once per model
object (validation's rules, the WEVT blob, the message tables, the C header); the
customer-bit variant (mc's ``-c``) is derived from them by :func:`with_customer_bit`.

``id = tag << 28 | provider index << 24 | value`` (manifest-and-mc.md §7a):

========================  ====  ==============================================
referenced by             tag   value (24 bits)
========================  ====  ==============================================
provider, channel         0x9   running counter per provider (provider first)
level                     0x5   level value
filter                    0x5   0x80 << 16 | version << 8 | value
task                      0x7   task value
opcode                    0x3   (task value & 0xFF) << 16 | opcode value
keyword                   0x1   index of the highest set bit + 1
event                     0xB   version << 16 | event id (System/Application/Security: 0, id)
valueMap item             0xD   running counter per provider over all value-map items
bitMap item               0xF   running counter per provider over all bit-map items
========================  ====  ==============================================

Items are visited provider by provider in mc's order: provider, channels (the CHAN
list, winmeta channels an event names directly included), levels, tasks, opcodes,
keywords, events, map items, filters.  A message id belongs to the *string*: when a
string was already given an id (by an earlier item, or explicitly by
``<messageTable><message value=...>``), later items reuse it and no counter moves.

A predefined ``win:`` level, opcode, task or keyword is one string for the whole
manifest, with its English winmeta text: it gets the formula's id with the index of
the *first* provider that lists it, and later providers share that id (mc gave
``win:Error`` 0x51000002 when only the second provider used it: SensorsUtilsV2.dll's
message table; Microsoft's services.wevt has ``win:EventlogClassic`` at 0x12000038 in
its third provider).  A ``win:`` channel (imported or named directly) takes the next
provider/channel counter value, its text is its name, and the id is shared by every
later use of that channel.

The manifest's string table can give a predefined item its own text: a string with
the id winmeta uses for it (``level.Informational``, ``task.None``, ``opcode.Info``,
``channel.Application``; ``keyword.<name>`` by the same pattern) takes that item's id,
and each culture's table holds the manifest's text.  mc's headers define ``MSG_`` ids
for exactly those strings (libsir, osquery, rusttrace and nuclune/WEC commit theirs).

Opcodes of tasks above 255.  An opcode's id keeps only the low 8 bits of its task's
value (bits 16-23 of the id: mc's header for event-trace-kit's TaskOpcodes.man defines
opcode 101 of task 0x11 as 0x30110065), so opcode 12 of task 4 and opcode 12 of task
516 (0x204) get one id, 0x3004000C.  No public mc output shows an opcode of a task above
255: neither the golden sets nor, in the public code index, the mc headers, .rc files
and MSG*.bin committed beside manifests whose tasks exceed 255 (the ones found have no
task-scoped opcode there).  event-trace-kit's id generator, built to reproduce mc's
outputs, keeps the low 8 bits too.  And Windows registers Microsoft-Windows-WebAuthN,
whose tasks 4 (WebAuthNError) and 516 (CtapUsbConnect) both have opcode 12 with the text
"Informational" (its metadata as repnz/etw-providers-docs dumped it from Windows 10
build 18990): mc compiled that.  So two strings with the same text in every culture
share an id without complaint, the message table holding the text once for both; two
texts for one id would lose one of them, which stays an error (ETW651).  The same holds
for any two strings that meet on one id (an explicit ``<messageTable>`` id included).

Events of the global Event Log channels (System, Application, Security) get classic
Event Log ids: tag 0 and the event id alone, whatever the version (libsir's mc header:
version-1 events 1-4 on Application have ids 0x1-0x4).  When another version of the
same event already has that id with another string, the version is kept in the id
(``version << 16 | id``), so both messages survive; no public mc output shows this
case.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any, Final

from . import winmeta as wm
from .codes import E_DUP_MESSAGE_ID, W_TOO_MANY_PROVIDERS
from .descriptors import provider_items
from .diagnostics import Diagnostic, Span, diag
from .model import (
    Channel,
    Event,
    Filter,
    Keyword,
    Level,
    Manifest,
    Opcode,
    Provider,
    Resources,
    Task,
)
from .record import Record

NO_MESSAGE: Final = 0xFFFFFFFF  # what the metadata stores for an item without a message


def make_id(tag: int, provider: int, value: int) -> int:
    return ((tag & 0xF) << 28) | ((provider & 0xF) << 24) | (value & 0xFFFFFF)


def keyword_value(mask: int) -> int:
    """Index of the highest set bit + 1 (0 for mask 0)."""
    return mask.bit_length()


_EMPTY: Mapping[Any, Any] = MappingProxyType({})


class MessageIds(Record, kw_only=True):
    """Message ids of one manifest.

    ``strings`` maps a string-table id to its message id; ``winmeta`` maps the message
    id of each predefined item used to its (English) text; ``builtins`` maps a
    predefined level/task/opcode/keyword, as ``(kind, name)``, to its id.  The ``*_id``
    methods give the id stored for an item, or ``NO_MESSAGE`` (0xFFFFFFFF).

    One object is shared by every rule and generator of a model (:func:`message_ids`):
    its mappings are read-only, and ``diagnostics`` must not be changed in place.
    """

    strings: Mapping[str, int] = _EMPTY
    winmeta: Mapping[int, str] = _EMPTY
    winmeta_channels: Mapping[str, int] = _EMPTY
    builtins: Mapping[tuple[str, str], int] = _EMPTY
    diagnostics: Sequence[Diagnostic] = ()

    def _of(self, string_id: str | None) -> int:
        if string_id is None:
            return NO_MESSAGE
        return self.strings.get(string_id, NO_MESSAGE)

    def provider_id(self, p: Provider) -> int:
        return self._of(p.message)

    def channel_id(self, c: Channel) -> int:
        if c.message is not None:
            return self._of(c.message)
        if is_winmeta_channel(c):
            return self.winmeta_channels.get(c.name, NO_MESSAGE)
        return NO_MESSAGE

    def _builtin(self, kind: str, name: str) -> int:
        return self.builtins.get((kind, name), NO_MESSAGE)

    def level_id(self, lv: Level) -> int:
        if lv.builtin:
            return self._builtin("level", lv.name)
        return self._of(lv.message)

    def task_id(self, t: Task) -> int:
        if t.builtin:
            return self._builtin("task", t.name)
        return self._of(t.message)

    def opcode_id(self, o: Opcode) -> int:
        if o.builtin:
            return self._builtin("opcode", o.name)
        return self._of(o.message)

    def keyword_id(self, k: Keyword) -> int:
        if k.builtin:
            return self._builtin("keyword", k.name)
        return self._of(k.message)

    def event_id(self, e: Event) -> int:
        return self._of(e.message)

    def filter_id(self, f: Filter) -> int:
        return self._of(f.message)

    def map_item_id(self, string_id: str | None) -> int:
        return self._of(string_id)


def is_winmeta_channel(c: Channel) -> bool:
    """A predefined channel (named directly, or imported by name) carrying winmeta's text."""
    return (c.builtin or c.imported) and c.message is None and c.name in wm.CHANNELS


def is_global_channel(c: Channel | None) -> bool:
    """System/Application/Security from winmeta: their events get classic Event Log ids."""
    return c is not None and (c.builtin or c.imported) and c.name in wm.GLOBAL_EVENTLOG_CHANNELS


OVERFLOW_TAG = 0xE  # a tag mc's formula never produces: ids for providers 17 and up


class _Draft:
    """The ids while they are being assigned (:class:`MessageIds` is read-only)."""

    __slots__ = ("strings", "winmeta", "winmeta_channels", "builtins", "diagnostics")

    def __init__(self) -> None:
        self.strings: dict[str, int] = {}
        self.winmeta: dict[int, str] = {}
        self.winmeta_channels: dict[str, int] = {}
        self.builtins: dict[tuple[str, str], int] = {}
        self.diagnostics: list[Diagnostic] = []

    def freeze(self) -> MessageIds:
        return MessageIds(
            strings=MappingProxyType(self.strings),
            winmeta=MappingProxyType(self.winmeta),
            winmeta_channels=MappingProxyType(self.winmeta_channels),
            builtins=MappingProxyType(self.builtins),
            diagnostics=self.diagnostics,
        )


class _Assigner:
    def __init__(self, ids: _Draft, resources: Sequence[Resources]) -> None:
        self.ids = ids
        self.resources = resources
        # The primary culture's strings, by id.
        self.primary: Mapping[str, object] = resources[0].strings if resources else {}
        self.owner: dict[int, str] = {}  # message id -> the string that has it
        self.overflow = 0
        self.pi = 0

    def make(self, tag: int, value: int) -> int:
        """mc's id for the current provider; past the 16th provider, the next overflow id."""
        if self.pi <= 15:
            return make_id(tag, self.pi, value)
        self.overflow += 1
        return (OVERFLOW_TAG << 28) | self.overflow

    def classic_free(self, value: int, string_id: str | None) -> bool:
        """Whether the classic id of event ``value`` is free for ``string_id``."""
        return self.owner.get(make_id(0x0, self.pi, value), string_id) == string_id

    def give(self, string_id: str | None, tag: int, value: int, at: object, why: str = "") -> bool:
        """Give ``string_id`` an id unless it has one.  True when it was new."""
        if string_id is None or string_id in self.ids.strings:
            return False
        self.take(string_id, self.make(tag, value), at, why)
        return True

    def take(self, string_id: str, mid: int, at: object, why: str = "") -> None:
        other = self.owner.get(mid)
        if other is None:  # nearly always: the id is new
            self.owner[mid] = string_id
        elif other != string_id:
            span = getattr(at, "span", None)
            if span is not None and not same_text(self.resources, other, string_id):
                self.ids.diagnostics.append(
                    diag(
                        E_DUP_MESSAGE_ID,
                        span,
                        f"string '{string_id}' would get message id 0x{mid:08X}, which string "
                        f"'{other}' already has{why}; a message table holds one text per id",
                        hint="give one of them another id in <messageTable>, or the same text",
                    )
                )
        self.ids.strings[string_id] = mid

    def builtin(
        self, kind: str, table: Mapping[str, wm.WinItem], name: str, tag: int, value: int
    ) -> None:
        """The first provider to list a predefined item gives it its id; later ones share it."""
        key = (kind, name)
        item = table.get(name.partition(":")[2])
        if key in self.ids.builtins or item is None or item.text is None:
            return
        mid = self.make(tag, value)
        self.ids.builtins[key] = mid
        self.winmeta_text(f"{kind}.{name.partition(':')[2]}", mid, item.text)

    def winmeta_text(self, string_id: str, mid: int, text: str) -> None:
        """A predefined item's text: the manifest's string of winmeta's id, else winmeta's."""
        if string_id in self.primary and string_id not in self.ids.strings:
            self.take(string_id, mid, self.primary[string_id])
        else:
            self.ids.winmeta.setdefault(mid, text)

    def provider(self, p: Provider) -> None:
        self.pi = p.index
        items = provider_items(p)
        give = self.give
        counter = 1
        if give(p.message, 0x9, counter, p):
            counter += 1
        for c in items.channels:
            if c.message is not None:
                if give(c.message, 0x9, counter, c):
                    counter += 1
            elif is_winmeta_channel(c) and c.name not in self.ids.winmeta_channels:
                mid = self.make(0x9, counter)
                self.ids.winmeta_channels[c.name] = mid
                self.winmeta_text(f"channel.{c.name}", mid, c.name)
                counter += 1
        builtin = self.builtin
        for lv in items.levels:
            if lv.builtin:
                builtin("level", wm.LEVELS, lv.name, 0x5, lv.value)
            else:
                give(lv.message, 0x5, lv.value, lv)
        for t in items.tasks:
            if t.builtin:
                builtin("task", wm.TASKS, t.name, 0x7, t.value)
            else:
                give(t.message, 0x7, t.value, t)
        for o in items.opcodes:
            value = ((o.task_value & 0xFF) << 16) | (o.value & 0xFFFF)
            if o.builtin:
                builtin("opcode", wm.OPCODES, o.name, 0x3, value)
            else:
                why = (
                    f" (an opcode's id keeps the low 8 bits of its task's value, "
                    f"{o.task_value}: 0x{o.task_value & 0xFF:02X})"
                    if o.task_value > 0xFF
                    else ""
                )
                give(o.message, 0x3, value, o, why)
        for k in items.keywords:
            if k.builtin:
                builtin("keyword", wm.KEYWORDS, k.name, 0x1, keyword_value(k.mask))
            else:
                give(k.message, 0x1, keyword_value(k.mask), k)
        for e in p.events:
            versioned = ((e.version & 0xFF) << 16) | (e.value & 0xFFFF)
            if not is_global_channel(e.channel):
                give(e.message, 0xB, versioned, e)
            elif self.pi > 15 or self.classic_free(e.value & 0xFFFF, e.message):
                give(e.message, 0x0, e.value & 0xFFFF, e)
            else:  # another version of the event took the classic id: keep the version
                give(e.message, 0x0, versioned, e)
        value_n = bit_n = 1
        for m in p.maps:
            for item in m.items:
                if m.kind == "bit":
                    if give(item.message, 0xF, bit_n, item):
                        bit_n += 1
                elif give(item.message, 0xD, value_n, item):
                    value_n += 1
        for f in p.filters:
            give(f.message, 0x5, (0x80 << 16) | ((f.version & 0xFF) << 8) | (f.value & 0xFF), f)


def assign_message_ids(manifest: Manifest) -> MessageIds:
    """Assign every referenced string its message id, as mc does (see the module docstring).

    mc gives automatic ids to the first 16 providers only.  etwmc goes on past them
    with ids ``0xE0000000 + n`` (n counting from 1 over the manifest), a range the
    formula never produces, and warns (ETW650).
    """
    ids = _Draft()
    a = _Assigner(ids, manifest.resources)
    for m in manifest.messages:
        if m.message is not None and m.message not in ids.strings:
            a.take(m.message, m.value & 0xFFFFFFFF, m)
    for p in manifest.providers:
        if p.index > 15 and _needs_auto_ids(p, ids):
            ids.diagnostics.append(
                diag(
                    W_TOO_MANY_PROVIDERS,
                    p.span,
                    f"provider '{p.name}' is number {p.index + 1} in the manifest; mc gives "
                    "automatic message ids to the first 16 providers only, so etwmc gives its "
                    "strings ids from 0xE0000001 on",
                    hint="split the manifest, or give its strings explicit ids in <messageTable>",
                )
            )
        a.provider(p)
    return ids.freeze()


def _needs_auto_ids(p: Provider, ids: _Draft) -> bool:
    """Whether a provider has a string that :meth:`_Assigner.provider` would give a new
    id: one with an explicit id (``<messageTable>``), or one an earlier provider already
    numbered, needs none; that is mc's remedy ("requires manual message ids")."""
    items = provider_items(p)
    listed: tuple[tuple[str, Mapping[str, wm.WinItem], Level | Task | Opcode | Keyword], ...] = (
        *(("level", wm.LEVELS, x) for x in items.levels),
        *(("task", wm.TASKS, x) for x in items.tasks),
        *(("opcode", wm.OPCODES, x) for x in items.opcodes),
        *(("keyword", wm.KEYWORDS, x) for x in items.keywords),
    )
    numbered = ids.strings

    def new(string_id: str | None) -> bool:
        return string_id is not None and string_id not in numbered

    return (
        new(p.message)
        or any(
            x.builtin and (kind, x.name) not in ids.builtins and _has_text(table, x.name)
            for kind, table, x in listed
        )
        or any(
            new(c.message)
            or (c.message is None and is_winmeta_channel(c) and c.name not in ids.winmeta_channels)
            for c in items.channels
        )
        or any(new(x.message) and not x.builtin for x in items.levels)
        or any(new(x.message) and not x.builtin for x in items.tasks)
        or any(new(x.message) and not x.builtin for x in items.opcodes)
        or any(new(x.message) and not x.builtin for x in items.keywords)
        or any(new(e.message) for e in p.events)
        or any(new(i.message) for m in p.maps for i in m.items)
        or any(new(f.message) for f in p.filters)
    )


def same_text(resources: Sequence[Resources], a: str, b: str) -> bool:
    """Whether strings ``a`` and ``b`` have one text in every culture: then they can
    share a message id, since the message table holds that text once for both."""
    for res in resources:
        sa, sb = res.strings.get(a), res.strings.get(b)
        if (sa.value if sa else None) != (sb.value if sb else None):
            return False
    return True


def _has_text(table: Mapping[str, wm.WinItem], name: str) -> bool:
    item = table.get(name.partition(":")[2])
    return item is not None and item.text is not None


CUSTOMER_BIT = 0x20000000  # winerror.h's customer flag, which mc's -c sets


class _CustomerIds(MessageIds):
    """Message ids with the customer bit set in each (``NO_MESSAGE`` stays as it is)."""

    __slots__ = ()

    def _of(self, string_id: str | None) -> int:
        return _with_bit(MessageIds._of(self, string_id))

    def channel_id(self, c: Channel) -> int:
        return _with_bit(MessageIds.channel_id(self, c))

    def level_id(self, lv: Level) -> int:
        return _with_bit(MessageIds.level_id(self, lv))

    def task_id(self, t: Task) -> int:
        return _with_bit(MessageIds.task_id(self, t))

    def opcode_id(self, o: Opcode) -> int:
        return _with_bit(MessageIds.opcode_id(self, o))

    def keyword_id(self, k: Keyword) -> int:
        return _with_bit(MessageIds.keyword_id(self, k))


def _with_bit(mid: int) -> int:
    return mid if mid == NO_MESSAGE else mid | CUSTOMER_BIT


def with_customer_bit(manifest: Manifest, ids: MessageIds) -> MessageIds:
    """``ids`` with the customer bit set in every id (mc's ``-c``), for the metadata,
    the message tables and the header alike.  Two strings whose ids differed only in
    that bit would now share one: each such pair with two texts is an error (ETW651)."""
    diagnostics = list(ids.diagnostics)
    owner: dict[int, str] = {}
    strings = manifest.primary.strings if manifest.primary else {}
    for sid, mid in sorted(ids.strings.items(), key=lambda kv: (kv[1], kv[0])):
        new = _with_bit(mid)
        other = owner.setdefault(new, sid)
        if other != sid and not same_text(manifest.resources, other, sid):
            diagnostics.append(
                diag(
                    E_DUP_MESSAGE_ID,
                    strings[sid].span if sid in strings else Span(manifest.path),
                    f"with the customer bit set, strings '{other}' (0x{ids.strings[other]:08X}) "
                    f"and '{sid}' (0x{mid:08X}) would both get message id 0x{new:08X}",
                    hint="build without -c, or give the strings explicit ids in <messageTable>",
                )
            )
    return _CustomerIds(
        strings=MappingProxyType({s: _with_bit(m) for s, m in ids.strings.items()}),
        winmeta=MappingProxyType({_with_bit(m): t for m, t in ids.winmeta.items()}),
        winmeta_channels=MappingProxyType(
            {c: _with_bit(m) for c, m in ids.winmeta_channels.items()}
        ),
        builtins=MappingProxyType({k: _with_bit(m) for k, m in ids.builtins.items()}),
        diagnostics=diagnostics,
    )


# --------------------------------------------------------------------------- once per model


class _PerModel:
    """The message ids of the last few models asked about, by object identity.

    Why a memo: the ids are a pure function of the frozen model, and every stage that
    needs them (the rules ETW650/651 and N-unused-strings, the WEVT writer, the message
    tables, the output checks, the C header) receives only the model.  The model cannot
    carry them: it is frozen and slotted, so it takes no extra attribute and no weak
    reference.  So:

    * the key is the model object itself (``is``), never its value: value equality
      would compare whole models, and mappings inside them are unhashable;
    * each entry keeps its model alive, so an ``id()`` cannot be reused while its entry
      exists, and at most :attr:`size` models are kept (the oldest is dropped);
    * assignment runs under a lock, so each model gets exactly one object even when
      threads compile at once.
    Nothing but speed and object identity can tell a hit from a miss: the result is
    read-only (:class:`MessageIds`).
    """

    __slots__ = ("_entries", "_lock", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self._entries: OrderedDict[int, tuple[Manifest, MessageIds]] = OrderedDict()
        self._lock = threading.Lock()

    def __call__(self, manifest: Manifest) -> MessageIds:
        key = id(manifest)
        with self._lock:
            hit = self._entries.get(key)
            if hit is not None and hit[0] is manifest:
                self._entries.move_to_end(key)
                return hit[1]
            ids = assign_message_ids(manifest)
            self._entries[key] = (manifest, ids)
            while len(self._entries) > self.size:
                self._entries.popitem(last=False)
            return ids


_PER_MODEL = _PerModel(size=4)


def message_ids(manifest: Manifest) -> MessageIds:
    """:func:`assign_message_ids` of ``manifest``, computed once per model object: the one
    :class:`MessageIds` that every rule and generator of that model reads."""
    return _PER_MODEL(manifest)
