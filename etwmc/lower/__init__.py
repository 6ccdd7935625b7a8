"""Lowering: a parsed manifest tree → the frozen :mod:`etwmc.model`.

Steps, in order (each module's docstring lists the rules it applies):

1. the ``<localization>`` string tables (:mod:`.strings`): every ``$(string.ID)`` read
   after them is checked against them as it is read;
2. :mod:`.declarations` — the channels every provider defines, which ``importChannel``
   may name from any provider of the manifest;
3. per provider: channels, levels, tasks (with their opcodes), opcodes, keywords, maps
   and pattern maps (:mod:`.declarations`), templates (:mod:`.templates`), then events
   and filters with their references resolved (:mod:`.events`), and traits;
4. the ``<messageTable>`` entries, then what only all the references together tell
   (:func:`.strings.check_string_refs`).

Attribute values are read by :mod:`.attributes` (pure functions); :mod:`.context` holds
a run's diagnostics.  Lowering never raises on bad input: values that cannot be read
fall back to defaults and are reported (``ETW200``) unless the schema already reported
that line.
"""

from __future__ import annotations

import uuid

from lxml import etree

from ..codes import (
    E_BAD_STRREF,
    E_DUP_STRING,
    E_UNKNOWN_CHANNEL,
    E_UNKNOWN_IMPORT,
    E_UNKNOWN_KEYWORD,
    E_UNKNOWN_LEVEL,
    E_UNKNOWN_OPCODE,
    E_UNKNOWN_STRING,
    E_UNKNOWN_TASK,
    E_UNKNOWN_TEMPLATE,
    E_VALUE,
    W_BINARY_NAME,
    W_MISSING_STRING,
)
from ..diagnostics import Diagnostic
from ..model import Channel, Manifest, PatternMap, Provider
from ..parse import Document
from . import declarations as decl
from .attributes import (
    children,
    children_of,
    local,
    own_children,
    parse_bool,
    parse_guid,
    parse_int,
    string_ref,
)
from .builtin import BUILTINS
from .context import Lowering
from .events import Scope, event, filter_
from .strings import check_string_refs, localization, message, message_ref
from .templates import template

__all__ = [
    "BUILTINS",
    "E_BAD_STRREF",
    "E_DUP_STRING",
    "E_UNKNOWN_CHANNEL",
    "E_UNKNOWN_IMPORT",
    "E_UNKNOWN_KEYWORD",
    "E_UNKNOWN_LEVEL",
    "E_UNKNOWN_OPCODE",
    "E_UNKNOWN_STRING",
    "E_UNKNOWN_TASK",
    "E_UNKNOWN_TEMPLATE",
    "E_VALUE",
    "W_BINARY_NAME",
    "W_MISSING_STRING",
    "lower_document",
    "parse_bool",
    "parse_guid",
    "parse_int",
    "string_ref",
]


def lower_document(doc: Document) -> tuple[Manifest, list[Diagnostic]]:
    """The model of ``doc``, and what lowering found wrong (in the order found)."""
    cx = Lowering(doc)
    # The string tables first: every $(string.ID) read after them is checked as read.
    resources, fallback = localization(cx)
    provider_elems = [p for ev in doc.events for p in own_children(ev, "provider")]
    message_elems = [
        m
        for ev in doc.events
        for t in own_children(ev, "messageTable")
        for m in children(t, "message")
    ]
    # Every provider's channels are read first: importChannel may name a channel of a
    # provider declared later.
    channel_lists = [decl.channel_lists(cx, p) for p in provider_elems]
    sources = decl.channel_sources(channel_lists)
    providers = tuple(
        _provider(cx, p, i, lists[0] if lists else None, sources)
        for i, (p, lists) in enumerate(zip(provider_elems, channel_lists, strict=True))
    )
    messages = tuple(message(cx, m) for m in message_elems)
    check_string_refs(cx, resources)
    manifest = Manifest(
        path=doc.path,
        providers=providers,
        messages=messages,
        resources=resources,
        fallback_culture=fallback,
    )
    return manifest, cx.diags


def _provider(
    cx: Lowering,
    p: etree._Element,
    index: int,
    channel_list: decl.ChannelList | None,
    sources: dict[str, Channel],
) -> Provider:
    sections: dict[str, etree._Element] = {}
    for c in own_children(p):
        sections.setdefault(local(c), c)
    channels = decl.channels(cx, channel_list, sources)  # its first <channels> section
    levels = tuple(decl.level(cx, e) for e in children_of(sections.get("levels"), "level"))
    tasks = tuple(decl.task(cx, e) for e in children_of(sections.get("tasks"), "task"))
    opcodes = tuple(decl.opcode(cx, e) for e in children_of(sections.get("opcodes"), "opcode"))
    keywords = tuple(decl.keyword(cx, e) for e in children_of(sections.get("keywords"), "keyword"))
    maps = tuple(
        decl.map_(cx, e)
        for e in children_of(sections.get("maps"), None)
        if local(e) in ("valueMap", "bitMap")
    )
    pmaps: list[PatternMap] = []
    nq = sections.get("namedQueries")
    if nq is not None:
        for pm in own_children(nq, "patternMaps"):
            pmaps.extend(decl.pattern_map(cx, e) for e in children(pm, "patternMap"))
    templates = tuple(template(cx, e) for e in children_of(sections.get("templates"), "template"))
    scope = Scope(levels, tasks, opcodes, keywords, channels, templates)
    events = tuple(event(cx, e, scope) for e in children_of(sections.get("events"), "event"))
    filters = tuple(filter_(cx, e, scope) for e in children_of(sections.get("filters"), "filter"))
    traits_el = sections.get("traits")
    traits = decl.traits(cx, traits_el) if traits_el is not None else None
    guid = cx.guid_attr(p, "guid")
    return Provider(
        name=p.get("name", ""),
        guid=guid or uuid.UUID(int=0),
        symbol=p.get("symbol"),
        resource_file=p.get("resourceFileName"),
        message_file=p.get("messageFileName"),
        parameter_file=p.get("parameterFileName"),
        message=message_ref(cx, p),
        help_link=p.get("helpLink"),
        control_guid=cx.guid_attr(p, "controlGuid"),
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
        span=cx.doc.span(p),
    )
