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
from collections.abc import Iterable, Sequence
from typing import TypeVar

from lxml import etree

from .. import winmeta as wm
from ..diagnostics import Code, Severity, code
from ..model import Channel, Event, Filter, Keyword, Level, Opcode, QName, Task, Template
from .attributes import children, local, parse_bool, qname
from .builtin import BUILTINS
from .context import Lowering
from .strings import message_ref

E_UNKNOWN_LEVEL = code("ETW401", Severity.ERROR, "an event references an undefined level")
E_UNKNOWN_TASK = code("ETW402", Severity.ERROR, "an event references an undefined task")
E_UNKNOWN_OPCODE = code("ETW403", Severity.ERROR, "an event references an undefined opcode")
E_UNKNOWN_KEYWORD = code("ETW404", Severity.ERROR, "an event references an undefined keyword")
E_UNKNOWN_CHANNEL = code("ETW405", Severity.ERROR, "an event references an undefined channel")
E_UNKNOWN_TEMPLATE = code(
    "ETW406", Severity.ERROR, "an event or filter references an undefined template"
)

_Named = TypeVar("_Named", Level, Task, Opcode, Keyword)


class Scope:
    """What an event of one provider may reference."""

    def __init__(
        self,
        levels: tuple[Level, ...],
        tasks: tuple[Task, ...],
        opcodes: tuple[Opcode, ...],
        keywords: tuple[Keyword, ...],
        channels: tuple[Channel, ...],
        templates: tuple[Template, ...],
    ) -> None:
        self.levels: dict[QName, Level] = _first_by_qname(levels)
        self.tasks: dict[QName, Task] = _first_by_qname(tasks)
        self.opcodes: dict[QName, Opcode] = _first_by_qname(opcodes)
        self.keywords: dict[QName, Keyword] = _first_by_qname(keywords)
        self.channels = channels
        self.templates: dict[str, Template] = {}
        for t in templates:
            self.templates.setdefault(t.tid, t)


def _first_by_qname(items: Iterable[_Named]) -> dict[QName, _Named]:
    out: dict[QName, _Named] = {}
    for i in items:
        out.setdefault(i.qname, i)
    return out


def event_elems(section: etree._Element | None) -> Iterable[etree._Element]:
    if section is None:
        return
    for c in children(section):
        if local(c) == "event":
            yield c


def event(cx: Lowering, e: etree._Element, s: Scope) -> Event:
    level = task = opcode = None
    channel = template = None
    unresolved: set[str] = set()
    text = e.get("level")
    if text is not None:
        q = qname(e.nsmap, text)
        level = s.levels.get(q) or (BUILTINS.levels.get(q[1]) if q[0] == wm.WIN_NS else None)
        if level is None:
            unresolved.add("level")
            _unknown(
                cx,
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
        q = qname(e.nsmap, text)
        task = s.tasks.get(q) or (BUILTINS.tasks.get(q[1]) if q[0] == wm.WIN_NS else None)
        if task is None:
            unresolved.add("task")
            _unknown(
                cx,
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
        q = qname(e.nsmap, text)
        if task is not None:
            opcode = next((o for o in task.opcodes if o.qname == q), None)
        if opcode is None:
            opcode = s.opcodes.get(q) or (BUILTINS.opcodes.get(q[1]) if q[0] == wm.WIN_NS else None)
        if opcode is None:
            unresolved.add("opcode")
            scoped = [o.name for o in task.opcodes] if task else []
            _unknown(
                cx,
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
            q = qname(e.nsmap, tok)
            kw = s.keywords.get(q) or (BUILTINS.keywords.get(q[1]) if q[0] == wm.WIN_NS else None)
            if kw is None:
                unresolved.add("keywords")
                _unknown(
                    cx,
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
            _unknown(
                cx,
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
            _unknown(cx, E_UNKNOWN_TEMPLATE, e, "template", text, list(s.templates), None)
    return Event(
        value=cx.int_attr(e, "value", 0) or 0,
        version=cx.int_attr(e, "version", 0) or 0,
        symbol=e.get("symbol"),
        name=e.get("name"),
        attributes=e.get("attributes"),
        message=message_ref(cx, e),
        level=level,
        task=task,
        opcode=opcode,
        keywords=tuple(keywords),
        channel=channel,
        template=template,
        not_logged=parse_bool(e.get("notLogged")),
        unresolved=frozenset(unresolved),
        span=cx.doc.span(e),
    )


def filter_(cx: Lowering, e: etree._Element, s: Scope) -> Filter:
    template = None
    tid = e.get("tid")
    if tid is not None:
        template = s.templates.get(tid.strip())
        if template is None:
            _unknown(cx, E_UNKNOWN_TEMPLATE, e, "tid", tid, list(s.templates), None)
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
    cx: Lowering,
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
    who = f"<{local(e)}"
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
    cx.error(c, e, f"{who} references unknown {what} '{token}'", attr=attr, hint=hint)


def _closest(token: str, known: list[str]) -> str | None:
    m = difflib.get_close_matches(token, known, n=1, cutoff=0.75)
    return m[0] if m else None
