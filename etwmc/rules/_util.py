"""Helpers shared by the rule modules: how elements are named in messages, and the
small lexical facts several rules need."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..model import Event, Field, Filter, Provider, Struct, Template

# Characters a channel or provider name must not contain (besides controls <= 0x1F):
# they are illegal in registry key names, file names or the Event Log's query syntax.
FORBIDDEN_NAME_CHARS = frozenset("><&\"|\\:'?*")


def name_problem(name: str) -> str | None:
    """Why ``name`` is not a legal provider or channel name, or None when it is."""
    if not 1 <= len(name) <= 255:
        return f"its length is {len(name)}; it must be 1 to 255 characters"
    bad = sorted({c for c in name if c in FORBIDDEN_NAME_CHARS or ord(c) <= 0x1F})
    if bad:
        shown = ", ".join(repr(c) if ord(c) > 0x1F else f"U+{ord(c):04X}" for c in bad)
        return f"it contains {shown}"
    return None


def event_label(e: Event) -> str:
    """``<event value="5" version="1"> (Symbol)``: how messages name an event."""
    text = f'<event value="{e.value}"'
    if e.version:
        text += f' version="{e.version}"'
    text += ">"
    ident = e.symbol or e.name
    return f"{text} ({ident})" if ident else text


def filter_label(f: Filter) -> str:
    text = f'<filter name="{f.name}" value="{f.value}"'
    if f.version:
        text += f' version="{f.version}"'
    return text + ">"


def template_label(t: Template) -> str:
    return f'<template tid="{t.tid}">'


def fields_of(t: Template) -> Iterator[Field]:
    """Every ``<data>`` of a template, struct members included, in document order."""
    for item in t.items:
        if isinstance(item, Struct):
            yield from item.fields
        else:
            yield item


def events_by_template(p: Provider) -> dict[str, list[Event]]:
    out: dict[str, list[Event]] = {}
    for e in p.events:
        if e.template is not None:
            out.setdefault(e.template.tid, []).append(e)
    return out


def plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n} {word if n == 1 else words or word + 's'}"


def first_of_each(items: Iterable[tuple[object, object]]) -> dict[object, object]:
    out: dict[object, object] = {}
    for k, v in items:
        out.setdefault(k, v)
    return out
