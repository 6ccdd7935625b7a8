"""A provider's declarations: channels, levels, tasks and their opcodes, opcodes,
keywords, value and bit maps, pattern maps, and traits.

Rules applied here (each reported with its own code):

* Channel values: given, or the next free value from 16 upward in declaration order.
* ``importChannel`` copies a ``win:`` channel (its value and message), or else a channel
  another provider of the manifest defines, matched by name and then by chid, whichever
  provider declares it and wherever; such an import takes the next free value, as mc
  does, not the other provider's.  A name that is neither is an error (``ETW410``).
* Names (of levels, tasks, opcodes, keywords) are kept as written; their QName is
  resolved for matching references.
* A task's ``<opcodes>`` are task-scoped: each records its task's name and value.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lxml import etree

from .. import winmeta as wm
from ..codes import E_UNKNOWN_IMPORT
from ..model import (
    Channel,
    Keyword,
    Level,
    Map,
    MapItem,
    Opcode,
    PatternMap,
    PatternMapItem,
    Task,
    Traits,
)
from ..record import Record
from .attributes import children, local, own_children, parse_bool, parse_int, qname
from .builtin import BUILTINS
from .context import Lowering
from .strings import message_ref

# -- channels ------------------------------------------------------------------


class ChannelList(Record):
    """One ``<channels>`` section: its entries in order, the provider's own channels by
    position (values assigned), and the values its imports of other providers'
    channels take."""

    elems: tuple[etree._Element, ...]
    own: Mapping[int, Channel]
    import_values: Mapping[int, int]


def channel_lists(cx: Lowering, p: etree._Element) -> tuple[ChannelList, ...]:
    """Every ``<channels>`` section of provider ``p``, its own channels read."""
    out = []
    for section in own_children(p, "channels"):
        elems = tuple(c for c in own_children(section) if local(c) in ("channel", "importChannel"))
        own, import_values = _defined(cx, elems)
        out.append(ChannelList(elems, own, import_values))
    return tuple(out)


def channel_sources(lists: Iterable[tuple[ChannelList, ...]]) -> dict[str, Channel]:
    """The channels every provider defines, by name and by chid (first wins), for
    ``importChannel``: it may name a channel of a provider declared later."""
    out: dict[str, Channel] = {}
    for sections in lists:
        for section in sections:
            for ch in section.own.values():
                out.setdefault(ch.name, ch)
                if ch.chid:
                    out.setdefault(ch.chid, ch)
    return out


def channels(
    cx: Lowering, section: ChannelList | None, sources: Mapping[str, Channel]
) -> tuple[Channel, ...]:
    """The provider's ``<channels>`` list in order, imports resolved against ``sources``."""
    if section is None:
        return ()
    own, import_values = section.own, section.import_values
    out: list[Channel] = []
    for i, c in enumerate(section.elems):
        if i in own:
            out.append(own[i])
            continue
        name = c.get("name", "")
        chid = c.get("chid")
        # win: channels take precedence; then another provider's channel whose name
        # or chid is this import's name, then its chid.
        src = (
            BUILTINS.channels.get(name)
            or sources.get(name)
            or (sources.get(chid) if chid else None)
        )
        if src is None:
            cx.error(
                E_UNKNOWN_IMPORT,
                c,
                f'importChannel name="{name}" names neither a win: channel nor a '
                "channel defined by a provider in this manifest",
                attr="name",
                hint="import one of " + ", ".join(wm.CHANNELS),
            )
            out.append(
                Channel(
                    name=name,
                    chid=c.get("chid"),
                    type="Operational",
                    value=0,
                    imported=True,
                    index=i,
                    symbol=c.get("symbol"),
                    span=cx.doc.span(c),
                )
            )
            continue
        builtin = i not in import_values
        out.append(
            Channel(
                name=name,
                chid=c.get("chid"),
                type=src.type,
                value=src.value if builtin else import_values[i],
                symbol=c.get("symbol"),
                message=src.message if builtin else None,
                isolation=src.isolation,
                enabled=src.enabled,
                access=src.access,
                imported=True,
                index=i,
                span=cx.doc.span(c),
            )
        )
    return tuple(out)


def _defined(
    cx: Lowering, elems: tuple[etree._Element, ...]
) -> tuple[dict[int, Channel], dict[int, int]]:
    """The provider's own channels by list position, with values assigned: given, or
    the next free value from 16 upward in declaration order.  An ``importChannel`` of
    a name that is not a ``win:`` channel takes the next free value too (mc does not
    copy the other provider's value), returned in the second mapping."""
    used = {
        v
        for c in elems
        if local(c) == "channel"
        for v in [parse_int(c.get("value"))]
        if v is not None
    }
    next_free = 16
    out: dict[int, Channel] = {}
    imported: dict[int, int] = {}
    for i, c in enumerate(elems):
        if local(c) != "channel":
            if c.get("name", "") not in BUILTINS.channels:
                while next_free in used:
                    next_free += 1
                imported[i] = next_free
                used.add(next_free)
            continue
        value = cx.int_attr(c, "value")
        given = value is not None
        if value is None:
            while next_free in used:
                next_free += 1
            value = next_free
            used.add(value)
        out[i] = Channel(
            name=c.get("name", ""),
            chid=c.get("chid"),
            type=c.get("type", ""),
            value=value,
            value_given=given,
            symbol=c.get("symbol"),
            message=message_ref(cx, c),
            isolation=c.get("isolation"),
            enabled=parse_bool(c.get("enabled")),
            access=c.get("access"),
            index=i,
            span=cx.doc.span(c),
        )
    return out, imported


# -- levels, tasks, opcodes, keywords -------------------------------------------


def level(cx: Lowering, e: etree._Element) -> Level:
    name = e.get("name", "")
    return Level(
        name=name,
        qname=qname(e.nsmap, name),
        value=cx.int_attr(e, "value", 0) or 0,
        symbol=e.get("symbol"),
        message=message_ref(cx, e),
        span=cx.doc.named_span(e, "level"),
    )


def opcode(cx: Lowering, e: etree._Element, task: str | None = None, task_value: int = 0) -> Opcode:
    """A provider's opcode, or one of ``task``'s (given its name and value)."""
    name = e.get("name", "")
    return Opcode(
        name=name,
        qname=qname(e.nsmap, name),
        value=cx.int_attr(e, "value", 0) or 0,
        symbol=e.get("symbol"),
        message=message_ref(cx, e),
        task=task,
        task_value=task_value,
        mof_value=cx.int_attr(e, "mofValue"),
        span=cx.doc.named_span(e, "opcode"),
    )


def task(cx: Lowering, e: etree._Element) -> Task:
    name = e.get("name", "")
    value = cx.int_attr(e, "value", 0) or 0
    symbol = e.get("symbol")
    message = message_ref(cx, e)
    event_guid = cx.guid_attr(e, "eventGUID")
    span = cx.doc.named_span(e, "task")
    return Task(
        name=name,
        qname=qname(e.nsmap, name),
        value=value,
        symbol=symbol,
        message=message,
        event_guid=event_guid,
        opcodes=tuple(
            opcode(cx, o, name, value)
            for oc in children(e, "opcodes")
            for o in children(oc, "opcode")
        ),
        span=span,
    )


def keyword(cx: Lowering, e: etree._Element) -> Keyword:
    name = e.get("name", "")
    return Keyword(
        name=name,
        qname=qname(e.nsmap, name),
        mask=cx.int_attr(e, "mask", 0) or 0,
        symbol=e.get("symbol"),
        message=message_ref(cx, e),
        span=cx.doc.named_span(e, "keyword"),
    )


# -- maps ---------------------------------------------------------------------------


def map_(cx: Lowering, e: etree._Element) -> Map:
    """A ``<valueMap>`` or ``<bitMap>``."""
    items = tuple(
        MapItem(
            value=cx.int_attr(i, "value", 0) or 0,
            message=message_ref(cx, i),
            symbol=i.get("symbol"),
            span=cx.doc.named_span(i, "map"),
        )
        for i in children(e, "map")
    )
    return Map(
        kind="bit" if local(e) == "bitMap" else "value",
        name=e.get("name", ""),
        symbol=e.get("symbol"),
        items=items,
        span=cx.doc.span(e),
    )


def pattern_map(cx: Lowering, e: etree._Element) -> PatternMap:
    items = tuple(
        PatternMapItem(name=i.get("name", ""), value=i.get("value", ""), span=cx.doc.span(i))
        for i in children(e, "map")
    )
    return PatternMap(
        name=e.get("name", ""),
        format=e.get("format", ""),
        symbol=e.get("symbol"),
        items=items,
        span=cx.doc.span(e),
    )


def traits(cx: Lowering, e: etree._Element) -> Traits:
    return Traits(
        group_guid=cx.guid_attr(e, "groupGuid"),
        include_name=parse_bool(e.get("includeName")),
    )
