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
- Template ids (``tid``) are not stored: templates are named ``T0``, ``T1`` ... in order.
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

from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Literal, TypeVar
from urllib.parse import quote

from .. import winmeta as wm
from ..diagnostics import Diagnostic, Span
from ..model import (
    BINARY_LENGTH_FIELD,
    Channel,
    Event,
    Extent,
    Field,
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
    Struct,
    Task,
    Template,
    Traits,
    XmlNode,
)
from ..msgformat import source_text
from .crim import (
    EVTA_ATTRIBUTE,
    EVTA_NAME,
    NO_MESSAGE,
    PROP_FIXED_COUNT,
    PROP_FIXED_LENGTH,
    PROP_VAR_COUNT,
    PROP_VAR_LENGTH,
)
from .fidelity import event_losses, legacy_note, message_losses, template_losses
from .reader_binxml import Element, Subst, Text, WevtError
from .reader_raw import (
    RawBlob,
    RawEvent,
    RawProperty,
    RawProvider,
    RawTemplate,
    parse_blob,
)

__all__ = ["WevtError", "read_wevt", "read_wevt_with_losses", "parse_blob", "prefix_uri"]

PREFIX_URI = "urn:etwmc:prefix:"


def prefix_uri(prefix: str) -> str:
    """The namespace URI a stored ``prefix:name`` resolves to (the blob keeps no URI).

    A prefix may hold characters a URI cannot: they are percent-encoded (UTF-8)."""
    return PREFIX_URI + quote(prefix, safe="")


def _qname(name: str) -> tuple[str, str]:
    prefix, sep, local = name.rpartition(":")
    if not sep:
        return (wm.EVENTS_NS, name)
    if prefix == "win":
        return (wm.WIN_NS, local)
    return (prefix_uri(prefix), local)


def _builtin(name: str, table: Mapping[str, wm.WinItem]) -> bool:
    return name.startswith("win:") and name[4:] in table


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
        name = p.name if p.name is not None else f"Provider_{str(p.guid).upper()}"
        pname = _c_symbol(name)
        span = self.span
        channels = self.channels(p)
        by_chan = {c.offset: ch for c, ch in zip(p.channels, channels, strict=True)}
        levels = tuple(
            Level(
                name=lv.name,
                qname=_qname(lv.name),
                value=lv.value,
                message=self.sid(lv.message_id, _string_name("level", lv.name, wm.LEVELS)),
                builtin=_builtin(lv.name, wm.LEVELS),
                span=span,
            )
            for lv in p.levels
        )
        by_level = {r.offset: m for r, m in zip(p.levels, levels, strict=True)}
        keywords = tuple(
            Keyword(
                name=k.name,
                qname=_qname(k.name),
                mask=k.mask,
                message=self.sid(k.message_id, _string_name("keyword", k.name, wm.KEYWORDS)),
                builtin=_builtin(k.name, wm.KEYWORDS),
                span=span,
            )
            for k in p.keywords
        )
        by_kw = {r.offset: m for r, m in zip(p.keywords, keywords, strict=True)}
        tasks, by_task, opcodes, by_op = self.tasks_opcodes(p)
        maps = tuple(self.map(m.name, m.is_bitmap, m.items) for m in p.maps)
        by_map = {r.offset: m for r, m in zip(p.maps, maps, strict=True)}
        templates = tuple(self.template(t, i, by_map) for i, t in enumerate(p.templates))
        for raw_t, t in zip(p.templates, templates, strict=True):
            found, legacy = template_losses(raw_t, t, name, v3=self.raw.major == 3, span=span)
            self.losses += found
            if not found:
                self.legacy_ids |= legacy
                self.modern_ids |= not legacy
        by_tmpl = {r.offset: m for r, m in zip(p.templates, templates, strict=True)}
        attrs: dict[tuple[int, int], tuple[str | None, list[str]]] = {}
        for kind, version, eid, text in p.event_attributes:
            nm, lst = attrs.setdefault((eid, version), (None, []))
            if kind == EVTA_NAME:
                attrs[(eid, version)] = (text, lst)
            elif kind == EVTA_ATTRIBUTE:
                lst.append(text)
        events = []
        pairs: list[tuple[RawEvent, Event]] = []
        for e in p.events:
            ev_name, ev_attrs = attrs.get((e.id, e.version), (None, []))
            events.append(
                Event(
                    value=e.id,
                    version=e.version,
                    name=ev_name,
                    attributes=";".join(ev_attrs) if ev_attrs else None,
                    message=self.sid(e.message_id, f"event.{e.id}.{e.version}"),
                    level=_ref(by_level, e.level_offset, "level", e.offset),
                    task=_ref(by_task, e.task_offset, "task", e.offset),
                    opcode=_ref(by_op, e.opcode_offset, "opcode", e.offset),
                    keywords=tuple(_need(by_kw, o, "keyword", e.offset) for o in e.keyword_offsets),
                    channel=_ref(by_chan, e.channel_offset, "channel", e.offset),
                    template=_ref(by_tmpl, e.template_offset, "template", e.offset),
                    span=span,
                )
            )
            pairs.append((e, events[-1]))
        self.losses += event_losses(pairs, name, span)
        filters = tuple(
            Filter(
                name=f.name,
                qname=_qname(f.name),
                value=f.value,
                version=f.version,
                message=self.sid(f.message_id, f"filter.{_ident(f.name)}"),
                template=_ref(by_tmpl, f.template_offset, "template", 0),
                span=span,
            )
            for f in p.filters
        )
        pmaps = tuple(
            PatternMap(
                name=q.name,
                format=q.format,
                span=span,
                items=tuple(PatternMapItem(name=a, value=b, span=span) for a, b in q.items),
            )
            for q in p.pattern_maps
        )
        return Provider(
            name=name,
            guid=p.guid,
            symbol=pname,
            message=self.sid(p.message_id, f"provider.{pname}"),
            control_guid=p.control_guid,
            traits=Traits(group_guid=p.group_guid) if p.group_guid else None,
            channels=channels,
            levels=levels,
            tasks=tasks,
            opcodes=opcodes,
            keywords=keywords,
            maps=maps,
            pattern_maps=pmaps,
            templates=templates,
            events=tuple(events),
            filters=filters,
            index=index,
            span=span,
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
                if all(not (e.keyword >> (63 - k)) & 1 for e in users):
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
                else _string_name("opcode", o.name, wm.OPCODES)
            )
            ops[o.offset] = Opcode(
                name=o.name,
                qname=_qname(o.name),
                value=o.value,
                message=self.sid(o.message_id, sid_name),
                task=owner,
                task_value=o.task,
                builtin=_builtin(o.name, wm.OPCODES) and not o.task,
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
                message=self.sid(t.message_id, _string_name("task", t.name, wm.TASKS)),
                event_guid=t.event_guid if t.event_guid.int else None,
                opcodes=scoped,
                builtin=_builtin(t.name, wm.TASKS),
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

    # -- templates -----------------------------------------------------------------

    def template(self, t: RawTemplate, index: int, by_map: Mapping[int, Map]) -> Template:
        props = t.properties

        def extent(p: RawProperty, value: int, fixed: int, var: int) -> Extent:
            if p.flags & var:
                if value >= len(props):
                    raise WevtError(
                        f"TEMP at 0x{t.offset:x}: property '{p.name}' refers to property {value}"
                    )
                return props[value].name
            if p.flags & fixed:
                return value
            return None

        def field(p: RawProperty) -> Field:
            it = wm.IN_TYPES_BY_CODE.get(p.in_type)
            ot = wm.OUT_TYPES_BY_CODE.get(p.out_type)
            length = extent(p, p.length, PROP_FIXED_LENGTH, PROP_VAR_LENGTH)
            if length is None and p.in_type == 19 and p.length:
                length = p.length  # mc stores a SID's constant length without the flag
            mp = by_map.get(p.map_offset) if p.map_offset else None
            if p.map_offset and mp is None:
                raise WevtError(f"property '{p.name}' at TEMP 0x{t.offset:x} names no map")
            return Field(
                name=p.name,
                in_type=it,
                in_type_text=it.qname if it else str(p.in_type),
                out_type=ot,
                out_type_text=ot.qname if ot and p.out_type else None,
                map=mp.name if mp else None,
                length=length,
                count=extent(p, p.count, PROP_FIXED_COUNT, PROP_VAR_COUNT),
                span=self.span,
            )

        items: list[Field | Struct] = []
        # Struct members are disjoint runs after the top-level entries: overlapping runs
        # would let a small blob ask for a quadratic number of fields.
        member_total = sum(p.member_count for p in props[: t.param_count] if p.is_struct)
        if member_total > len(props) - t.param_count:
            raise WevtError(
                f"TEMP at 0x{t.offset:x}: structs claim {member_total} members, "
                f"but only {len(props) - t.param_count} member entries follow"
            )
        for p in props[: t.param_count]:
            if p.is_struct:
                members = props[p.first_member : p.first_member + p.member_count]
                if any(m.is_struct for m in members):
                    raise WevtError(f"TEMP at 0x{t.offset:x}: struct '{p.name}' nests a struct")
                items.append(
                    Struct(
                        name=p.name,
                        fields=tuple(field(m) for m in members),
                        length=extent(p, p.length, PROP_FIXED_LENGTH, PROP_VAR_LENGTH),
                        count=extent(p, p.count, PROP_FIXED_COUNT, PROP_VAR_COUNT),
                        span=self.span,
                    )
                )
            else:
                items.append(field(p))
        name = None
        user_data = None
        binary = None
        if t.flags & 2 and t.root is not None:
            user_data = _user_data(t, tuple(items), self.raw.major == 3)
        elif t.root is not None:
            for aname, value in t.root.attrs:
                if aname == "Name":
                    name = "".join(v.text for v in value if isinstance(v, Text))
            binary = _binary_item(t)
        return Template(
            tid=f"T{index}",
            name=name,
            items=tuple(items),
            user_data=user_data,
            binary=binary,
            span=self.span,
        )


def _binary_item(t: RawTemplate) -> str | None:
    """The name of the ``<binary>`` item an EventData template ends with, if it has one.

    Only the exact shape mc writes counts: the last two top-level entries are
    ``__binLength`` (UInt32, default outType, no flags) and a Binary field (default
    outType) whose variable length is ``__binLength``, and the last element of the
    BinXML is ``<Binary>`` holding only the Binary field's substitution."""
    n = t.param_count
    if t.root is None or n < 2 or not t.root.children:
        return None
    last = t.root.children[-1]
    size, data = t.properties[n - 2], t.properties[n - 1]
    shape = (
        isinstance(last, Element)
        and last.name == "Binary"
        and not last.attrs
        and last.children == [Subst(n - 1, 14)]  # 14: win:Binary
        and size.name == BINARY_LENGTH_FIELD
        and (size.flags, size.in_type, size.out_type) == (0, 8, 8)
        and (size.map_offset, size.count, size.length) == (0, 0, 0)
        and (data.flags, data.in_type, data.out_type) == (PROP_VAR_LENGTH, 14, 15)
        and (data.map_offset, data.count, data.length) == (0, 0, n - 2)
    )
    return data.name if shape else None


# Source formatting the template id may have hashed: (tail after the last child, padding
# around a leaf's text).  BinXML keeps neither, so each is tried against the stored id.
_LAYOUTS = ((True, ""), (False, ""), (True, " "), (False, " "))


def _xml(
    e: Element, scope: dict[str | None, str], layout: tuple[bool, str] = _LAYOUTS[0]
) -> XmlNode:
    """A BinXML element as an :class:`XmlNode`; xmlns attributes become declarations."""
    decls: dict[str | None, str] = {}
    plain: list[tuple[str, str]] = []
    for aname, value in e.attrs:
        atext = _text(value)
        if aname == "xmlns":
            decls[None] = atext
        elif aname.startswith("xmlns:"):
            decls[aname[6:]] = atext
        else:
            plain.append((aname, atext))
    inner = {**scope, **decls}

    def resolve(name: str, default: bool) -> tuple[tuple[str, str], str | None]:
        prefix, sep, local = name.rpartition(":")
        if sep:
            return (inner.get(prefix, prefix_uri(prefix)), local), prefix
        return ((inner.get(None, "") if default else ""), name), None

    tag, prefix = resolve(e.name, True)
    text: str | None = None
    children: list[XmlNode] = []
    pending: list[str] = []
    for c in e.children:
        if isinstance(c, Element):
            if children:
                children[-1] = _with_tail(children[-1], "".join(pending) or None)
            else:
                text = "".join(pending) or None
            pending = []
            children.append(_xml(c, inner, layout))
        else:
            pending.append(_text([c]))
    if children:
        last_tail = "".join(pending) or ("\n" if layout[0] else None)
        children[-1] = _with_tail(children[-1], last_tail)
        # One child per line, as manifests are usually written.
        text = text or "\n"
        children[:-1] = [c if c.tail else _with_tail(c, "\n") for c in children[:-1]]
    else:
        text = "".join(pending) or None
        if text is not None and layout[1]:
            text = layout[1] + text + layout[1]
    return XmlNode(
        tag=tag,
        prefix=prefix,
        attrs=tuple((resolve(n, False)[0], v) for n, v in plain),
        nsmap=tuple(sorted(decls.items(), key=lambda pu: (pu[0] or "", pu[1]))),
        text=text,
        children=tuple(children),
    )


def _user_data(t: RawTemplate, items: tuple[Field | Struct, ...], v3: bool) -> XmlNode:
    """The UserData tree in the source layout whose template id matches the stored one."""
    from .binxml import encode_template

    assert t.root is not None
    first = _xml(t.root, {})
    for layout in _LAYOUTS:
        node = _xml(t.root, {}, layout)
        probe = Template(tid="", items=items, user_data=node)
        for legacy in (False, True) if v3 else (False,):
            if encode_template(probe, legacy_ids=legacy)[0] == t.guid.bytes_le:
                return node
    return first


def _with_tail(node: XmlNode, tail: str | None) -> XmlNode:
    return XmlNode(
        tag=node.tag,
        prefix=node.prefix,
        attrs=node.attrs,
        nsmap=node.nsmap,
        text=node.text,
        children=node.children,
        tail=tail,
    )


def _text(parts: Sequence[Text | Subst | Element]) -> str:
    return "".join(
        p.text if isinstance(p, Text) else f"%{p.index + 1}" if isinstance(p, Subst) else ""
        for p in parts
    )


_T = TypeVar("_T")


def _ref(table: Mapping[int, _T], offset: int, what: str, at: int) -> _T | None:
    if not offset:
        return None
    return _need(table, offset, what, at)


def _need(table: Mapping[int, _T], offset: int, what: str, at: int) -> _T:
    obj = table.get(offset)
    if obj is None:
        raise WevtError(f"entry at 0x{at:x} points at 0x{offset:x}, which is no {what} entry")
    return obj


def _string_name(kind: str, name: str, table: Mapping[str, wm.WinItem]) -> str:
    """The string id a decompiled item's message gets: winmeta's own id for a predefined
    item (``level.Informational``), which is how a manifest overrides its text."""
    if _builtin(name, table):
        return f"{kind}.{name[4:]}"
    return f"{kind}.{_ident(name)}"


def _ident(name: str | None) -> str:
    """A string-id fragment: letters, digits, '.', '_' and '-' kept, the rest as '_'."""
    return "".join(c if c.isalnum() or c in "._-" else "_" for c in name or "")


def _c_symbol(name: str) -> str:
    """A C identifier for a provider symbol (the blob stores none)."""
    sym = "".join(c if c.isascii() and (c.isalnum() or c == "_") else "_" for c in name)
    return sym if sym and not sym[0].isdigit() else "_" + sym
