"""Document symbols: the outline of a manifest, read from the current text.

Each ``<provider>`` is a symbol holding its channels, levels, tasks, opcodes, keywords,
maps, templates, events and filters, in the order written.  The outline comes from
the tolerant reading (:mod:`etwmc.lsp.scan`), not from the model, so it follows the
text as it is typed, well-formed or not.  A symbol's range is its element; the range
to select is the value that names it (an event's ``value``, a template's ``tid``,
others' ``name``), else the element's name.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Literal

from ..diagnostics import visible
from ..record import Record
from .scan import Element, Scan
from .text import Range, Source

SymbolKind = Literal[
    "provider", "channel", "level", "task", "opcode", "keyword", "map", "template", "event",
    "filter",
]  # fmt: skip

# The sections of a provider and what each holds, in the schema's order.
_SECTIONS: tuple[tuple[str, tuple[str, ...], SymbolKind], ...] = (
    ("channels", ("channel", "importChannel"), "channel"),
    ("levels", ("level",), "level"),
    ("tasks", ("task",), "task"),
    ("opcodes", ("opcode",), "opcode"),
    ("keywords", ("keyword",), "keyword"),
    ("maps", ("valueMap", "bitMap"), "map"),
    ("templates", ("template",), "template"),
    ("events", ("event",), "event"),
    ("filters", ("filter",), "filter"),
)


class Outline(Record):
    name: str
    kind: SymbolKind
    range: Range
    selection: Range
    detail: str | None = None
    children: tuple[Outline, ...] = ()


def outline(source: Source, reading: Scan) -> list[Outline]:
    return [_provider(source, p) for p in _providers(reading)]


def _providers(reading: Scan) -> Iterator[Element]:
    for e in reading.walk():
        if e.local == "provider":
            yield e


def _provider(source: Source, p: Element) -> Outline:
    children: list[Outline] = []
    for section in p.children:
        for name, members, kind in _SECTIONS:
            if section.local != name:
                continue
            for e in section.children:
                if e.local in members:
                    children.append(_item(source, e, kind))
    name = p.get("name") or "(provider without a name)"
    return Outline(
        visible(name),
        "provider",
        source.range(p.start, p.end),
        _selection(source, p, "name"),
        visible(p.get("guid") or "") or None,
        tuple(children),
    )


def _item(source: Source, e: Element, kind: SymbolKind) -> Outline:
    if kind == "event":
        value, version = e.get("value") or "?", e.get("version")
        name = f"event {value}" + (f" v{version}" if version not in (None, "0") else "")
        detail = e.get("symbol") or e.get("name")
        key = "value"
    elif kind == "template":
        name, detail, key = e.get("tid") or "(template without a tid)", e.get("name"), "tid"
    else:
        name, detail, key = e.get("name") or f"({e.local})", e.get("symbol"), "name"
    children: tuple[Outline, ...] = ()
    if kind == "task":
        children = tuple(
            _item(source, o, "opcode")
            for ops in e.elements("opcodes")
            for o in ops.elements("opcode")
        )
    return Outline(
        visible(name),
        kind,
        source.range(e.start, e.end),
        _selection(source, e, key),
        visible(detail) if detail else None,
        children,
    )


def _selection(source: Source, e: Element, attr: str) -> Range:
    a = e.attr(attr)
    if a is not None and a.value_start >= 0:
        return source.range(a.value_start, a.value_end)
    return source.range(e.start, e.name_end)
