"""Read a WEVT_TEMPLATE blob (CRIM 3.1 or 5.1) back into etwmc's model.

:func:`read_wevt` parses the blob (:mod:`etwmc.wevt.reader_raw`) and rebuilds a
:class:`~etwmc.model.Manifest` whose references are resolved objects, like the one
:mod:`etwmc.lower` builds from a manifest.  What the blob does not store is
reconstructed by rule, so that decompiling and compiling again gives the same blob:

- Message ids become string ids (``level.Name``, ``event.5.0`` ...).  Every id read is
  listed in ``Manifest.messages`` (a string with a fixed id); the texts come from the
  message tables given (a CR LF in a text reads as the line feed mc wrote it for),
  else there are no resources.
- Value/bit map items are ordered by their message-id counter, which mc assigns in
  manifest order before it sorts the items by value.
- Channel types are not stored: imported winmeta channels take winmeta's type, own
  channels read as ``Operational``.  A winmeta channel that is in CHAN but whose events
  carry no channel keyword bit was referenced without being listed (``index=None``).
- Templates (:mod:`etwmc.wevt.reader_template`): ``tid`` is not stored, so they are
  named ``T0``, ``T1`` ... in order.
- ``count="0"``/``length="0"`` read as no count/length and a zero task ``eventGUID``
  as none: mc stores them the same way.
- A v3 blob stores no provider name: it reads as ``Provider_<guid>``.
- Prefixed names (``ns1:Level``) keep their prefix; the namespace URI is not stored,
  so they resolve to ``urn:etwmc:prefix:<prefix>``.
- UserData formatting is not stored but the template id hashes it: the usual layouts
  (one child per line, with or without spaces around ``%n``) are tried against the
  stored id and the matching one is kept.
- Not stored at all, so absent from the model: symbols (a provider's is derived from
  its name), file names, ``notLogged``, channel isolation/access/enabled, traits
  ``includeName``.

What the rebuilt model cannot give back is reported by :func:`read_wevt_with_losses`
(:mod:`etwmc.wevt.fidelity`): descriptor values of an event that no entry gives (e.g.
an opcode value with no OPCO entry in some Microsoft-built blobs), templates whose id
or BinXML compiling would not reproduce.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Literal, Protocol, TypeVar

from .. import winmeta as wm
from ..diagnostics import Diagnostic, Span
from ..model import (
    Channel,
    Event,
    Filter,
    Keyword,
    Level,
    Manifest,
    Map,
    MapItem,
    Message,
    Opcode,
    PatternMap,
    PatternMapItem,
    Provider,
    Resources,
    String,
    Task,
    Template,
    Traits,
)
from ..msgformat import source_text
from ..record import Record
from .crim import EVTA_ATTRIBUTE, EVTA_NAME, NO_MESSAGE
from .fidelity import event_losses, legacy_note, message_losses, template_losses
from .reader_binxml import WevtError
from .reader_raw import (
    RawBlob,
    RawEvent,
    RawFilter,
    RawKeyword,
    RawLevel,
    RawPatternMap,
    RawProvider,
    parse_blob,
)
from .reader_template import prefix_uri, read_template

__all__ = ["WevtError", "read_wevt", "read_wevt_with_losses", "parse_blob", "prefix_uri"]


def _qname(name: str) -> tuple[str, str]:
    prefix, sep, local = name.rpartition(":")
    if not sep:
        return (wm.EVENTS_NS, name)
    if prefix == "win":
        return (wm.WIN_NS, local)
    return (prefix_uri(prefix), local)


def read_wevt(
    data: bytes,
    *,
    messages: Sequence[Mapping[int, str]] = (),
    cultures: Sequence[str] = (),
    path: str = "<blob>",
) -> Manifest:
    """Parse a WEVT_TEMPLATE blob into a :class:`Manifest`.

    ``messages`` are message tables (id -> text, as read by
    :func:`etwmc.wevt.msgtable.read_message_table`), one per culture; ``cultures`` names
    them (default ``en-US`` for the first, ``x-2``, ``x-3``... for the others).
    Raises :class:`WevtError` when the blob is malformed.
    """
    return read_wevt_with_losses(data, messages=messages, cultures=cultures, path=path)[0]


def read_wevt_with_losses(
    data: bytes,
    *,
    messages: Sequence[Mapping[int, str]] = (),
    cultures: Sequence[str] = (),
    path: str = "<blob>",
) -> tuple[Manifest, list[Diagnostic]]:
    """:func:`read_wevt`, and diagnostics (codes ETW8xx) for what compiling the model
    would not write back as the blob has it."""
    raw = parse_blob(data)
    builder = _Builder(raw, path)
    manifest = builder.build(messages, cultures)
    losses = builder.losses
    if builder.legacy_ids and not builder.modern_ids:
        losses.append(legacy_note(builder.span))
    return manifest, losses


class _Builder:
    def __init__(self, raw: RawBlob, path: str) -> None:
        self.raw = raw
        self.span = Span(path)
        self.ids: dict[int, str] = {}  # message id -> string id
        self.used: set[str] = set()
        self.next_suffix: dict[str, int] = {}  # keeps naming linear for repeated names
        self.losses: list[Diagnostic] = []
        self.legacy_ids = self.modern_ids = False  # which kind of template id matched

    def sid(self, message_id: int, wanted: str) -> str | None:
        """The string id for a message id, named after its first user."""
        if message_id == NO_MESSAGE:
            return None
        if message_id in self.ids:
            return self.ids[message_id]
        sid, n = wanted, self.next_suffix.get(wanted, 2)
        while sid in self.used:
            sid, n = f"{wanted}.{n}", n + 1
        self.next_suffix[wanted] = n
        self.used.add(sid)
        self.ids[message_id] = sid
        return sid

    def build(self, tables: Sequence[Mapping[int, str]], cultures: Sequence[str]) -> Manifest:
        providers = tuple(self.provider(p, i) for i, p in enumerate(self.raw.providers))
        messages = tuple(
            Message(value=mid, message=sid, span=self.span) for mid, sid in sorted(self.ids.items())
        )
        resources = []
        for i, table in enumerate(tables):
            culture = cultures[i] if i < len(cultures) else ("en-US" if i == 0 else f"x-{i + 1}")
            strings = {
                sid: String(id=sid, value=source_text(table[mid]), span=self.span)
                for mid, sid in sorted(self.ids.items())
                if mid in table
            }
            used = {mid: table[mid] for mid in self.ids if mid in table}
            self.losses += message_losses(culture, used, self.span)
            resources.append(
                Resources(culture=culture, strings=MappingProxyType(strings), span=self.span)
            )
        return Manifest(
            path=self.span.file, providers=providers, messages=messages, resources=tuple(resources)
        )

    # -- provider ------------------------------------------------------------------

    def provider(self, p: RawProvider, index: int) -> Provider:
        """The provider's model.  String ids are named at their first use, so the order of
        these steps fixes the names a decompiled manifest shows."""
        name = p.name if p.name is not None else f"Provider_{str(p.guid).upper()}"
        symbol = _c_symbol(name)
        channels = self.channels(p)
        levels = tuple(self.level(r) for r in p.levels)
        keywords = tuple(self.keyword(r) for r in p.keywords)
        tasks, by_task, opcodes, by_op = self.tasks_opcodes(p)
        maps = tuple(self.map(m.name, m.is_bitmap, m.items) for m in p.maps)
        templates = self.templates(p, name, _by_offset(p.maps, maps))
        by_tmpl = _by_offset(p.templates, templates)
        refs = _EventRefs(
            channels=_by_offset(p.channels, channels),
            levels=_by_offset(p.levels, levels),
            tasks=by_task,
            opcodes=by_op,
            keywords=_by_offset(p.keywords, keywords),
            templates=by_tmpl,
        )
        events = self.events(p, name, refs)
        filters = tuple(self.filter(f, by_tmpl) for f in p.filters)
        return Provider(
            name=name,
            guid=p.guid,
            symbol=symbol,
            message=self.sid(p.message_id, f"provider.{symbol}"),
            control_guid=p.control_guid,
            traits=Traits(group_guid=p.group_guid) if p.group_guid else None,
            channels=channels,
            levels=levels,
            tasks=tasks,
            opcodes=opcodes,
            keywords=keywords,
            maps=maps,
            pattern_maps=tuple(_pattern_map(q, self.span) for q in p.pattern_maps),
            templates=templates,
            events=events,
            filters=filters,
            index=index,
            span=self.span,
        )

    def level(self, r: RawLevel) -> Level:
        return Level(
            name=r.name,
            qname=_qname(r.name),
            value=r.value,
            message=self.sid(r.message_id, _string_name("level", r.name)),
            builtin=wm.predefined("level", r.name) is not None,
            span=self.span,
        )

    def keyword(self, r: RawKeyword) -> Keyword:
        return Keyword(
            name=r.name,
            qname=_qname(r.name),
            mask=r.mask,
            message=self.sid(r.message_id, _string_name("keyword", r.name)),
            builtin=wm.predefined("keyword", r.name) is not None,
            span=self.span,
        )

    def templates(
        self, p: RawProvider, provider: str, by_map: Mapping[int, Map]
    ) -> tuple[Template, ...]:
        v3 = self.raw.major == 3
        templates = tuple(
            read_template(t, i, by_map, span=self.span, v3=v3) for i, t in enumerate(p.templates)
        )
        for raw, t in zip(p.templates, templates, strict=True):
            found, legacy = template_losses(raw, t, provider, v3=v3, span=self.span)
            self.losses += found
            if not found:
                self.legacy_ids |= legacy
                self.modern_ids |= not legacy
        return templates

    def events(self, p: RawProvider, provider: str, refs: _EventRefs) -> tuple[Event, ...]:
        attrs = _event_attributes(p.event_attributes)
        events = tuple(
            self.event(e, attrs.get((e.descriptor.id, e.descriptor.version)), refs)
            for e in p.events
        )
        self.losses += event_losses(list(zip(p.events, events, strict=True)), provider, self.span)
        return events

    def event(
        self, e: RawEvent, attrs: tuple[str | None, list[str]] | None, refs: _EventRefs
    ) -> Event:
        name, attributes = attrs or (None, [])
        at = e.offset
        d = e.descriptor
        return Event(
            value=d.id,
            version=d.version,
            name=name,
            attributes=";".join(attributes) if attributes else None,
            message=self.sid(e.message_id, f"event.{d.id}.{d.version}"),
            level=_ref(refs.levels, e.level_offset, "level", at),
            task=_ref(refs.tasks, e.task_offset, "task", at),
            opcode=_ref(refs.opcodes, e.opcode_offset, "opcode", at),
            keywords=tuple(_need(refs.keywords, o, "keyword", at) for o in e.keyword_offsets),
            channel=_ref(refs.channels, e.channel_offset, "channel", at),
            template=_ref(refs.templates, e.template_offset, "template", at),
            span=self.span,
        )

    def filter(self, f: RawFilter, by_tmpl: Mapping[int, Template]) -> Filter:
        return Filter(
            name=f.name,
            qname=_qname(f.name),
            value=f.value,
            version=f.version,
            message=self.sid(f.message_id, f"filter.{_ident(f.name)}"),
            template=_ref(by_tmpl, f.template_offset, "template", 0),
            span=self.span,
        )

    def channels(self, p: RawProvider) -> tuple[Channel, ...]:
        # A winmeta channel whose events lack its keyword bit was used without a listing.
        unlisted = set()
        users_of: dict[int, list[RawEvent]] = {}
        for e in p.events:
            users_of.setdefault(e.channel_offset, []).append(e)
        for k, c in enumerate(p.channels):
            users = users_of.get(c.offset, [])
            if c.flags & 1 and c.name in wm.CHANNELS and users:
                if all(not (e.descriptor.keyword >> (63 - k)) & 1 for e in users):
                    unlisted.add(k)
        out = []
        for k, c in enumerate(p.channels):
            imported = bool(c.flags & 1)
            win = wm.CHANNELS.get(c.name) if imported else None
            out.append(
                Channel(
                    name=c.name,
                    chid=None,
                    type=win.type if win else "Operational",
                    value=c.value,
                    message=self.sid(c.message_id, f"channel.{_ident(c.name)}"),
                    isolation=win.isolation if win else None,
                    imported=imported and k not in unlisted,  # as lowering models them
                    index=None if k in unlisted else k,
                    builtin=win is not None and k in unlisted,
                    span=self.span,
                )
            )
        return tuple(out)

    def tasks_opcodes(
        self, p: RawProvider
    ) -> tuple[tuple[Task, ...], dict[int, Task], tuple[Opcode, ...], dict[int, Opcode]]:
        task_names = {t.value: t.name for t in p.tasks}
        ops: dict[int, Opcode] = {}
        for o in p.opcodes:
            owner = task_names.get(o.task) if o.task else None
            sid_name = (
                f"opcode.{_ident(owner)}.{_ident(o.name)}"
                if owner
                else _string_name("opcode", o.name)
            )
            ops[o.offset] = Opcode(
                name=o.name,
                qname=_qname(o.name),
                value=o.value,
                message=self.sid(o.message_id, sid_name),
                task=owner,
                task_value=o.task,
                builtin=wm.predefined("opcode", o.name) is not None and not o.task,
                span=self.span,
            )
        tasks: list[Task] = []
        by_task: dict[int, Task] = {}
        scoped_by_task: dict[int, list[Opcode]] = {}
        for o in p.opcodes:
            if o.task:
                scoped_by_task.setdefault(o.task, []).append(ops[o.offset])
        for t in p.tasks:
            scoped = tuple(scoped_by_task.get(t.value, ()))
            task = Task(
                name=t.name,
                qname=_qname(t.name),
                value=t.value,
                message=self.sid(t.message_id, _string_name("task", t.name)),
                event_guid=t.event_guid if t.event_guid.int else None,
                opcodes=scoped,
                builtin=wm.predefined("task", t.name) is not None,
                span=self.span,
            )
            tasks.append(task)
            by_task[t.offset] = task
        glob = tuple(ops[o.offset] for o in p.opcodes if not o.task or o.task not in task_names)
        return tuple(tasks), by_task, glob, ops

    def map(self, name: str, is_bitmap: bool, items: tuple[tuple[int, int], ...]) -> Map:
        kind: Literal["value", "bit"] = "bit" if is_bitmap else "value"
        # mc numbers the items' messages in manifest order, then sorts by value.
        ordered = sorted(items, key=lambda vm: (vm[1] == NO_MESSAGE, vm[1] & 0xFFFFFF))
        return Map(
            kind=kind,
            name=name,
            symbol=None,
            span=self.span,
            items=tuple(
                MapItem(value=v, message=self.sid(m, f"map.{_ident(name)}.{v}"), span=self.span)
                for v, m in ordered
            ),
        )


_T = TypeVar("_T")


class _EventRefs(Record, kw_only=True):
    """The entries events refer to, each by its offset in the blob."""

    channels: Mapping[int, Channel]
    levels: Mapping[int, Level]
    tasks: Mapping[int, Task]
    opcodes: Mapping[int, Opcode]
    keywords: Mapping[int, Keyword]
    templates: Mapping[int, Template]


class _Raw(Protocol):
    @property
    def offset(self) -> int: ...


def _by_offset(raws: Iterable[_Raw], models: Sequence[_T]) -> dict[int, _T]:
    """Model objects by the offset of the raw record each was read from."""
    return {r.offset: m for r, m in zip(raws, models, strict=True)}


def _event_attributes(
    rows: Iterable[tuple[int, int, int, str]],
) -> dict[tuple[int, int], tuple[str | None, list[str]]]:
    """(event id, version) -> (name, attribute strings) from the EVTA rows."""
    out: dict[tuple[int, int], tuple[str | None, list[str]]] = {}
    for kind, version, eid, text in rows:
        name, attrs = out.setdefault((eid, version), (None, []))
        if kind == EVTA_NAME:
            out[(eid, version)] = (text, attrs)
        elif kind == EVTA_ATTRIBUTE:
            attrs.append(text)
    return out


def _pattern_map(q: RawPatternMap, span: Span) -> PatternMap:
    return PatternMap(
        name=q.name,
        format=q.format,
        span=span,
        items=tuple(PatternMapItem(name=a, value=b, span=span) for a, b in q.items),
    )


def _ref(table: Mapping[int, _T], offset: int, what: str, at: int) -> _T | None:
    if not offset:
        return None
    return _need(table, offset, what, at)


def _need(table: Mapping[int, _T], offset: int, what: str, at: int) -> _T:
    obj = table.get(offset)
    if obj is None:
        raise WevtError(f"entry at 0x{at:x} points at 0x{offset:x}, which is no {what} entry")
    return obj


def _string_name(kind: str, name: str) -> str:
    """The string id a decompiled item's message gets: winmeta's own id for a predefined
    item (``level.Informational``), which is how a manifest overrides its text."""
    if wm.predefined(kind, name) is not None:
        return f"{kind}.{name[4:]}"
    return f"{kind}.{_ident(name)}"


def _ident(name: str | None) -> str:
    """A string-id fragment: letters, digits, '.', '_' and '-' kept, the rest as '_'."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name or "")


def _c_symbol(name: str) -> str:
    """A C identifier for a provider symbol (the blob stores none)."""
    sym = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    return sym if sym and not sym[0].isdigit() else "_" + sym
