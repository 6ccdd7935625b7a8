"""Where every named thing of a manifest is defined and referenced, in its text.

The model (:mod:`etwmc.lower`) resolves every reference and keeps where each element
starts; the tolerant reading (:mod:`etwmc.lsp.scan`) knows where each attribute value
lies.  Joined on the elements' starting places they give, for each level, task,
opcode, keyword, channel, template, map and string id, its definitions and the places
that name it: what "go to definition", "find references", rename and hover read.

Rules:

* A reference counts only where the model resolved it (an unknown name is lint's to
  report): an event's level, task, opcode, keywords, channel and template, a filter's
  ``tid``, a ``<data>``'s ``map``.  Keywords are matched to the event's resolved
  keywords by name as written, then by local name.
* Every ``message`` attribute that is a ``$(string.ID)`` reference names the string ID
  (defined or not: an undefined one can still be found and added).  Each culture's
  ``<string id>`` defines it.
* A channel is named by its chid or by its name; an occurrence records which
  (``facet``), so a rename changes that spelling only.
* ``win:`` items are symbols without a definition in the text; they are never renamed.
* The part of a prefixed name after its prefix is what a rename replaces.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from ..diagnostics import Span
from ..lower.attributes import string_ref
from ..model import (
    Channel,
    Event,
    Field,
    Keyword,
    Level,
    Manifest,
    Map,
    Opcode,
    Provider,
    Struct,
    Task,
    Template,
)
from ..record import Record, field
from .scan import Attr, Element, Scan

Kind = Literal["level", "task", "opcode", "keyword", "channel", "template", "map", "string"]
Named = Level | Task | Opcode | Keyword | Channel | Template | Map
# What an element of the text stands for in the model (see Index.nodes).
Node = Provider | Named | Event | tuple[str, str]  # ("string", id) for a <string>


class Symbol(Record):
    kind: Kind
    key: tuple[object, ...]  # identity: (kind, id of the model node), or ("string", id)
    name: str  # as declared (a string's id)
    provider: Provider | None = None  # None for string ids and win: items
    node: Named | None = None  # None for string ids
    builtin: bool = False


class Occurrence(Record):
    symbol: Symbol
    start: int  # the name as written, prefix included
    end: int
    name_start: int  # where the part a rename replaces begins
    definition: bool = False
    facet: str = "name"  # for channels: "name" or "chid"


class Index(Record):
    occurrences: tuple[Occurrence, ...]  # sorted by start
    nodes: dict[int, tuple[Provider | None, Node]] = field(default_factory=dict)
    _starts: tuple[int, ...] = ()

    def at(self, offset: int) -> Occurrence | None:
        """The occurrence written at ``offset`` (its end counts: a cursor after a name)."""
        i = bisect_right(self._starts, offset) - 1
        if i >= 0 and offset <= self.occurrences[i].end:
            return self.occurrences[i]
        return None

    def of(self, key: tuple[object, ...]) -> list[Occurrence]:
        return [o for o in self.occurrences if o.symbol.key == key]

    def symbols(self, kind: Kind) -> dict[tuple[object, ...], Symbol]:
        return {o.symbol.key: o.symbol for o in self.occurrences if o.symbol.kind == kind}


def build_index(manifest: Manifest, scan: Scan, place: Callable[[Span], int | None]) -> Index:
    """The index of ``manifest`` in the text ``scan`` read; ``place`` turns a model span
    into an offset of that text (None when the span has no column)."""
    b = _Builder(scan, place)
    for p in manifest.providers:
        b.node(p.span, p, p)
        b.provider(p)
    for res in manifest.resources:
        for s in res.strings.values():
            e = b.element(s.span)
            if e is not None:
                b.nodes[e.start] = (None, ("string", s.id))
                b.whole(_string_symbol(s.id), e.attr("id"), definition=True)
    for e in scan.walk():
        a = e.attr("message")
        if a is not None:
            b.string_ref(a)
    found = sorted(b.found, key=lambda o: (o.start, o.end))
    return Index(tuple(found), b.nodes, tuple(o.start for o in found))


def _string_symbol(sid: str) -> Symbol:
    return Symbol("string", ("string", sid), sid)


def symbol_of(kind: Kind, node: Named, provider: Provider | None) -> Symbol:
    builtin = bool(getattr(node, "builtin", False))
    name = node.tid if isinstance(node, Template) else node.name
    if builtin:
        return Symbol(kind, ("win", kind, name), name, None, node, True)
    return Symbol(kind, (kind, id(node)), name, provider, node)


def fields(t: Template) -> Iterator[Field]:
    """Every ``<data>`` of a template, struct members included, in document order."""
    for item in t.items:
        if isinstance(item, Struct):
            yield from item.fields
        else:
            yield item


class _Builder:
    def __init__(self, scan: Scan, place: Callable[[Span], int | None]) -> None:
        self.place = place
        self.by_start = scan.starting_at()
        self.found: list[Occurrence] = []
        self.nodes: dict[int, tuple[Provider | None, Node]] = {}

    def element(self, span: Span) -> Element | None:
        at = self.place(span)
        return self.by_start.get(at) if at is not None else None

    def node(self, span: Span, provider: Provider | None, node: Node) -> Element | None:
        e = self.element(span)
        if e is not None:
            self.nodes.setdefault(e.start, (provider, node))
        return e

    def provider(self, p: Provider) -> None:
        declared: list[tuple[Kind, Iterable[Named]]] = [
            ("level", p.levels),
            ("task", p.tasks),
            ("opcode", p.all_opcodes()),
            ("keyword", p.keywords),
            ("template", p.templates),
            ("map", p.maps),
        ]
        for kind, items in declared:
            for item in items:
                e = self.node(item.span, p, item)
                if e is not None:
                    attr = "tid" if kind == "template" else "name"
                    self.token(symbol_of(kind, item, p), e.attr(attr), item_name(item), True)
        for c in p.channels:
            e = self.node(c.span, p, c)
            if e is None:
                continue
            sym = symbol_of("channel", c, p)
            self.whole(sym, e.attr("name"), definition=True)
            if c.chid is not None:
                self.whole(sym, e.attr("chid"), definition=True, facet="chid")
        for ev in p.events:
            e = self.node(ev.span, p, ev)
            if e is not None:
                self.event(p, ev, e)
        for f in p.filters:
            e = self.element(f.span)
            if e is not None and f.template is not None:
                self.token(symbol_of("template", f.template, p), e.attr("tid"), f.template.tid)
        for t in p.templates:
            for fd in fields(t):
                if fd.map is None:
                    continue
                target = p.map_named(fd.map)
                e = self.element(fd.span)
                if target is not None and e is not None:
                    self.token(symbol_of("map", target, p), e.attr("map"), target.name)

    def event(self, p: Provider, ev: Event, e: Element) -> None:
        refs: list[tuple[Kind, str, Named | None]] = [
            ("level", "level", ev.level),
            ("task", "task", ev.task),
            ("opcode", "opcode", ev.opcode),
            ("template", "template", ev.template),
        ]
        for kind, attr, target in refs:
            if target is not None:
                self.token(symbol_of(kind, target, p), e.attr(attr), item_name(target))
        if ev.channel is not None:
            a = e.attr("channel")
            for at, tok in a.tokens() if a is not None else ():
                facet = "chid" if tok == ev.channel.chid else "name"
                self.add(symbol_of("channel", ev.channel, p), at, tok, facet=facet, whole=True)
        a = e.attr("keywords")
        if a is not None and ev.keywords:
            for at, tok in a.tokens():
                k = _keyword_named(tok, ev.keywords)
                if k is not None:
                    self.add(symbol_of("keyword", k, p), at, tok)

    def token(self, sym: Symbol, a: Attr | None, name: str, definition: bool = False) -> None:
        """The one token of ``a``'s value, when it is the name of ``sym``."""
        if a is None or "&" in a.value:
            return
        for at, tok in a.tokens():
            if tok == name or tok.rpartition(":")[2] == name.rpartition(":")[2]:
                self.add(sym, at, tok, definition=definition)
            return

    def whole(
        self, sym: Symbol, a: Attr | None, *, definition: bool = False, facet: str = "name"
    ) -> None:
        """``a``'s whole value (leading and trailing spaces aside) names ``sym``."""
        if a is None or a.value_start < 0 or "&" in a.value or not a.value.strip():
            return
        lead = len(a.value) - len(a.value.lstrip())
        text = a.value.strip()
        self.add(sym, a.value_start + lead, text, definition=definition, facet=facet, whole=True)

    def add(
        self,
        sym: Symbol,
        at: int,
        written: str,
        *,
        definition: bool = False,
        facet: str = "name",
        whole: bool = False,
    ) -> None:
        prefix = 0 if whole else len(written) - len(written.rpartition(":")[2])
        self.found.append(Occurrence(sym, at, at + len(written), at + prefix, definition, facet))

    def string_ref(self, a: Attr) -> None:
        sid = string_ref(a.value)
        if sid is None or "&" in a.value or not a.closed:
            return
        stripped = a.value.lstrip()
        head = stripped[: stripped.find(".") + 1]
        at = a.value_start + (len(a.value) - len(stripped)) + len(head)
        self.found.append(Occurrence(_string_symbol(sid), at, at + len(sid), at))


def item_name(item: Named) -> str:
    return item.tid if isinstance(item, Template) else item.name


def _keyword_named(token: str, keywords: tuple[Keyword, ...]) -> Keyword | None:
    for k in keywords:
        if k.name == token:
            return k
    local = token.rpartition(":")[2]
    return next((k for k in keywords if k.name.rpartition(":")[2] == local), None)
