"""Rebuild an instrumentation manifest from a model, and ``etwmc decompile``.

:func:`decompile` writes XML text for a :class:`~etwmc.model.Manifest` (usually one read
from a WEVT_TEMPLATE blob by :func:`etwmc.wevt.reader.read_wevt`) such that compiling it
again gives the same blob.  It stands above the binary layer: it writes manifest XML, and
checks its draft by validating it (:mod:`etwmc.validate`).  Rules:

- predefined ``win:`` levels, tasks, opcodes, keywords and unlisted ``win:`` channels are
  referred to, never declared;
- own channels get ``chid="chidN"`` (N = position in the list) and events name them by
  it, so names that look like other channels' ids cannot be confused;
- every string reference gets a ``<string>``: its text from the model's first culture
  (one ``<resources>`` per culture), else a placeholder naming its message id;
- message ids mc would assign anyway are left implicit; the others are fixed in
  ``<messageTable>`` (found by compiling the draft and comparing ids);
- prefixed names keep their prefix; each prefix is declared once on the root element;
- output is deterministic: same model, same text, ``\\n`` line endings.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TypeVar

from lxml import etree

from . import winmeta as wm
from .model import (
    Channel,
    Event,
    Field,
    Filter,
    Keyword,
    Level,
    Manifest,
    Opcode,
    Provider,
    Struct,
    Template,
    XmlNode,
)
from .msgids import message_ids
from .validate import check_bytes

EV = wm.EVENTS_NS
NSMAP: dict[str | None, str] = {None: EV, "win": wm.WIN_NS, "xs": wm.XS_NS}
DEFAULT_RESOURCE_FILE = "resources.dll"

_Declared = TypeVar("_Declared", Level, Opcode, Keyword)


def _el(parent: etree._Element, tag: str, **attrs: str | None) -> etree._Element:
    e = etree.SubElement(parent, f"{{{EV}}}{tag}")
    for k, v in attrs.items():
        if v is not None:
            e.set(k.rstrip("_"), v)
    return e


def _hex(v: int, width: int = 0) -> str:
    return f"0x{v:0{width}X}"


def _guid(g: object) -> str:
    return "{" + str(g).upper() + "}"


def _ref(sid: str | None) -> str | None:
    return f"$(string.{sid})" if sid is not None else None


class _Writer:
    def __init__(self, m: Manifest, fixed: Mapping[str, int]) -> None:
        self.m = m
        self.fixed = fixed  # string id -> message id to pin in <messageTable>
        self.used: dict[str, None] = {}  # referenced string ids, in first-use order
        self.prefixes: dict[str, str] = {}
        # UserData elements and their model nodes: indenting must not add a line break
        # before an end tag where the source had none (the template id hashes it).
        self.user_data: list[tuple[etree._Element, XmlNode]] = []

    def msg(self, sid: str | None) -> str | None:
        if sid is not None:
            self.used.setdefault(sid)
        return _ref(sid)

    def qname(self, name: str, qname: tuple[str, str]) -> str:
        prefix, sep, _ = name.rpartition(":")
        if sep and prefix not in ("win", "xs", "xml"):
            self.prefixes.setdefault(prefix, qname[0])
        return name

    def document(self) -> str:
        root = etree.Element(f"{{{EV}}}instrumentationManifest", nsmap=NSMAP)
        events = _el(_el(root, "instrumentation"), "events")
        for p in self.m.providers:
            self.provider(events, p)
        ids = {m.message: m.value for m in self.m.messages if m.message is not None}
        pinned = [(sid, ids[sid]) for sid in self.used if sid in self.fixed and sid in ids]
        if pinned:
            table = _el(events, "messageTable")
            for sid, mid in pinned:
                _el(table, "message", value=_hex(mid, 8), message=_ref(sid))
        self.localization(root, ids)
        if self.prefixes:
            # lxml fixes nsmap at creation: rebuild the root with the extra prefixes.
            nsmap: dict[str | None, str] = {**NSMAP, **dict(sorted(self.prefixes.items()))}
            new = etree.Element(root.tag, nsmap=nsmap)
            new.extend(list(root))
            root = new
        etree.indent(root, space="  ")
        for e, node in self.user_data:
            if node.children and node.children[-1].tail is None:
                e[-1].tail = None
        body: str = etree.tostring(root, encoding="unicode")
        return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"

    def localization(self, root: etree._Element, ids: Mapping[str, int]) -> None:
        if not self.used:
            return
        loc = _el(root, "localization")
        cultures = self.m.resources or ()
        for res in cultures or (None,):
            r = _el(loc, "resources", culture=res.culture if res is not None else "en-US")
            table = _el(r, "stringTable")
            for sid in self.used:
                s = res.strings.get(sid) if res is not None else None
                text = s.value if s is not None else f"message 0x{ids.get(sid, 0):08X}"
                _el(table, "string", id=sid, value=text)

    # -- provider ------------------------------------------------------------------

    def provider(self, parent: etree._Element, p: Provider) -> None:
        """The provider's element.  String ids are referenced in first-use order (the
        string table follows it), so the order of these steps fixes the output."""
        e = _el(
            parent,
            "provider",
            name=p.name,
            guid=_guid(p.guid),
            symbol=p.symbol or "Provider",
            resourceFileName=p.resource_file or DEFAULT_RESOURCE_FILE,
            messageFileName=p.message_file or p.resource_file or DEFAULT_RESOURCE_FILE,
            parameterFileName=p.parameter_file,
            message=self.msg(p.message),
            helpLink=p.help_link,
            controlGuid=_guid(p.control_guid) if p.control_guid else None,
            namespace=p.namespace,
        )
        chids = self.channels(e, p)
        self.winmeta_overrides(p)
        self.declared(e, "levels", "level", p.levels, lambda lv: {"value": str(lv.value)})
        self.tasks(e, p)
        self.declared(e, "opcodes", "opcode", p.opcodes, lambda o: {"value": str(o.value)})
        self.declared(e, "keywords", "keyword", p.keywords, lambda k: {"mask": _hex(k.mask, 16)})
        self.maps(e, p)
        self.pattern_maps(e, p)
        tids = {id(t): t.tid for t in p.templates}
        if p.templates:
            sec = _el(e, "templates")
            for tm in p.templates:
                self.template(sec, tm)
        if p.events:
            sec = _el(e, "events")
            for ev in p.events:
                self.event(sec, ev, chids, tids)
        if p.filters:
            sec = _el(e, "filters")
            for f in p.filters:
                self.filter(sec, f, tids)
        if p.traits is not None and (p.traits.group_guid or p.traits.include_name):
            _el(
                e,
                "traits",
                groupGuid=_guid(p.traits.group_guid) if p.traits.group_guid else None,
                includeName="true" if p.traits.include_name else None,
            )

    def item(
        self, parent: etree._Element, tag: str, x: Level | Opcode | Keyword, **attrs: str | None
    ) -> None:
        """``<tag name=... [attrs] symbol=... message=...>`` for a level, opcode or keyword."""
        _el(
            parent,
            tag,
            name=self.qname(x.name, x.qname),
            **attrs,
            symbol=x.symbol,
            message=self.msg(x.message),
        )

    def declared(
        self,
        parent: etree._Element,
        section: str,
        tag: str,
        items: Sequence[_Declared],
        attrs: Callable[[_Declared], dict[str, str | None]],
    ) -> None:
        """The ``section`` of the items the provider declares: predefined ``win:`` items
        are referred to, never declared."""
        own = [x for x in items if not x.builtin]
        if own:
            sec = _el(parent, section)
            for x in own:
                self.item(sec, tag, x, **attrs(x))

    def tasks(self, parent: etree._Element, p: Provider) -> None:
        own = [t for t in p.tasks if not t.builtin]
        if not own:
            return
        sec = _el(parent, "tasks")
        for t in own:
            te = _el(
                sec,
                "task",
                name=self.qname(t.name, t.qname),
                value=str(t.value),
                symbol=t.symbol,
                eventGUID=_guid(t.event_guid) if t.event_guid else None,
                message=self.msg(t.message),
            )
            if t.opcodes:
                ops = _el(te, "opcodes")
                for o in t.opcodes:
                    self.item(ops, "opcode", o, value=str(o.value))

    def maps(self, parent: etree._Element, p: Provider) -> None:
        if not p.maps:
            return
        sec = _el(parent, "maps")
        for mp in p.maps:
            me = _el(
                sec, "bitMap" if mp.kind == "bit" else "valueMap", name=mp.name, symbol=mp.symbol
            )
            for item in mp.items:
                value = _hex(item.value) if mp.kind == "bit" else str(item.value)
                _el(me, "map", value=value, symbol=item.symbol, message=self.msg(item.message))

    def pattern_maps(self, parent: etree._Element, p: Provider) -> None:
        if not p.pattern_maps:
            return
        sec = _el(_el(parent, "namedQueries"), "patternMaps")
        for q in p.pattern_maps:
            qe = _el(sec, "patternMap", name=q.name, format=q.format, symbol=q.symbol)
            for qi in q.items:
                _el(qe, "map", name=qi.name, value=qi.value)

    def winmeta_overrides(self, p: Provider) -> None:
        """Keep the strings that give predefined items a text of the manifest's own (a
        string with winmeta's id, such as level.Informational): they are referenced from
        no element, so only their presence in the string table carries them."""
        items: list[tuple[str | None, str | None]] = [
            *((x.message, _winmeta_text("level", x.name)) for x in p.levels if x.builtin),
            *((x.message, _winmeta_text("task", x.name)) for x in p.tasks if x.builtin),
            *((x.message, _winmeta_text("opcode", x.name)) for x in p.opcodes if x.builtin),
            *((x.message, _winmeta_text("keyword", x.name)) for x in p.keywords if x.builtin),
            *((c.message, c.name) for c in p.channels if c.imported and c.name in wm.CHANNELS),
        ]
        for sid, text in items:
            if sid is None:
                continue
            for res in self.m.resources:
                s = res.strings.get(sid)
                if s is not None and s.value != text:
                    self.used.setdefault(sid)
                    break

    def channels(self, parent: etree._Element, p: Provider) -> dict[int, str]:
        """Write the channel list; return id(channel) -> the token events use."""
        out: dict[int, str] = {}
        listed = [c for c in p.channels if c.index is not None]
        if listed:
            sec = _el(parent, "channels")
            for n, c in enumerate(listed):
                chid = c.chid or f"chid{n}"
                if c.imported:
                    _el(sec, "importChannel", name=c.name, chid=chid, symbol=c.symbol)
                else:
                    _el(
                        sec,
                        "channel",
                        name=c.name,
                        chid=chid,
                        type=c.type or "Operational",
                        value=str(c.value),
                        symbol=c.symbol,
                        isolation=c.isolation,
                        enabled="true" if c.enabled else None,
                        access=c.access,
                        message=self.msg(c.message),
                    )
                out[id(c)] = chid
        for c in p.channels:
            out.setdefault(id(c), c.name)
        return out

    # -- templates and events --------------------------------------------------------

    def template(self, parent: etree._Element, t: Template) -> None:
        te = _el(parent, "template", tid=t.tid, name=t.name)
        # A <binary> item stands for the last two fields (its length, then its data).
        for item in t.items[:-2] if t.binary is not None else t.items:
            if isinstance(item, Struct):
                se = _el(
                    te,
                    "struct",
                    name=item.name,
                    length=_extent(item.length),
                    count=_extent(item.count),
                )
                for f in item.fields:
                    self.field(se, f)
            else:
                self.field(te, item)
        if t.binary is not None:
            _el(te, "binary", name=t.binary)
        if t.user_data is not None:
            self.user_data += _user_data(_el(te, "UserData"), t.user_data)

    def field(self, parent: etree._Element, f: Field) -> None:
        out = None
        if f.out_type is not None and (
            f.in_type is None or f.out_type.qname != f.in_type.default_out
        ):
            out = f.out_type.qname
        elif f.out_type is None and f.out_type_text is not None:
            out = f.out_type_text
        in_text = f.in_type.qname if f.in_type is not None else f.in_type_text
        _el(
            parent,
            "data",
            name=f.name,
            inType=in_text,
            outType=out,
            map=f.map,
            length=_extent(f.length),
            count=_extent(f.count),
        )

    def event(
        self, parent: etree._Element, e: Event, chids: Mapping[int, str], tids: Mapping[int, str]
    ) -> None:
        kws = " ".join(self.qname(k.name, k.qname) for k in e.keywords) or None
        _el(
            parent,
            "event",
            value=str(e.value),
            version=str(e.version) if e.version else None,
            symbol=e.symbol,
            name=e.name,
            attributes=e.attributes,
            channel=self.channel_token(e.channel, chids),
            level=self.qname(e.level.name, e.level.qname) if e.level else None,
            task=self.qname(e.task.name, e.task.qname) if e.task else None,
            opcode=self.qname(e.opcode.name, e.opcode.qname) if e.opcode else None,
            keywords=kws,
            template=tids.get(id(e.template)) if e.template else None,
            notLogged="true" if e.not_logged else None,
            message=self.msg(e.message),
        )

    @staticmethod
    def channel_token(c: Channel | None, chids: Mapping[int, str]) -> str | None:
        if c is None:
            return None
        return chids.get(id(c), c.chid or c.name)

    def filter(self, parent: etree._Element, f: Filter, tids: Mapping[int, str]) -> None:
        _el(
            parent,
            "filter",
            name=self.qname(f.name, f.qname),
            value=str(f.value),
            version=str(f.version) if f.version else None,
            symbol=f.symbol,
            tid=tids.get(id(f.template)) if f.template else None,
            message=self.msg(f.message),
        )


def _winmeta_text(kind: str, name: str) -> str | None:
    item = wm.predefined(kind, name)
    return item.text if item is not None else None


def _extent(v: int | str | None) -> str | None:
    return None if v is None else str(v)


def _user_data(parent: etree._Element, node: XmlNode) -> list[tuple[etree._Element, XmlNode]]:
    """Write ``node`` under ``parent``; return each element written with its node."""
    ns, local = node.tag
    nsmap = {p: u for p, u in node.nsmap}
    tag = f"{{{ns}}}{local}" if ns else local
    e = etree.SubElement(parent, tag, nsmap=nsmap or None)
    for (ans, alocal), v in node.attrs:
        e.set(f"{{{ans}}}{alocal}" if ans else alocal, v)
    e.text = node.text
    written = [(e, node)]
    for c in node.children:
        written += _user_data(e, c)
    e.tail = node.tail
    return written


def decompile(manifest: Manifest) -> str:
    """Manifest XML text for ``manifest``; message ids that compiling would not reproduce
    are pinned in ``<messageTable>``."""
    fixed: dict[str, int] = {}
    text = _Writer(manifest, fixed).document()
    want = {m.message: m.value for m in manifest.messages if m.message is not None}
    for _ in range(4):  # pinning ids can shift later counters: repeat until stable
        got = _compiled_ids(text)
        if got is None:
            fixed = dict(want)  # the draft does not compile: pin every id
            return _Writer(manifest, fixed).document()
        wrong = {sid: mid for sid, mid in want.items() if sid in got and got[sid] != mid}
        if not wrong:
            return text
        fixed.update(wrong)
        text = _Writer(manifest, fixed).document()
    return text


def _compiled_ids(text: str) -> dict[str, int] | None:
    checked = check_bytes(text.encode("utf-8"), "<decompiled>")
    if checked.manifest is None or not checked.ok:
        return None
    return dict(message_ids(checked.manifest).strings)
