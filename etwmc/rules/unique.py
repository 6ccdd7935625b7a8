"""Uniqueness (ETW302-ETW399).

Each kind of item is looked up by its keys, so two items sharing a key make lookups
ambiguous (and mc rejects the manifest).  Keys, per provider unless stated:

* providers (across the manifest): name (case-insensitive, as ETW looks names up),
  guid, symbol;
* events: (id, version); symbol;
* channels: name, chid, value, symbol (imported channels included: importing the same
  channel twice is a duplicate too);
* levels, provider-level opcodes, tasks, keywords: name, value (mask), symbol; tasks
  also eventGUID;
* task-scoped opcodes: name and value within their task (they may share values with
  provider-level opcodes or with other tasks' opcodes);
* maps: name, symbol; within one map, item value and item symbol;
* pattern maps: name, symbol; within one pattern map, item name;
* templates: tid, name; within a template and within each struct, data/struct names;
* filters: name, (value, version), symbol;
* messageTable: symbol (two entries with one value are two strings with one message
  id, which ETW651 reports when their texts differ).

Message ids after assignment are checked where they are assigned,
:func:`etwmc.msgids.assign_message_ids` (ETW650, ETW651); the rule
:func:`message_ids` reports its findings during validation too.

Symbols are compared as written: they become C identifiers in the same namespace.
Each duplicate is reported at the second (and later) occurrence, naming the line of
the first.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterable, Iterator, Sequence
from typing import TypeVar

from .. import msgids
from ..codes import (
    E_DUP_CHANNEL,
    E_DUP_EVENT,
    E_DUP_EVENT_SYMBOL,
    E_DUP_FIELD,
    E_DUP_FILTER,
    E_DUP_KEYWORD,
    E_DUP_LEVEL,
    E_DUP_MAP,
    E_DUP_MAP_ITEM,
    E_DUP_MESSAGE,
    E_DUP_OPCODE,
    E_DUP_PATTERN_MAP,
    E_DUP_PROVIDER,
    E_DUP_TASK,
    E_DUP_TASK_OPCODE,
    E_DUP_TEMPLATE,
    Code,
)
from ..diagnostics import Diagnostic, Span, diag
from ..model import Field, Manifest, Struct, Template
from ._util import event_label

T = TypeVar("T")


def _dups(
    c: Code,
    items: Iterable[T],
    key: Callable[[T], Hashable | None],
    span: Callable[[T], Span],
    message: Callable[[T, Span], str],
    *,
    attr: str | None = None,
    hint: str | None = None,
) -> Iterator[Diagnostic]:
    """One diagnostic per item whose key (when not None) an earlier item already has."""
    first: dict[Hashable, T] = {}
    for item in items:
        k = key(item)
        if k is None:
            continue
        earlier = first.get(k)
        if earlier is None:
            first[k] = item
        else:
            yield diag(c, span(item), message(item, span(earlier)), attr=attr, hint=hint)


def _at(s: Span) -> str:
    return f"line {s.line}" if s.line else "elsewhere"


def _named(
    c: Code,
    kind: str,
    items: Sequence[T],
    keys: Sequence[tuple[str, Callable[[T], Hashable | None], Callable[[T], str]]],
    span: Callable[[T], Span],
    label: Callable[[T], str],
) -> Iterator[Diagnostic]:
    """Duplicates of several keys of one kind of item: (what the key is, key, shown
    value).  The diagnostic points at the attribute the key's first word names."""
    for what, key, shown in keys:
        yield from _dups(
            c,
            items,
            key,
            span,
            lambda i, s, what=what, shown=shown: (  # type: ignore[misc]
                f"{label(i)} has the same {what} {shown(i)} as the {kind} at {_at(s)}"
            ),
            attr=what.split()[0],
            hint=f"give each {kind} a unique {what}",
        )


def _symbol(x: object) -> str | None:
    s = getattr(x, "symbol", None)
    return s if s else None


def providers(m: Manifest) -> Iterator[Diagnostic]:
    ps = m.providers
    label = lambda p: f'<provider name="{p.name}">'  # noqa: E731
    yield from _named(
        E_DUP_PROVIDER,
        "provider",
        ps,
        [
            ("name", lambda p: p.name.casefold() or None, lambda p: f"'{p.name}' (ignoring case)"),
            ("guid", lambda p: p.guid if p.guid.int else None, lambda p: f"{{{p.guid}}}"),
            ("symbol", _symbol, lambda p: f"'{p.symbol}'"),
        ],
        lambda p: p.span,
        label,
    )


def events(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        yield from _dups(
            E_DUP_EVENT,
            p.events,
            lambda e: (e.value, e.version),
            lambda e: e.span,
            lambda e, s: (
                f"{event_label(e)} has the same id {e.value} and version {e.version} "
                f"as the event at {_at(s)}"
            ),
            attr="value",
            hint="give the new event another id, or raise its version",
        )
        yield from _dups(
            E_DUP_EVENT_SYMBOL,
            p.events,
            _symbol,
            lambda e: e.span,
            lambda e, s: f"{event_label(e)} has the same symbol as the event at {_at(s)}",
            attr="symbol",
            hint="give each event a unique symbol (it names the generated code)",
        )


def channels_levels_tasks_keywords(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        chans = p.channels
        yield from _named(
            E_DUP_CHANNEL,
            "channel",
            chans,
            [
                ("name", lambda c: c.name or None, lambda c: f"'{c.name}'"),
                ("chid", lambda c: c.chid or None, lambda c: f"'{c.chid}'"),
                ("symbol", _symbol, lambda c: f"'{c.symbol}'"),
            ],
            lambda c: c.span,
            lambda c: f'<{"importChannel" if c.imported else "channel"} name="{c.name}">',
        )
        yield from _dups(
            E_DUP_CHANNEL,
            [c for c in chans if not c.imported],
            lambda c: c.value,
            lambda c: c.span,
            lambda c, s: (
                f'<channel name="{c.name}"> has the same value {c.value} as the channel at {_at(s)}'
            ),
            attr="value",
            hint="leave value out to have one assigned, or pick another value",
        )
        yield from _named(
            E_DUP_LEVEL,
            "level",
            p.levels,
            [
                ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                ("value", lambda x: x.value, lambda x: str(x.value)),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<level name="{x.name}">',
        )
        yield from _named(
            E_DUP_OPCODE,
            "opcode",
            p.opcodes,
            [
                ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                ("value", lambda x: x.value, lambda x: str(x.value)),
            ],
            lambda x: x.span,
            lambda x: f'<opcode name="{x.name}">',
        )
        # Symbols of task-scoped opcodes share the C namespace with every other opcode.
        yield from _named(
            E_DUP_OPCODE,
            "opcode",
            p.all_opcodes(),
            [
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<opcode name="{x.name}">',
        )
        yield from _named(
            E_DUP_TASK,
            "task",
            p.tasks,
            [
                ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                ("value", lambda x: x.value, lambda x: str(x.value)),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
                (
                    "eventGUID",
                    lambda x: x.event_guid if x.event_guid and x.event_guid.int else None,
                    lambda x: f"{{{x.event_guid}}}",
                ),
            ],
            lambda x: x.span,
            lambda x: f'<task name="{x.name}">',
        )
        for t in p.tasks:
            yield from _named(
                E_DUP_TASK_OPCODE,
                f"opcode of task '{t.name}'",
                t.opcodes,
                [
                    ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                    ("value", lambda x: x.value, lambda x: str(x.value)),
                ],
                lambda x: x.span,
                lambda x: f'<opcode name="{x.name}">',
            )
        yield from _named(
            E_DUP_KEYWORD,
            "keyword",
            p.keywords,
            [
                ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                ("mask", lambda x: x.mask, lambda x: f"0x{x.mask:X}"),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<keyword name="{x.name}">',
        )


def maps(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        yield from _named(
            E_DUP_MAP,
            "map",
            p.maps,
            [
                ("name", lambda x: x.name or None, lambda x: f"'{x.name}'"),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<{x.kind}Map name="{x.name}">',
        )
        for mp in p.maps:
            label = f'<{mp.kind}Map name="{mp.name}">'
            yield from _dups(
                E_DUP_MAP_ITEM,
                mp.items,
                lambda i: i.value,
                lambda i: i.span,
                lambda i, s, label=label: (  # type: ignore[misc]
                    f"{label} has two items with value 0x{i.value:X} ({i.value}); the other is at "
                    f"{_at(s)}"
                ),
                attr="value",
                hint="each value of a map has one text; remove one of the items",
            )
            yield from _dups(
                E_DUP_MAP_ITEM,
                mp.items,
                _symbol,
                lambda i: i.span,
                lambda i, s, label=label: (  # type: ignore[misc]
                    f"{label} has two items with symbol '{i.symbol}'; the other is at {_at(s)}"
                ),
                attr="symbol",
                hint="give each item a unique symbol",
            )
        yield from _named(
            E_DUP_PATTERN_MAP,
            "pattern map",
            p.pattern_maps,
            [
                ("name", lambda x: x.name or None, lambda x: f"'{x.name}'"),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<patternMap name="{x.name}">',
        )
        for pm in p.pattern_maps:
            yield from _dups(
                E_DUP_PATTERN_MAP,
                pm.items,
                lambda i: i.name or None,
                lambda i: i.span,
                lambda i, s, pm=pm: (  # type: ignore[misc]
                    f"<patternMap name=\"{pm.name}\"> has two items named '{i.name}'; the other is "
                    f"at {_at(s)}"
                ),
                attr="name",
                hint="give each item of a pattern map a unique name",
            )


def templates(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        yield from _named(
            E_DUP_TEMPLATE,
            "template",
            p.templates,
            [
                ("tid", lambda x: x.tid or None, lambda x: f"'{x.tid}'"),
                ("name", lambda x: x.name or None, lambda x: f"'{x.name}'"),
            ],
            lambda x: x.span,
            lambda x: f'<template tid="{x.tid}">',
        )
        for t in p.templates:
            yield from _field_names(t)


def _field_names(t: Template) -> Iterator[Diagnostic]:
    yield from _field_dups(t, None, t.items)
    for s in t.items:
        if isinstance(s, Struct):
            yield from _field_dups(t, s, s.fields)


def _field_dups(
    t: Template, struct: Struct | None, items: Sequence[Field | Struct]
) -> Iterator[Diagnostic]:
    """Items of one scope (a template's top level, or a struct) that share a name.
    Every template of a manifest is read here, and most have a few items with distinct
    names: the scope's label is made only for a duplicate."""
    first: dict[str, Field | Struct] = {}
    for i in items:
        if not i.name:
            continue
        earlier = first.get(i.name)
        if earlier is None:
            first[i.name] = i
        else:
            label = (
                f'<template tid="{t.tid}">'
                if struct is None
                else f"<struct name=\"{struct.name}\"> of template '{t.tid}'"
            )
            yield diag(
                E_DUP_FIELD,
                i.span,
                f"{label} has two items named '{i.name}'; the other is at {_at(earlier.span)}",
                attr="name",
                hint="give each data item a unique name (it names the event's field)",
            )


def filters(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        yield from _named(
            E_DUP_FILTER,
            "filter",
            p.filters,
            [
                ("name", lambda x: x.qname, lambda x: f"'{x.name}'"),
                (
                    "value and version",
                    lambda x: (x.value, x.version),
                    lambda x: f"{x.value}/{x.version}",
                ),
                ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
            ],
            lambda x: x.span,
            lambda x: f'<filter name="{x.name}">',
        )


def message_table(m: Manifest) -> Iterator[Diagnostic]:
    yield from _named(
        E_DUP_MESSAGE,
        "message",
        m.messages,
        [
            ("symbol", _symbol, lambda x: f"'{x.symbol}'"),
        ],
        lambda x: x.span,
        lambda x: f'<message value="{x.value}">',
    )


def message_ids(m: Manifest) -> list[Diagnostic]:
    """Two strings with different texts and the same message id (a ``<messageTable>``
    value equal to an automatic one, or opcodes of tasks whose values share their low 8
    bits; one text under one id is no conflict), and
    providers past the 16th that need ids mc would not assign: reported by the one
    implementation of mc's id assignment, so ``lint`` and ``compile`` agree."""
    return list(msgids.message_ids(m).diagnostics)
