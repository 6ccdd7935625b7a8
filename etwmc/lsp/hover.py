"""Hover: what the thing under the cursor is, as the compiler sees it (Markdown).

* An event (its start tag, or any attribute that names nothing): its descriptor as mc
  computes it (:func:`etwmc.descriptors.descriptor`), its message with the template's
  field names in place of the inserts, and the template's fields.
* A level, task, opcode, keyword, channel, template or map, where it is declared or
  named: its value (a keyword's mask and bit, a channel's keyword bit), its message,
  a template's fields, a map's values and their texts.
* A string id: its text in every culture.  An inType or outType: what it holds.

Every text that comes from the manifest is shown inside a code block (one whose fence
is longer than any run of backticks in it), with control characters as escapes, so no
manifest text is read as Markdown: not a link, not an image, not a heading.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from .. import winmeta as wm
from ..descriptors import descriptor
from ..diagnostics import visible
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
from ..msgformat import Insert, Stop, tokens
from .analysis import View
from .index import Node, Symbol
from .text import Range


def hover(view: View, offset: int) -> tuple[str, Range] | None:
    """Markdown for the cursor at ``offset`` of the current text, and the range it is
    about; None when there is nothing to say."""
    basis = view.basis
    at = view.to_basis(offset)
    if basis is None or basis.manifest is None or at is None:
        return None
    m = basis.manifest
    o = basis.index.at(at)
    if o is not None:
        r = view.to_current(o.start, o.end)
        text = symbol_text(m, o.symbol)
        return (text, r) if r is not None and text else None
    elements = basis.scan.at(at)
    if elements:
        inner = elements[-1]
        for name in ("inType", "outType"):
            a = inner.attr(name)
            if a is not None and a.value_start <= at <= a.value_end:
                r = view.to_current(a.value_start, a.value_end)
                text = type_text(name, a.value.strip())
                return (text, r) if r is not None and text else None
    for e in reversed(elements):
        found = basis.index.nodes.get(e.start)
        if found is not None:
            r = view.to_current(e.start, e.tag_end)
            text = node_text(m, found[0], found[1])
            return (text, r) if r is not None and text else None
    return None


def symbol_text(m: Manifest, sym: Symbol) -> str:
    if sym.kind == "string":
        return string_text(m, sym.name)
    if sym.node is None:
        return ""
    return node_text(m, sym.provider, sym.node)


def node_text(m: Manifest, p: Provider | None, node: Node) -> str:
    if isinstance(node, tuple):
        return string_text(m, node[1])
    if isinstance(node, Event):
        return event_text(m, p, node) if p is not None else ""
    if isinstance(node, Provider):
        return provider_text(node)
    if isinstance(node, Template):
        return f"**template** {_code(node.tid)}\n\n" + _block(template_lines(node))
    if isinstance(node, Map):
        return map_text(m, node)
    return item_text(m, node)


def event_text(m: Manifest, p: Provider, e: Event) -> str:
    eid, version, channel, level, opcode, task, keyword = descriptor(p, e)
    ident = e.symbol or e.name
    head = f"**event {eid}**" + (f" {_code(ident)}" if ident else "")
    rows = [
        ("id", str(eid), None),
        ("version", str(version), None),
        ("channel", str(channel), e.channel.chid or e.channel.name if e.channel else None),
        ("level", str(level), e.level.name if e.level else None),
        ("opcode", str(opcode), e.opcode.name if e.opcode else None),
        ("task", str(task), e.task.name if e.task else None),
        ("keyword", f"0x{keyword:X}", " ".join(k.name for k in e.keywords) or None),
    ]
    width = max(len(v) for _, v, _ in rows)
    lines = [f"{k:8} {v:<{width}}  {n}".rstrip() if n else f"{k:8} {v}" for k, v, n in rows]
    parts = [head, "descriptor, as mc writes it:\n\n" + _block(lines)]
    text = m.text(e.message)
    if text is not None:
        parts.append("message:\n\n" + _block(message_lines(text, e.template)))
    if e.template is not None:
        parts.append(f"template {_code(e.template.tid)}:\n\n" + _block(template_lines(e.template)))
    return "\n\n".join(parts)


def message_lines(text: str, template: Template | None) -> list[str]:
    """The message as a reader sees it, with each insert shown as ``{field}`` (or
    ``%n`` where the template has no such field)."""
    names = [item.name for item in template.properties] if template is not None else []
    out: list[str] = []
    for t in tokens(text):
        if isinstance(t, Stop):
            break
        if isinstance(t, Insert):
            out.append(f"{{{names[t.number - 1]}}}" if t.number <= len(names) else f"%{t.number}")
        else:
            out.append(t)
    return "".join(out).replace("\r\n", "\n").split("\n")


def template_lines(t: Template) -> list[str]:
    lines = []
    for n, item in enumerate(t.properties, 1):
        if isinstance(item, Struct):
            lines.append(f"{n:2}. {item.name}: struct{_extent(item.length, item.count)}")
            lines.extend(f"      {f.name}: {_types(f)}" for f in item.fields)
        else:
            lines.append(f"{n:2}. {item.name}: {_types(item)}")
    return lines or ["(no fields)"]


def _types(f: Field) -> str:
    out = f.out_type_text or (f.in_type.default_out if f.in_type else "")
    text = f"{f.in_type_text} -> {out}" if out else f.in_type_text
    text += _extent(f.length, f.count)
    return text + (f" map={f.map}" if f.map else "")


def _extent(length: int | str | None, count: int | str | None) -> str:
    return (f" length={length}" if length is not None else "") + (
        f" count={count}" if count is not None else ""
    )


def item_text(m: Manifest, node: Level | Task | Opcode | Keyword | Channel) -> str:
    kind = type(node).__name__.lower()
    lines: list[str] = []
    if isinstance(node, Keyword):
        bit = wm.keyword_bit(node.mask)
        lines.append(f"mask 0x{node.mask:X}" + (f" (bit {bit})" if bit is not None else ""))
    elif isinstance(node, Channel):
        lines.append(f"value {node.value}, type {node.type}")
        if node.chid:
            lines.append(f"chid {node.chid}")
        if node.keyword_bit:
            bit = node.keyword_bit.bit_length() - 1
            lines.append(f"keyword bit {bit} (0x{node.keyword_bit:X}) added to its events")
        if node.isolation:
            lines.append(f"isolation {node.isolation}")
        if node.enabled:
            lines.append("enabled")
    else:
        lines.append(f"value {node.value}")
    if isinstance(node, Opcode) and node.task:
        lines.append(f"an opcode of task {node.task} ({node.task_value})")
    if isinstance(node, Task):
        if node.event_guid:
            lines.append(f"eventGUID {{{node.event_guid}}}")
        lines.extend(f"opcode {o.name} = {o.value}" for o in node.opcodes)
    if node.builtin:
        lines.append("predefined by Windows (winmeta.xml)")
    text = m.text(node.message) if node.message else _winmeta_text(kind, node.name)
    if text is not None:
        lines.append(f"message: {text}")
    return f"**{kind}** {_code(node.name)}\n\n" + _block(lines)


def _winmeta_text(kind: str, name: str) -> str | None:
    item = wm.predefined(kind, name) if kind in wm.PREDEFINED else None
    return item.text if item is not None else None


def map_text(m: Manifest, mp: Map) -> str:
    lines = []
    for item in mp.items:
        value = f"0x{item.value:X}" if mp.kind == "bit" else str(item.value)
        lines.append(f"{value:>10}  {m.text(item.message) or ''}".rstrip())
    return f"**{mp.kind}Map** {_code(mp.name)}\n\n" + _block(lines or ["(no items)"])


def string_text(m: Manifest, sid: str) -> str:
    lines = []
    for res in m.resources:
        s = res.strings.get(sid)
        shown = "(missing)" if s is None else s.value
        first, *rest = shown.replace("\r\n", "\n").split("\n")
        lines.append(f"{res.culture}: {first}")
        lines.extend(" " * (len(res.culture) + 2) + r for r in rest)
    if not lines:
        lines.append("(the manifest has no string table)")
    return f"**string** {_code(sid)}\n\n" + _block(lines)


def provider_text(p: Provider) -> str:
    lines = [f"guid {{{str(p.guid).upper()}}}"]
    if p.symbol:
        lines.append(f"symbol {p.symbol}")
    counts = (
        ("events", p.events),
        ("templates", p.templates),
        ("keywords", p.keywords),
        ("tasks", p.tasks),
        ("channels", p.channels),
    )
    lines.append(", ".join(f"{len(items)} {name}" for name, items in counts))
    return f"**provider** {_code(p.name)}\n\n" + _block(lines)


def type_text(attr: str, name: str) -> str:
    if attr == "inType":
        t = wm.in_type(name)
        if t is None:
            return ""
        size = f"{t.size} bytes" if t.size is not None else "variable size"
        outs = ", ".join(t.outs)
        return f"**inType** {_code(t.qname)}\n\n" + _block(
            [f"TDH type {int(t.code)}, {size}", f"outTypes: {outs} (the first by default)"]
        )
    o = wm.out_type(name)
    if o is None:
        return ""
    ins = [t.qname for t in wm.IN_TYPES.values() if o.qname in t.outs]
    return f"**outType** {_code(o.qname)}\n\n" + _block(
        [f"TDH type {o.code}", "for inTypes: " + (", ".join(ins) or "none")]
    )


def _block(lines: Iterable[str]) -> str:
    """A fenced code block, longer-fenced than any backtick run it holds."""
    body = "\n".join(visible(line) for line in lines)
    longest = max((len(r) for r in re.findall(r"`+", body)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}text\n{body}\n{fence}"


def _code(text: str) -> str:
    """Inline code for a manifest name (fenced as :func:`_block` fences)."""
    shown = visible(text)
    longest = max((len(r) for r in re.findall(r"`+", shown)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if shown.startswith("`") or shown.endswith("`") else ""
    return f"{fence}{pad}{shown}{pad}{fence}"
