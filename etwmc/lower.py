"""Lowering: a parsed manifest tree → the frozen :mod:`etwmc.model`.

Rules applied here (each reported with its own code):

* QNames (``ns1:Level``, ``win:Error``) resolve through the element's in-scope namespace
  prefixes; an unprefixed name is in the element's default namespace.  The prefix
  ``win`` resolves to winmeta even when it is not declared (as mc does); any other
  undeclared prefix is the schema's to report, and names using it stay distinct.
* Event references resolve in mc's order: level → provider levels, then ``win:``;
  task → provider tasks, then ``win:None``; opcode → the event's task's opcodes, then
  provider opcodes, then ``win:``; keywords → provider keywords, then ``win:``;
  channel → the provider's ``<channels>`` list in declaration order, first whose chid
  *or* name equals the token, then a ``win:`` channel by name; template → tid.
* Channel values: given, or the next free value from 16 upward in declaration order;
  ``importChannel`` copies a ``win:`` channel or a channel another provider defines.
* ``$(string.ID)`` references: the id ends at the first ``)``; it must exist in the
  primary (first) culture; other cultures missing it get a warning.
* Duplicate string ids within one culture are errors (the model keeps the first).

Lowering never raises on bad input: values that cannot be read fall back to defaults
and are reported (``ETW200``) unless the schema already reported that line.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from types import MappingProxyType
from typing import TypeVar

from lxml import etree

from . import winmeta as wm
from .diagnostics import Code, Diagnostic, Severity, code, diag
from .model import (
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
    QName,
    Resources,
    String,
    Struct,
    Task,
    Template,
    Traits,
    XmlNode,
)
from .parse import Document

E_VALUE = code("ETW200", Severity.ERROR, "an attribute value cannot be read")
E_UNKNOWN_LEVEL = code("ETW401", Severity.ERROR, "an event references an undefined level")
E_UNKNOWN_TASK = code("ETW402", Severity.ERROR, "an event references an undefined task")
E_UNKNOWN_OPCODE = code("ETW403", Severity.ERROR, "an event references an undefined opcode")
E_UNKNOWN_KEYWORD = code("ETW404", Severity.ERROR, "an event references an undefined keyword")
E_UNKNOWN_CHANNEL = code("ETW405", Severity.ERROR, "an event references an undefined channel")
E_UNKNOWN_TEMPLATE = code(
    "ETW406", Severity.ERROR, "an event or filter references an undefined template"
)
E_UNKNOWN_STRING = code(
    "ETW408", Severity.ERROR, "a message references a string the primary culture does not define"
)
W_MISSING_STRING = code(
    "ETW409", Severity.WARNING, "a string of the primary culture is missing from another culture"
)
E_UNKNOWN_IMPORT = code("ETW410", Severity.ERROR, "importChannel names an unknown channel")
E_BAD_STRREF = code("ETW412", Severity.ERROR, "a message attribute is not a $(string.ID) reference")
E_DUP_STRING = code("ETW301", Severity.ERROR, "a string id is defined twice in one culture")
W_BINARY_NAME = code(
    "ETW512", Severity.WARNING, "a template's <binary> has no name; etwmc names its field 'binary'"
)

_E = wm.EVENTS_NS


def _local(elem: etree._Element) -> str:
    tag = elem.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def _children(elem: etree._Element, name: str | None = None) -> Iterable[etree._Element]:
    for c in elem:
        if isinstance(c.tag, str) and (name is None or _local(c) == name):
            yield c


def parse_int(text: str | None) -> int | None:
    """Decimal or 0x-hex, as the manifest's UIntN unions allow; None when unreadable."""
    if text is None:
        return None
    t = text.strip()
    try:
        if t[:2] in ("0x", "0X"):
            return int(t[2:], 16) if t[2:] else None
        digits = t[1:] if t[:1] == "+" else t  # xs:unsignedInt allows a leading plus
        if not digits.isascii() or not digits.isdigit():
            return None
        return int(digits, 10)
    except ValueError:
        return None


def parse_guid(text: str | None) -> uuid.UUID | None:
    if not text:
        return None
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        t = t[1:-1]
    if len(t) != 36:
        return None
    try:
        return uuid.UUID(t)
    except ValueError:
        return None


def parse_bool(text: str | None, default: bool = False) -> bool:
    if text is None:
        return default
    return text.strip() in ("true", "1")


def string_ref(text: str | None) -> str | None:
    """The string id of ``$(string.ID)``: everything up to the *last* ``)``, so ids with
    spaces and parentheses (``$(string.map_Names (S))``) resolve as mc resolves them."""
    if text is None:
        return None
    t = text.strip()
    for head in ("$(string.", "$(String.", "$(mc.", "$(MC.", "$(Mc.", "$(mC."):
        if t.startswith(head):
            end = t.rfind(")", len(head))
            return t[len(head) : end] if end >= 0 else None
    return None


class _Builtins:
    """Model nodes for the win: items, made once per process and shared (they are frozen)."""

    def __init__(self) -> None:
        self.levels = {
            k: Level(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True, message=None)
            for k, v in wm.LEVELS.items()
        }
        self.opcodes = {
            k: Opcode(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True)
            for k, v in wm.OPCODES.items()
        }
        self.tasks = {
            k: Task(name=v.name, qname=(wm.WIN_NS, k), value=v.value, builtin=True)
            for k, v in wm.TASKS.items()
        }
        self.keywords = {
            k: Keyword(name=v.name, qname=(wm.WIN_NS, k), mask=v.value, builtin=True)
            for k, v in wm.KEYWORDS.items()
        }
        self.channels = {
            k: Channel(
                name=v.name,
                chid=v.name,
                type=v.type,
                value=v.value,
                builtin=True,
                isolation=v.isolation,
            )
            for k, v in wm.CHANNELS.items()
        }


BUILTINS = _Builtins()


class _Lowerer:
    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.diags: list[Diagnostic] = []
        self.string_refs: list[tuple[str, etree._Element, str]] = []  # (id, elem, attr)
        # Channels defined by any provider of the manifest, for importChannel.
        self.defined_channels: dict[str, Channel] = {}

    # -- helpers ---------------------------------------------------------------

    def error(
        self,
        c: Code,
        elem: etree._Element,
        msg: str,
        *,
        attr: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.diags.append(diag(c, self.doc.span(elem, attr), msg, attr=attr, hint=hint))

    def qname(self, elem: etree._Element, text: str, attr: str) -> QName:
        text = text.strip()
        prefix, sep, local = text.rpartition(":")
        nsmap = elem.nsmap
        if not sep:
            return (nsmap.get(None, ""), text)
        uri = nsmap.get(prefix)
        if uri is None:
            if prefix == "win":
                return (wm.WIN_NS, local)
            if prefix == "xs":
                return (wm.XS_NS, local)
            # The schema reports undeclared prefixes (ETW128); keep the name distinct.
            return ("prefix:" + prefix, local)
        return (uri, local)

    def int_attr(self, elem: etree._Element, attr: str, default: int | None = None) -> int | None:
        text = elem.get(attr)
        if text is None:
            return default
        v = parse_int(text)
        if v is None:
            self.error(
                E_VALUE,
                elem,
                f'{attr}="{text}" on <{_local(elem)}> is not a number',
                attr=attr,
                hint="write a decimal number or 0x followed by hex digits",
            )
            return default
        return v

    def msg(self, elem: etree._Element, attr: str = "message") -> str | None:
        text = elem.get(attr)
        if text is None:
            return None
        sid = string_ref(text)
        if sid is None:
            self.error(
                E_BAD_STRREF,
                elem,
                f'{attr}="{text}" is not a string-table reference',
                attr=attr,
                hint="write $(string.ID) and define ID in the <stringTable>",
            )
            return None
        self.string_refs.append((sid, elem, attr))
        return sid

    def guid_attr(self, elem: etree._Element, attr: str) -> uuid.UUID | None:
        text = elem.get(attr)
        if text is None:
            return None
        g = parse_guid(text)
        if g is None:
            self.error(
                E_VALUE,
                elem,
                f'{attr}="{text}" is not a GUID',
                attr=attr,
                hint="write a GUID in braces: {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}",
            )
        return g

    # -- manifest --------------------------------------------------------------

    def lower(self) -> Manifest:
        doc = self.doc
        provider_elems = [p for ev in doc.events for p in _children(ev, "provider")]
        message_elems = [
            m
            for ev in doc.events
            for t in _children(ev, "messageTable")
            for m in _children(t, "message")
        ]
        # importChannel may name a channel of a provider declared later: collect the
        # defined channels of every provider first.
        for p in provider_elems:
            for section in _children(p, "channels"):
                self.channels(section, collect_only=True)
        providers = [self.provider(p, i) for i, p in enumerate(provider_elems)]
        messages = tuple(self.message(m) for m in message_elems)
        resources, fallback = self.localization()
        self.check_string_refs(resources)
        return Manifest(
            path=doc.path,
            providers=tuple(providers),
            messages=messages,
            resources=resources,
            fallback_culture=fallback,
        )

    def message(self, elem: etree._Element) -> Message:
        return Message(
            value=self.int_attr(elem, "value", 0) or 0,
            message=self.msg(elem),
            symbol=elem.get("symbol"),
            mid=elem.get("mid"),
            span=self.doc.span(elem),
        )

    def localization(self) -> tuple[tuple[Resources, ...], str | None]:
        loc = self.doc.localization
        if loc is None:
            return (), None
        out = []
        for res in _children(loc, "resources"):
            strings: dict[str, String] = {}
            for table in _children(res, "stringTable"):
                for s in _children(table, "string"):
                    sid = s.get("id")
                    if sid is None:
                        continue
                    if sid in strings:
                        first = strings[sid].span
                        self.error(
                            E_DUP_STRING,
                            s,
                            f"string id '{sid}' is defined twice in culture "
                            f"'{res.get('culture')}' (first at line {first.line})",
                            attr="id",
                            hint="give each string a unique id",
                        )
                        continue
                    strings[sid] = String(id=sid, value=s.get("value", ""), span=self.doc.span(s))
            out.append(
                Resources(
                    culture=res.get("culture", ""),
                    strings=MappingProxyType(strings),
                    span=self.doc.span(res),
                )
            )
        return tuple(out), loc.get("fallbackCulture")

    def check_string_refs(self, resources: tuple[Resources, ...]) -> None:
        if not self.string_refs:
            return
        if not resources:
            sid, elem, attr = self.string_refs[0]
            self.error(
                E_UNKNOWN_STRING,
                elem,
                f"message references string '{sid}' but the manifest has no <localization> "
                "string table",
                attr=attr,
                hint='add <localization><resources culture="en-US"><stringTable> with the strings',
            )
            return
        primary, others = resources[0], resources[1:]
        for sid, elem, attr in self.string_refs:
            if sid not in primary.strings:
                self.error(
                    E_UNKNOWN_STRING,
                    elem,
                    f"{attr} references string '{sid}', which culture '{primary.culture}' "
                    "does not define",
                    attr=attr,
                    hint=f'add <string id="{sid}" value="..."/> to its <stringTable>',
                )
        used = {sid for sid, _, _ in self.string_refs}
        for res in others:
            for sid in sorted(used):
                if sid in primary.strings and sid not in res.strings:
                    self.diags.append(
                        diag(
                            W_MISSING_STRING,
                            res.span,
                            f"culture '{res.culture}' has no string '{sid}', which "
                            f"'{primary.culture}' defines and the manifest uses",
                            hint=f"add <string id=\"{sid}\" .../> to culture '{res.culture}'",
                        )
                    )

    # -- provider --------------------------------------------------------------

    def provider(self, p: etree._Element, index: int) -> Provider:
        sections: dict[str, etree._Element] = {}
        for c in _children(p):
            sections.setdefault(_local(c), c)
        channels = self.channels(sections.get("channels"))
        levels = tuple(self.level(e) for e in _children_of(sections.get("levels"), "level"))
        tasks = tuple(self.task(e) for e in _children_of(sections.get("tasks"), "task"))
        opcodes = tuple(self.opcode(e) for e in _children_of(sections.get("opcodes"), "opcode"))
        keywords = tuple(self.keyword(e) for e in _children_of(sections.get("keywords"), "keyword"))
        maps = tuple(
            self.map(e)
            for e in _children_of(sections.get("maps"), None)
            if _local(e) in ("valueMap", "bitMap")
        )
        pmaps: list[PatternMap] = []
        nq = sections.get("namedQueries")
        if nq is not None:
            for pm in _children(nq, "patternMaps"):
                pmaps.extend(self.pattern_map(e) for e in _children(pm, "patternMap"))
        templates = tuple(
            self.template(e) for e in _children_of(sections.get("templates"), "template")
        )
        tmpl_by_tid: dict[str, Template] = {}
        for t in templates:
            tmpl_by_tid.setdefault(t.tid, t)
        scope = _Scope(levels, tasks, opcodes, keywords, channels, tmpl_by_tid)
        events = tuple(self.event(e, scope) for e in _event_elems(sections.get("events")))
        filters = tuple(
            self.filter(e, scope) for e in _children_of(sections.get("filters"), "filter")
        )
        traits_el = sections.get("traits")
        traits = None
        if traits_el is not None:
            traits = Traits(
                group_guid=self.guid_attr(traits_el, "groupGuid"),
                include_name=parse_bool(traits_el.get("includeName")),
            )
        guid = self.guid_attr(p, "guid")
        return Provider(
            name=p.get("name", ""),
            guid=guid or uuid.UUID(int=0),
            symbol=p.get("symbol"),
            resource_file=p.get("resourceFileName"),
            message_file=p.get("messageFileName"),
            parameter_file=p.get("parameterFileName"),
            message=self.msg(p),
            help_link=p.get("helpLink"),
            control_guid=self.guid_attr(p, "controlGuid"),
            namespace=p.get("namespace"),
            traits=traits,
            channels=channels,
            levels=levels,
            tasks=tasks,
            opcodes=opcodes,
            keywords=keywords,
            maps=maps,
            pattern_maps=tuple(pmaps),
            templates=templates,
            events=events,
            filters=filters,
            index=index,
            span=self.doc.span(p),
        )

    def defined(self, elems: list[etree._Element]) -> tuple[dict[int, Channel], dict[int, int]]:
        """The provider's own channels by list position, with values assigned: given, or
        the next free value from 16 upward in declaration order.  An ``importChannel`` of
        a name that is not a ``win:`` channel takes the next free value too (mc does not
        copy the other provider's value), returned in the second mapping."""
        used = {
            v
            for c in elems
            if _local(c) == "channel"
            for v in [parse_int(c.get("value"))]
            if v is not None
        }
        next_free = 16
        out: dict[int, Channel] = {}
        imported: dict[int, int] = {}
        for i, c in enumerate(elems):
            if _local(c) != "channel":
                if c.get("name", "") not in BUILTINS.channels:
                    while next_free in used:
                        next_free += 1
                    imported[i] = next_free
                    used.add(next_free)
                continue
            value = self.int_attr(c, "value")
            given = value is not None
            if value is None:
                while next_free in used:
                    next_free += 1
                value = next_free
                used.add(value)
            out[i] = Channel(
                name=c.get("name", ""),
                chid=c.get("chid"),
                type=c.get("type", ""),
                value=value,
                value_given=given,
                symbol=c.get("symbol"),
                message=self.msg(c),
                isolation=c.get("isolation"),
                enabled=parse_bool(c.get("enabled")),
                access=c.get("access"),
                index=i,
                span=self.doc.span(c),
            )
        return out, imported

    def channels(
        self, section: etree._Element | None, *, collect_only: bool = False
    ) -> tuple[Channel, ...]:
        if section is None:
            return ()
        elems = [c for c in _children(section) if _local(c) in ("channel", "importChannel")]
        if collect_only:
            for ch in self.defined(elems)[0].values():
                self.defined_channels.setdefault(ch.name, ch)
                if ch.chid:
                    self.defined_channels.setdefault(ch.chid, ch)
            return ()
        own, import_values = self.defined(elems)
        out: list[Channel] = []
        for i, c in enumerate(elems):
            if i in own:
                out.append(own[i])
                continue
            name = c.get("name", "")
            chid = c.get("chid")
            # win: channels take precedence; then another provider's channel whose name
            # or chid is this import's name, then its chid.
            src = (
                BUILTINS.channels.get(name)
                or self.defined_channels.get(name)
                or (self.defined_channels.get(chid) if chid else None)
            )
            if src is None:
                self.error(
                    E_UNKNOWN_IMPORT,
                    c,
                    f'importChannel name="{name}" names neither a win: channel nor a '
                    "channel defined by a provider in this manifest",
                    attr="name",
                    hint="import one of " + ", ".join(wm.CHANNELS),
                )
                out.append(
                    Channel(
                        name=name,
                        chid=c.get("chid"),
                        type="Operational",
                        value=0,
                        imported=True,
                        index=i,
                        symbol=c.get("symbol"),
                        span=self.doc.span(c),
                    )
                )
                continue
            builtin = i not in import_values
            out.append(
                Channel(
                    name=name,
                    chid=c.get("chid"),
                    type=src.type,
                    value=src.value if builtin else import_values[i],
                    symbol=c.get("symbol"),
                    message=src.message if builtin else None,
                    isolation=src.isolation,
                    enabled=src.enabled,
                    access=src.access,
                    imported=True,
                    index=i,
                    span=self.doc.span(c),
                )
            )
        return tuple(out)

    def level(self, e: etree._Element) -> Level:
        name = e.get("name", "")
        return Level(
            name=name,
            qname=self.qname(e, name, "name"),
            value=self.int_attr(e, "value", 0) or 0,
            symbol=e.get("symbol"),
            message=self.msg(e),
            span=self.doc.span(e),
        )

    def opcode(self, e: etree._Element, task: Task | None = None) -> Opcode:
        name = e.get("name", "")
        return Opcode(
            name=name,
            qname=self.qname(e, name, "name"),
            value=self.int_attr(e, "value", 0) or 0,
            symbol=e.get("symbol"),
            message=self.msg(e),
            task=task.name if task else None,
            task_value=task.value if task else 0,
            mof_value=self.int_attr(e, "mofValue"),
            span=self.doc.span(e),
        )

    def task(self, e: etree._Element) -> Task:
        name = e.get("name", "")
        bare = Task(
            name=name,
            qname=self.qname(e, name, "name"),
            value=self.int_attr(e, "value", 0) or 0,
            symbol=e.get("symbol"),
            message=self.msg(e),
            event_guid=self.guid_attr(e, "eventGUID"),
            span=self.doc.span(e),
        )
        ops = tuple(
            self.opcode(o, bare) for oc in _children(e, "opcodes") for o in _children(oc, "opcode")
        )
        if not ops:
            return bare
        return Task(
            name=bare.name,
            qname=bare.qname,
            value=bare.value,
            symbol=bare.symbol,
            message=bare.message,
            event_guid=bare.event_guid,
            opcodes=ops,
            span=bare.span,
        )

    def keyword(self, e: etree._Element) -> Keyword:
        name = e.get("name", "")
        return Keyword(
            name=name,
            qname=self.qname(e, name, "name"),
            mask=self.int_attr(e, "mask", 0) or 0,
            symbol=e.get("symbol"),
            message=self.msg(e),
            span=self.doc.span(e),
        )

    def map(self, e: etree._Element) -> Map:
        items = tuple(
            MapItem(
                value=self.int_attr(i, "value", 0) or 0,
                message=self.msg(i),
                symbol=i.get("symbol"),
                span=self.doc.span(i),
            )
            for i in _children(e, "map")
        )
        return Map(
            kind="bit" if _local(e) == "bitMap" else "value",
            name=e.get("name", ""),
            symbol=e.get("symbol"),
            items=items,
            span=self.doc.span(e),
        )

    def pattern_map(self, e: etree._Element) -> PatternMap:
        items = tuple(
            PatternMapItem(name=i.get("name", ""), value=i.get("value", ""), span=self.doc.span(i))
            for i in _children(e, "map")
        )
        return PatternMap(
            name=e.get("name", ""),
            format=e.get("format", ""),
            symbol=e.get("symbol"),
            items=items,
            span=self.doc.span(e),
        )

    # -- templates ---------------------------------------------------------------

    def extent(self, e: etree._Element, attr: str) -> Extent:
        text = e.get(attr)
        if text is None:
            return None
        t = text.strip()
        v = parse_int(t) if t[:1].isdigit() else None
        return v if v is not None else t

    def field(self, e: etree._Element) -> Field:
        in_text = e.get("inType", "")
        uri, local = self.qname(e, in_text, "inType") if in_text else ("", "")
        it = wm.in_type("win:" + local) if uri == wm.WIN_NS else None
        out_text = e.get("outType")
        ot = None
        if out_text is not None:
            ouri, olocal = self.qname(e, out_text, "outType")
            prefix = "xs:" if ouri == wm.XS_NS else "win:" if ouri == wm.WIN_NS else None
            ot = wm.out_type(prefix + olocal) if prefix else None
        return Field(
            name=e.get("name", ""),
            in_type=it,
            in_type_text=in_text,
            out_type=ot,
            out_type_text=out_text,
            map=e.get("map"),
            length=self.extent(e, "length"),
            count=self.extent(e, "count"),
            span=self.doc.span(e),
        )

    def binary(self, e: etree._Element) -> tuple[str, tuple[Field, Field]]:
        """The two fields mc makes of ``<binary name="N"/>``: ``__binLength`` (win:UInt32)
        and N (win:Binary, its length being ``__binLength``)."""
        name = e.get("name")
        if name is None:
            # Which name mc gives an unnamed one is not known; Windows' own providers
            # mostly call this field 'binary'.
            self.error(
                W_BINARY_NAME,
                e,
                "this <binary> has no name; etwmc calls its field 'binary', which need not "
                "be the name mc gives it",
                hint='name it: <binary name="BinaryData"/>',
            )
            name = "binary"
        span = self.doc.span(e)
        length = Field(
            name=BINARY_LENGTH_FIELD,
            in_type=wm.in_type("win:UInt32"),
            in_type_text="win:UInt32",
            span=span,
        )
        data = Field(
            name=name,
            in_type=wm.in_type("win:Binary"),
            in_type_text="win:Binary",
            length=BINARY_LENGTH_FIELD,
            span=span,
        )
        return name, (length, data)

    def template(self, e: etree._Element) -> Template:
        items: list[Field | Struct] = []
        binary = None
        user_data = None
        for c in _children(e):
            kind = _local(c)
            if kind == "data":
                items.append(self.field(c))
            elif kind == "struct":
                items.append(
                    Struct(
                        name=c.get("name", ""),
                        fields=tuple(self.field(d) for d in _children(c, "data")),
                        length=self.extent(c, "length"),
                        count=self.extent(c, "count"),
                        span=self.doc.span(c),
                    )
                )
            elif kind == "binary":
                binary, fields = self.binary(c)
                items.extend(fields)
            elif kind == "UserData":
                root = next(iter(_children(c)), None)
                if root is not None:
                    user_data = _xml_node(root)
        return Template(
            tid=e.get("tid", ""),
            name=e.get("name"),
            items=tuple(items),
            user_data=user_data,
            binary=binary,
            span=self.doc.span(e),
        )

    # -- events ------------------------------------------------------------------

    def event(self, e: etree._Element, s: _Scope) -> Event:
        level = task = opcode = None
        channel = template = None
        unresolved: set[str] = set()
        text = e.get("level")
        if text is not None:
            q = self.qname(e, text, "level")
            level = s.levels.get(q) or (BUILTINS.levels.get(q[1]) if q[0] == wm.WIN_NS else None)
            if level is None:
                unresolved.add("level")
                self.unknown(
                    E_UNKNOWN_LEVEL,
                    e,
                    "level",
                    text,
                    [lv.name for lv in s.levels.values()],
                    "win:Informational",
                    [lv.name for lv in BUILTINS.levels.values()],
                )
        text = e.get("task")
        if text is not None:
            q = self.qname(e, text, "task")
            task = s.tasks.get(q) or (BUILTINS.tasks.get(q[1]) if q[0] == wm.WIN_NS else None)
            if task is None:
                unresolved.add("task")
                self.unknown(
                    E_UNKNOWN_TASK,
                    e,
                    "task",
                    text,
                    [t.name for t in s.tasks.values()],
                    None,
                    [t.name for t in BUILTINS.tasks.values()],
                )
        text = e.get("opcode")
        if text is not None:
            q = self.qname(e, text, "opcode")
            if task is not None:
                opcode = next((o for o in task.opcodes if o.qname == q), None)
            if opcode is None:
                opcode = s.opcodes.get(q) or (
                    BUILTINS.opcodes.get(q[1]) if q[0] == wm.WIN_NS else None
                )
            if opcode is None:
                unresolved.add("opcode")
                scoped = [o.name for o in task.opcodes] if task else []
                self.unknown(
                    E_UNKNOWN_OPCODE,
                    e,
                    "opcode",
                    text,
                    scoped + [o.name for o in s.opcodes.values()],
                    "win:Info",
                    [o.name for o in BUILTINS.opcodes.values()],
                )
        keywords: list[Keyword] = []
        text = e.get("keywords")
        if text is not None:
            for tok in text.split():
                q = self.qname(e, tok, "keywords")
                kw = s.keywords.get(q) or (
                    BUILTINS.keywords.get(q[1]) if q[0] == wm.WIN_NS else None
                )
                if kw is None:
                    unresolved.add("keywords")
                    self.unknown(
                        E_UNKNOWN_KEYWORD,
                        e,
                        "keywords",
                        tok,
                        [k.name for k in s.keywords.values()],
                        None,
                        [k.name for k in BUILTINS.keywords.values()],
                    )
                else:
                    keywords.append(kw)
        text = e.get("channel")
        if text is not None:
            tok = text.strip()
            channel = next((c for c in s.channels if c.chid == tok or c.name == tok), None)
            if channel is None:
                channel = BUILTINS.channels.get(tok)
            if channel is None:
                unresolved.add("channel")
                self.unknown(
                    E_UNKNOWN_CHANNEL,
                    e,
                    "channel",
                    tok,
                    [c.chid or c.name for c in s.channels],
                    None,
                    list(BUILTINS.channels),
                )
        text = e.get("template")
        if text is not None:
            template = s.templates.get(text.strip())
            if template is None:
                unresolved.add("template")
                self.unknown(E_UNKNOWN_TEMPLATE, e, "template", text, list(s.templates), None)
        return Event(
            value=self.int_attr(e, "value", 0) or 0,
            version=self.int_attr(e, "version", 0) or 0,
            symbol=e.get("symbol"),
            name=e.get("name"),
            attributes=e.get("attributes"),
            message=self.msg(e),
            level=level,
            task=task,
            opcode=opcode,
            keywords=tuple(keywords),
            channel=channel,
            template=template,
            not_logged=parse_bool(e.get("notLogged")),
            unresolved=frozenset(unresolved),
            span=self.doc.span(e),
        )

    def filter(self, e: etree._Element, s: _Scope) -> Filter:
        template = None
        tid = e.get("tid")
        if tid is not None:
            template = s.templates.get(tid.strip())
            if template is None:
                self.unknown(E_UNKNOWN_TEMPLATE, e, "tid", tid, list(s.templates), None)
        name = e.get("name", "")
        return Filter(
            name=name,
            qname=self.qname(e, name, "name"),
            value=self.int_attr(e, "value", 0) or 0,
            version=self.int_attr(e, "version", 0) or 0,
            symbol=e.get("symbol"),
            message=self.msg(e),
            template=template,
            span=self.doc.span(e),
        )

    def unknown(
        self,
        c: Code,
        e: etree._Element,
        attr: str,
        token: str,
        known: list[str],
        builtin_example: str | None,
        builtin_names: Sequence[str] = (),
    ) -> None:
        what = {"tid": "template"}.get(attr, attr.rstrip("s"))
        ident = e.get("symbol") or e.get("name")
        who = f"<{_local(e)}"
        if e.get("value") is not None:
            who += f' value="{e.get("value")}"'
            if e.get("version") not in (None, "0"):
                who += f' version="{e.get("version")}"'
        who += ">" + (f" ({ident})" if ident else "")
        close = _closest(token, [*known, *builtin_names])
        if close:
            hint = f"did you mean '{close}'?"
        elif known:
            shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
            hint = f"this provider defines: {shown}"
        elif builtin_example:
            hint = f"define it in the provider, or use a win: {what} such as {builtin_example}"
        else:
            hint = f"define the {what} in the provider"
        self.error(c, e, f"{who} references unknown {what} '{token}'", attr=attr, hint=hint)


_Named = TypeVar("_Named", Level, Task, Opcode, Keyword)


class _Scope:
    def __init__(
        self,
        levels: tuple[Level, ...],
        tasks: tuple[Task, ...],
        opcodes: tuple[Opcode, ...],
        keywords: tuple[Keyword, ...],
        channels: tuple[Channel, ...],
        templates: dict[str, Template],
    ) -> None:
        self.levels: dict[QName, Level] = _first_by_qname(levels)
        self.tasks: dict[QName, Task] = _first_by_qname(tasks)
        self.opcodes: dict[QName, Opcode] = _first_by_qname(opcodes)
        self.keywords: dict[QName, Keyword] = _first_by_qname(keywords)
        self.channels = channels
        self.templates = templates


def _first_by_qname(items: Iterable[_Named]) -> dict[QName, _Named]:
    out: dict[QName, _Named] = {}
    for i in items:
        out.setdefault(i.qname, i)
    return out


def _children_of(section: etree._Element | None, name: str | None) -> Iterable[etree._Element]:
    return () if section is None else _children(section, name)


def _event_elems(section: etree._Element | None) -> Iterable[etree._Element]:
    if section is None:
        return
    for c in _children(section):
        if _local(c) == "event":
            yield c


def _xml_node(e: etree._Element) -> XmlNode:
    tag = e.tag
    assert isinstance(tag, str)
    ns, _, local = tag[1:].partition("}") if tag.startswith("{") else ("", "", tag)
    attrs = []
    for k, v in e.attrib.items():
        kns, _, klocal = k[1:].partition("}") if k.startswith("{") else ("", "", k)
        attrs.append(((kns, klocal), v))
    parent = e.getparent()
    parent_map = parent.nsmap if parent is not None else {}
    own = tuple((p, u) for p, u in e.nsmap.items() if parent_map.get(p) != u)
    kids = tuple(_xml_node(c) for c in e if isinstance(c.tag, str))
    return XmlNode(
        tag=(ns, local),
        prefix=e.prefix,
        attrs=tuple(attrs),
        nsmap=tuple(sorted(own, key=lambda pu: (pu[0] or "", pu[1]))),
        text=e.text,
        children=kids,
        tail=e.tail,
    )


def _closest(token: str, known: list[str]) -> str | None:
    import difflib

    m = difflib.get_close_matches(token, known, n=1, cutoff=0.75)
    return m[0] if m else None


def lower_document(doc: Document) -> tuple[Manifest, list[Diagnostic]]:
    lw = _Lowerer(doc)
    manifest = lw.lower()
    return manifest, lw.diags
