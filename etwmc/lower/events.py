"""Events and filters, with the references they make resolved to model nodes.

Rules applied here (each reported with its own code), in mc's lookup order:

* level → the provider's levels, then ``win:`` (``ETW401``);
* task → the provider's tasks, then ``win:None`` (``ETW402``);
* opcode → the event's task's opcodes, then the provider's opcodes, then ``win:``
  (``ETW403``);
* keywords → each token: the provider's keywords, then ``win:`` (``ETW404``);
* channel → the provider's ``<channels>`` list in declaration order, the first whose
  chid *or* name equals the token, then a ``win:`` channel by name (``ETW405``);
* template (and a filter's ``tid``) → the provider's templates by tid (``ETW406``).

Level, task, opcode and keyword tokens are QNames; among declarations with the same
QName the first counts.  An unknown reference is reported with a hint: the closest
known name, else what the provider defines, else a ``win:`` item to use.  The event
keeps every reference that resolved and lists the attributes that did not.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from typing import Generic, TypeVar

from lxml import etree

from ..codes import (
    E_UNKNOWN_CHANNEL,
    E_UNKNOWN_KEYWORD,
    E_UNKNOWN_LEVEL,
    E_UNKNOWN_OPCODE,
    E_UNKNOWN_TASK,
    E_UNKNOWN_TEMPLATE,
    Code,
)
from ..model import Channel, Event, Filter, Keyword, Level, Opcode, QName, Task, Template
from ..record import Record
from .attributes import local, parse_bool, qname
from .builtin import BUILTINS
from .context import Lowering
from .strings import message_ref

_Named = TypeVar("_Named", Level, Task, Opcode, Keyword)
_Key = TypeVar("_Key", QName, str)
_Item = TypeVar("_Item", Level, Task, Opcode, Keyword, Channel, Template)


class Names(Record, Generic[_Key, _Item]):
    """Items a reference may name: looked up by key, listed by name in a hint."""

    by_key: Mapping[_Key, _Item]
    names: Sequence[str]


class Ref(Record, Generic[_Key, _Item]):
    """One kind of reference: the attribute that makes it, the code an unknown one is
    reported with, and the ``win:`` items looked up after the provider's own."""

    attr: str
    code: Code
    builtin: Names[_Key, _Item]
    example: str | None = None  # a win: item to suggest when the provider defines none


def _win(items: Mapping[str, _Named]) -> Names[QName, _Named]:
    return Names({i.qname: i for i in items.values()}, tuple(i.name for i in items.values()))


def _declared(items: Iterable[_Named]) -> Names[QName, _Named]:
    """First declaration per QName; a hint lists the names of those."""
    by_key: dict[QName, _Named] = {}
    for i in items:
        by_key.setdefault(i.qname, i)
    return Names(by_key, tuple(i.name for i in by_key.values()))


LEVEL = Ref("level", E_UNKNOWN_LEVEL, _win(BUILTINS.levels), "win:Informational")
TASK = Ref("task", E_UNKNOWN_TASK, _win(BUILTINS.tasks))
OPCODE = Ref("opcode", E_UNKNOWN_OPCODE, _win(BUILTINS.opcodes), "win:Info")
KEYWORDS = Ref("keywords", E_UNKNOWN_KEYWORD, _win(BUILTINS.keywords))
CHANNEL = Ref("channel", E_UNKNOWN_CHANNEL, Names(BUILTINS.channels, tuple(BUILTINS.channels)))
_NO_TEMPLATES: Names[str, Template] = Names({}, ())
TEMPLATE = Ref("template", E_UNKNOWN_TEMPLATE, _NO_TEMPLATES)
FILTER_TEMPLATE = Ref("tid", E_UNKNOWN_TEMPLATE, _NO_TEMPLATES)


class Scope:
    """What the events and filters of one provider may reference."""

    def __init__(
        self,
        levels: tuple[Level, ...],
        tasks: tuple[Task, ...],
        opcodes: tuple[Opcode, ...],
        keywords: tuple[Keyword, ...],
        channels: tuple[Channel, ...],
        templates: tuple[Template, ...],
    ) -> None:
        self.levels = _declared(levels)
        self.tasks = _declared(tasks)
        self.opcodes = _declared(opcodes)
        self.keywords = _declared(keywords)
        # A resolved task is either the first of its QName here or a win: task (which
        # has no opcodes), so its QName finds its own opcodes.  A hint lists all of a
        # task's opcodes, as written.
        self.task_opcodes = {
            q: Names(_declared(t.opcodes).by_key, tuple(o.name for o in t.opcodes))
            for q, t in self.tasks.by_key.items()
            if t.opcodes
        }
        by_ref: dict[str, Channel] = {}
        for c in channels:
            if c.chid is not None:
                by_ref.setdefault(c.chid, c)
            by_ref.setdefault(c.name, c)
        self.channels = Names(by_ref, tuple(c.chid or c.name for c in channels))
        by_tid: dict[str, Template] = {}
        for t in templates:
            by_tid.setdefault(t.tid, t)
        self.templates = Names(by_tid, tuple(by_tid))


def resolve(
    cx: Lowering,
    e: etree._Element,
    ref: Ref[_Key, _Item],
    token: str,
    key: _Key,
    scopes: Sequence[Names[_Key, _Item]],
    unresolved: set[str] | None = None,
) -> _Item | None:
    """What ``key`` (written as ``token``) names: the first of ``scopes`` that has it,
    then ``ref``'s ``win:`` items.  None when nothing does, which is reported, and
    ``ref``'s attribute added to ``unresolved``."""
    for names in scopes:
        found = names.by_key.get(key)
        if found is not None:
            return found
    found = ref.builtin.by_key.get(key)
    if found is not None:
        return found
    if unresolved is not None:
        unresolved.add(ref.attr)
    _unknown(cx, e, ref, token, [n for names in scopes for n in names.names])
    return None


def event(cx: Lowering, e: etree._Element, s: Scope) -> Event:
    # One event of a manifest of thousands: each attribute is read once through the
    # bound getter.
    get = e.get
    level = task = opcode = None
    channel = template = None
    unresolved: set[str] = set()
    level_text = get("level")
    task_text = get("task")
    opcode_text = get("opcode")
    keywords_text = get("keywords")
    # lxml builds nsmap anew from every ancestor on each access: read it once, and
    # only when a QName is written.
    nsmap = (
        e.nsmap
        if level_text is not None
        or task_text is not None
        or opcode_text is not None
        or keywords_text is not None
        else _NO_NSMAP
    )
    if level_text is not None:
        key = qname(nsmap, level_text)
        level = resolve(cx, e, LEVEL, level_text, key, (s.levels,), unresolved)
    if task_text is not None:
        key = qname(nsmap, task_text)
        task = resolve(cx, e, TASK, task_text, key, (s.tasks,), unresolved)
    if opcode_text is not None:
        own = s.task_opcodes.get(task.qname) if task is not None else None
        scopes = (s.opcodes,) if own is None else (own, s.opcodes)
        key = qname(nsmap, opcode_text)
        opcode = resolve(cx, e, OPCODE, opcode_text, key, scopes, unresolved)
    keywords: tuple[Keyword, ...] = ()
    if keywords_text is not None:
        found: list[Keyword] = []
        for tok in keywords_text.split():
            key = qname(nsmap, tok)
            kw = resolve(cx, e, KEYWORDS, tok, key, (s.keywords,), unresolved)
            if kw is not None:
                found.append(kw)
        keywords = tuple(found)
    text = get("channel")
    if text is not None:
        tok = text.strip()
        channel = resolve(cx, e, CHANNEL, tok, tok, (s.channels,), unresolved)
    text = get("template")
    if text is not None:
        template = resolve(cx, e, TEMPLATE, text, text.strip(), (s.templates,), unresolved)
    return Event(
        value=cx.number(e, "value", get("value")),
        version=cx.number(e, "version", get("version")),
        symbol=get("symbol"),
        name=get("name"),
        attributes=get("attributes"),
        message=message_ref(cx, e),
        level=level,
        task=task,
        opcode=opcode,
        keywords=keywords,
        channel=channel,
        template=template,
        not_logged=parse_bool(get("notLogged")),
        unresolved=frozenset(unresolved) if unresolved else _NONE_UNRESOLVED,
        span=cx.doc.named_span(e, "event"),
    )


_NO_NSMAP: Mapping[str | None, str] = {}
_NONE_UNRESOLVED: frozenset[str] = frozenset()


def filter_(cx: Lowering, e: etree._Element, s: Scope) -> Filter:
    tid = e.get("tid")
    template = None
    if tid is not None:
        template = resolve(cx, e, FILTER_TEMPLATE, tid, tid.strip(), (s.templates,))
    name = e.get("name", "")
    return Filter(
        name=name,
        qname=qname(e.nsmap, name),
        value=cx.int_attr(e, "value", 0) or 0,
        version=cx.int_attr(e, "version", 0) or 0,
        symbol=e.get("symbol"),
        message=message_ref(cx, e),
        template=template,
        span=cx.doc.span(e),
    )


def _unknown(
    cx: Lowering, e: etree._Element, ref: Ref[_Key, _Item], token: str, known: list[str]
) -> None:
    attr = ref.attr
    what = {"tid": "template"}.get(attr, attr.rstrip("s"))
    ident = e.get("symbol") or e.get("name")
    who = f"<{local(e)}"
    if e.get("value") is not None:
        who += f' value="{e.get("value")}"'
        if e.get("version") not in (None, "0"):
            who += f' version="{e.get("version")}"'
    who += ">" + (f" ({ident})" if ident else "")
    close = _closest(token, [*known, *ref.builtin.names])
    if close:
        hint = f"did you mean '{close}'?"
    elif known:
        shown = ", ".join(known[:8]) + (", ..." if len(known) > 8 else "")
        hint = f"this provider defines: {shown}"
    elif ref.example:
        hint = f"define it in the provider, or use a win: {what} such as {ref.example}"
    else:
        hint = f"define the {what} in the provider"
    cx.error(ref.code, e, f"{who} references unknown {what} '{token}'", attr=attr, hint=hint)


def _closest(token: str, known: list[str]) -> str | None:
    m = difflib.get_close_matches(token, known, n=1, cutoff=0.75)
    return m[0] if m else None
