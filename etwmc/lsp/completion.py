"""Completion: what may be written at the cursor, from the schema, the ``win:`` tables
and the manifest's own names.

Where the cursor is comes from a tolerant reading of the current text up to it
(:func:`etwmc.lsp.scan.scan`), so completion works while the text is half-typed; the
names come from the model of the last well-formed version.

* After ``<``: the elements the schema allows in the enclosing element.
* In a start tag: the attributes the schema allows on the element, less those written.
* In an attribute value: for a reference, the provider's own names first, then the
  ``win:`` ones (levels, tasks, opcodes with the event's task's own first, keywords
  token by token, channels, templates, maps); for a ``message``, ``$(string.ID)`` of
  every string of the first culture; for ``inType`` every type, for ``outType`` those
  valid for the element's ``inType``; for an event's ``value`` the next free event id,
  for a keyword's ``mask`` the lowest free keyword bit; for ``length``/``count`` the
  integer fields written before; for an attribute with a list of allowed words (or a
  boolean), those words.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Literal

from .. import winmeta as wm
from ..diagnostics import visible
from ..model import Manifest, Provider
from ..record import Record
from ..schema import schema_index
from ..schema.index import SchemaIndex, TypeDecl
from .analysis import View
from .scan import Element, scan, start_tag
from .text import Range

ItemKind = Literal["element", "attribute", "value", "reference", "type", "number"]


class Item(Record):
    label: str
    kind: ItemKind
    replace: Range  # of the current text
    insert: str
    detail: str | None = None
    snippet: bool = False
    sort: str = ""


class _At(Record):
    """The place being completed: offsets of the current text."""

    view: View
    start: int
    end: int
    path: tuple[str, ...]  # local names of the enclosing elements, outermost first
    open: tuple[Element, ...]  # the enclosing elements themselves
    tag: Element | None  # the start tag the cursor is in

    def item(
        self,
        label: str,
        kind: ItemKind,
        detail: str | None = None,
        *,
        insert: str | None = None,
        snippet: bool = False,
        sort: str = "",
    ) -> Item:
        r = self.view.current.range(self.start, self.end)
        return Item(label, kind, r, label if insert is None else insert, detail, snippet, sort)


def complete(view: View, offset: int, *, snippets: bool = False) -> list[Item]:
    text = view.current.text
    offset = max(0, min(offset, len(text)))
    reading = scan(text, offset)
    path = tuple(e.local for e in reading.open)
    if reading.inside != "tag" or reading.tag is None:
        return []
    tag = reading.tag
    whole = start_tag(text, tag.start) or tag  # with the attributes after the cursor
    if offset <= tag.name_end:  # the element's name
        end = _run(text, offset, _NAME_CHARS)
        at = _At(view, tag.start + 1, end, path, reading.open, tag)
        return list(_elements(at))
    last = tag.attrs[-1] if tag.attrs else None
    if last is not None and last.value_start >= 0 and not last.closed and last.value_end >= offset:
        quote = text[last.value_start - 1] if last.value_start > 0 else '"'
        end = _value_end(text, offset, quote)
        at = _At(view, last.value_start, end, path, reading.open, whole)
        return list(_values(at, last.name, text[last.value_start : offset]))
    if last is not None and last.value_start < 0 and last.start + len(last.name) >= offset:
        end = _run(text, offset, _NAME_CHARS)
        at = _At(view, last.start, end, path, reading.open, whole)
        written = {a.name for a in whole.attrs if a.start != last.start}
        return list(_attributes(at, snippets, written))
    if text[offset - 1 : offset].isspace():
        at = _At(view, offset, offset, path, reading.open, whole)
        return list(_attributes(at, snippets, {a.name for a in whole.attrs}))
    return []


_NAME_CHARS = frozenset("_-.:")


def _run(text: str, at: int, extra: frozenset[str]) -> int:
    while at < len(text) and (text[at].isalnum() or text[at] in extra):
        at += 1
    return at


def _value_end(text: str, cursor: int, quote: str) -> int:
    """Where the value the cursor is in ends: its closing quote when one follows on the
    same line before any markup, else the cursor."""
    close = text.find(quote, cursor)
    stops = [i for i in (text.find("<", cursor), text.find("\n", cursor)) if i >= 0]
    if close >= 0 and (not stops or close < min(stops)):
        return close
    return cursor


def _declared(path: Iterable[str]) -> TypeDecl | None:
    """The schema type of the element at ``path``, read from the outermost element the
    schema declares globally (the ``<events>`` of a component manifest too)."""
    names = list(path)
    index = schema_index()
    for i, name in enumerate(names):
        if name in index.globals:
            found = index.type_of_path(names[i:])
            if found is not None:
                return found
    return None


def _elements(at: _At) -> Iterator[Item]:
    if not at.path:
        yield at.item("instrumentationManifest", "element", "the manifest's root")
        return
    parent = _declared(at.path)
    if parent is None:
        return
    for n, name in enumerate(parent.children):
        yield at.item(name, "element", f"in <{at.path[-1]}>", sort=f"{n:03}")


def _attributes(at: _At, snippets: bool, written: set[str]) -> Iterator[Item]:
    assert at.tag is not None
    decl = _declared((*at.path, at.tag.local))
    if decl is None:
        return
    for name, a in decl.attrs.items():
        if name in written:
            continue
        insert = f'{name}="$1"' if snippets else f'{name}=""'
        detail = f"{a.type}{', required' if a.required else ''}"
        yield at.item(name, "attribute", detail, insert=insert, snippet=snippets,
                      sort=("0" if a.required else "1") + name)  # fmt: skip


def _values(at: _At, attr: str, typed: str) -> Iterator[Item]:
    assert at.tag is not None
    element = at.tag.local
    basis = at.view.basis
    manifest = basis.manifest if basis is not None else None
    provider = _provider(at, manifest)
    if attr == "message":
        yield from _strings(at, manifest)
        return
    if element == "event" and attr in ("level", "task", "opcode", "keywords", "channel"):
        yield from _event_refs(at, attr, typed, provider)
        return
    if (element, attr) in (("event", "template"), ("filter", "tid")) and provider is not None:
        for t in provider.templates:
            yield at.item(t.tid, "reference", f"template, {t.flat_count()} fields")
        return
    if element == "data" and attr == "map" and provider is not None:
        for mp in provider.maps:
            yield at.item(mp.name, "reference", f"{mp.kind}Map, {len(mp.items)} items")
        return
    if element == "data" and attr in ("inType", "outType"):
        yield from _types(at, attr)
        return
    if element == "data" and attr in ("length", "count"):
        yield from _extents(at)
        return
    if element == "importChannel" and attr == "name":
        yield from _importable(at, manifest, provider)
        return
    if element == "event" and attr == "value" and provider is not None:
        used = {e.value for e in provider.events}
        free = max(used, default=0) + 1
        yield at.item(str(free), "number", "the next free event id")
        return
    if element == "keyword" and attr == "mask" and provider is not None:
        taken = 0
        for k in provider.keywords:
            taken |= k.mask
        bit = next((b for b in wm.USER_KEYWORD_BITS if not taken >> b & 1), None)
        if bit is not None:
            yield at.item(f"0x{1 << bit:X}", "number", f"bit {bit}, the lowest free keyword bit")
        return
    decl = _declared((*at.path, element))
    a = decl.attrs.get(attr) if decl is not None else None
    if a is not None:
        words = ("true", "false") if a.type == "xs:boolean" else _enumeration(a.type)
        for w in words:
            yield at.item(w, "value", a.type)


def _enumeration(type_name: str) -> tuple[str, ...]:
    index: SchemaIndex = schema_index()
    return index.enumerations.get(type_name, ())


def _provider(at: _At, manifest: Manifest | None) -> Provider | None:
    """The model's provider the cursor is inside: the one declared where the enclosing
    <provider> starts, else the one of the same name, else the only one."""
    if manifest is None:
        return None
    element = next((e for e in reversed(at.open) if e.local == "provider"), None)
    if element is None:
        return None
    basis = at.view.basis
    start = at.view.to_basis(element.start)
    if basis is not None and start is not None:
        found = basis.index.nodes.get(start)
        if found is not None and isinstance(found[1], Provider):
            return found[1]
    name = element.get("name")
    named = [p for p in manifest.providers if name is not None and p.name == name]
    if named:
        return named[0]
    return manifest.providers[0] if len(manifest.providers) == 1 else None


def _event_refs(at: _At, attr: str, typed: str, p: Provider | None) -> Iterator[Item]:
    own: list[tuple[str, str]] = []
    win: list[tuple[str, str]] = []
    if attr == "keywords":
        # One token at a time: an item replaces the token the cursor is in.
        current = re.search(r"\S*\Z", typed)
        begin = current.start() if current is not None else len(typed)
        written = set(typed[:begin].split())
        end = _token_end(at.view.current.text, at.start + len(typed), at.end)
        at = _At(at.view, at.start + begin, end, at.path, at.open, at.tag)
        own = [(k.name, f"keyword, mask 0x{k.mask:X}") for k in (p.keywords if p else ())]
        win = [(i.name, f"0x{i.value:X}") for i in _win(wm.KEYWORDS) if i.value]
        own = [o for o in own if o[0] not in written]
        win = [w for w in win if w[0] not in written]
    elif attr == "level":
        own = [(lv.name, f"level {lv.value}") for lv in (p.levels if p else ())]
        win = [(i.name, f"level {i.value}") for i in _win(wm.LEVELS)]
    elif attr == "task":
        own = [(t.name, f"task {t.value}") for t in (p.tasks if p else ())]
        win = [(i.name, f"task {i.value}") for i in _win(wm.TASKS)]
    elif attr == "opcode":
        task = at.tag.get("task") if at.tag is not None else None
        for t in p.tasks if p else ():
            if task is not None and t.name == task.strip():
                own += [(o.name, f"opcode {o.value} of task {t.name}") for o in t.opcodes]
        own += [(o.name, f"opcode {o.value}") for o in (p.opcodes if p else ())]
        win = [(i.name, f"opcode {i.value}") for i in _win(wm.OPCODES)]
    elif attr == "channel":
        for c in p.channels if p else ():
            own.append((c.chid or c.name, f"channel {c.value}, {c.type}"))
        win = [(c.name, f"channel {c.value}, {c.type}") for c in wm.CHANNELS.values()]
    seen: set[str] = set()
    for n, (name, detail) in enumerate([*own, *win]):
        if name in seen:
            continue
        seen.add(name)
        yield at.item(name, "reference", detail, sort=f"{0 if n < len(own) else 1}{n:04}")


def _token_end(text: str, cursor: int, end: int) -> int:
    """The end of the token the cursor is in, within a value that ends at ``end``."""
    while cursor < end and not text[cursor].isspace():
        cursor += 1
    return cursor


def _win(table: Mapping[str, wm.WinItem]) -> list[wm.WinItem]:
    """The predefined items, without the reserved ones nobody should name."""
    return [i for i in table.values() if not i.local.startswith("Reserved")]


def _strings(at: _At, manifest: Manifest | None) -> Iterator[Item]:
    primary = manifest.primary if manifest is not None else None
    if primary is None:
        return
    for sid, s in primary.strings.items():
        text = visible(s.value)
        detail = text if len(text) <= 80 else text[:77] + "..."
        yield at.item(f"$(string.{sid})", "reference", detail)


def _types(at: _At, attr: str) -> Iterator[Item]:
    if attr == "inType":
        for t in wm.IN_TYPES.values():
            size = f"{t.size} bytes" if t.size else "variable size"
            yield at.item(t.qname, "type", size, sort=f"{int(t.code):03}")
        return
    written = at.tag.get("inType") if at.tag is not None else None
    in_type = wm.in_type(written.strip()) if written else None
    if in_type is not None:
        for n, name in enumerate(in_type.outs):
            yield at.item(name, "type", "the default" if n == 0 else None, sort=f"{n:03}")
        return
    for o in wm.OUT_TYPES.values():
        yield at.item(o.qname, "type", sort=f"{o.code:03}")


def _extents(at: _At) -> Iterator[Item]:
    parent = at.open[-1] if at.open else None
    if parent is None or at.tag is None:
        return
    for e in parent.elements("data"):
        if e.start >= at.tag.start:
            break  # the field being written, and those after it
        name = e.get("name")
        written = e.get("inType")
        t = wm.in_type(written.strip()) if written else None
        if name and t is not None and t.code in wm.COUNT_LENGTH_CODES:
            yield at.item(name, "reference", f"field, {t.qname}")


def _importable(at: _At, manifest: Manifest | None, p: Provider | None) -> Iterator[Item]:
    for c in wm.CHANNELS.values():
        yield at.item(c.name, "reference", f"win: channel {c.value}, {c.type}", sort="0" + c.name)
    for other in manifest.providers if manifest is not None else ():
        if other is p:
            continue
        for ch in other.channels:
            if not ch.imported:
                yield at.item(ch.name, "reference", f"channel of {other.name}", sort="1" + ch.name)
