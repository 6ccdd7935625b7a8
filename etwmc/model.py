"""The manifest model: frozen records (:mod:`etwmc.record`) built once by :mod:`etwmc.lower`.

Every node carries the :class:`~etwmc.diagnostics.Span` of the element it came from.
Names of levels, tasks, opcodes, keywords and filters are kept exactly as written
(``win:Informational``, ``ns1:Level``) because the binary metadata stores them that
way; ``qname`` holds the resolved ``(namespace URI, local name)`` pair references are
matched on.  Built-in ``win:`` items are model nodes too (``builtin=True``), so an
event's references are always plain objects.

Event references (level, task, opcode, keywords, channel, template) are resolved
objects, or ``None`` when the manifest leaves them out (or when they could not be
resolved, which the validator reports as an error).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from types import MappingProxyType
from typing import Literal, TypeAlias

from .diagnostics import NOWHERE, Span
from .record import Record, field, slot_setters
from .winmeta import InType, OutType

QName: TypeAlias = tuple[str, str]  # (namespace URI, local name)
# A count or length: a constant, the name of another field, or absent.
Extent: TypeAlias = int | str | None


class Level(Record, kw_only=True):
    """A ``<level>`` (or a ``win:`` level): a severity, 0 to 255, lower is more severe."""

    name: str
    qname: QName
    value: int
    symbol: str | None = None
    message: str | None = None  # string-table id
    builtin: bool = False
    span: Span = NOWHERE


class Opcode(Record, kw_only=True):
    """An ``<opcode>``, provider-level or declared inside a task (``task`` names it)."""

    name: str
    qname: QName
    value: int
    symbol: str | None = None
    message: str | None = None
    task: str | None = None  # name of the owning task for task-scoped opcodes
    task_value: int = 0
    mof_value: int | None = None
    builtin: bool = False
    span: Span = NOWHERE


class Task(Record, kw_only=True):
    """A ``<task>`` with the opcodes declared inside it."""

    name: str
    qname: QName
    value: int
    symbol: str | None = None
    message: str | None = None
    event_guid: uuid.UUID | None = None
    opcodes: tuple[Opcode, ...] = ()
    builtin: bool = False
    span: Span = NOWHERE


class Keyword(Record, kw_only=True):
    """A ``<keyword>``: a name for one bit of the 64-bit keyword mask."""

    name: str
    qname: QName
    mask: int
    symbol: str | None = None
    message: str | None = None
    builtin: bool = False
    span: Span = NOWHERE


ChannelType: TypeAlias = Literal["Admin", "Operational", "Analytic", "Debug"]


class Channel(Record, kw_only=True):
    """A channel in a provider's ``<channels>`` list, or a ``win:`` channel used directly.

    ``index`` is the position in the provider's list (it decides the channel keyword
    bit, 63 - index); ``None`` for a winmeta channel referenced without being listed.
    """

    name: str
    chid: str | None
    type: str
    value: int
    value_given: bool = True
    symbol: str | None = None
    message: str | None = None
    isolation: str | None = None
    enabled: bool = False
    access: str | None = None
    imported: bool = False
    index: int | None = None
    builtin: bool = False
    span: Span = NOWHERE

    @property
    def keyword_bit(self) -> int:
        """The bit mc adds to the keywords of events written to this channel (0 if none).

        Only the first eight list positions have a bit (56..63); a longer list is an
        error the validator reports."""
        if self.index is None or not 0 <= self.index < 8:
            return 0
        return 1 << (63 - self.index)


class MapItem(Record, kw_only=True):
    """One ``<map>`` entry of a value map or bit map: a value and its message."""

    value: int
    message: str | None
    symbol: str | None = None
    span: Span = NOWHERE


class Map(Record, kw_only=True):
    """A ``<valueMap>`` or ``<bitMap>``, which names an integer field's values."""

    kind: Literal["value", "bit"]
    name: str
    symbol: str | None = None
    items: tuple[MapItem, ...] = ()
    span: Span = NOWHERE


class PatternMapItem(Record, kw_only=True):
    """One ``<map>`` entry of a pattern map: a name and the value put in its place."""

    name: str
    value: str
    span: Span = NOWHERE


class PatternMap(Record, kw_only=True):
    """A ``<patternMap>``: a format string and the values of its ``%`` names."""

    name: str
    format: str
    symbol: str | None = None
    items: tuple[PatternMapItem, ...] = ()
    span: Span = NOWHERE


class Field(Record, kw_only=True):
    """A ``<data>`` item.  ``in_type``/``out_type`` are None only for unknown types
    (reported by the validator); ``out_type`` None with ``out_type_text`` None means
    the outType was left out and the inType's default applies."""

    name: str
    in_type: InType | None
    in_type_text: str
    out_type: OutType | None = None
    out_type_text: str | None = None
    map: str | None = None
    length: Extent = None
    count: Extent = None
    span: Span = NOWHERE

    def __init__(
        self,
        *,
        name: str,
        in_type: InType | None,
        in_type_text: str,
        out_type: OutType | None = None,
        out_type_text: str | None = None,
        map: str | None = None,
        length: Extent = None,
        count: Extent = None,
        span: Span = NOWHERE,
    ) -> None:
        # Written out (etwmc.record): one per <data> of every template.
        s = _FIELD_SLOTS
        s[0](self, name)
        s[1](self, in_type)
        s[2](self, in_type_text)
        s[3](self, out_type)
        s[4](self, out_type_text)
        s[5](self, map)
        s[6](self, length)
        s[7](self, count)
        s[8](self, span)


class Struct(Record, kw_only=True):
    """A ``<struct>`` item of a template: named fields repeated together."""

    name: str
    fields: tuple[Field, ...] = ()
    length: Extent = None
    count: Extent = None
    span: Span = NOWHERE


class XmlNode(Record, kw_only=True):
    """An element of a template's ``<UserData>`` fragment, namespaces resolved."""

    tag: QName
    prefix: str | None = None
    attrs: tuple[tuple[QName, str], ...] = ()
    nsmap: tuple[tuple[str | None, str], ...] = ()  # declarations made on this element
    text: str | None = None
    children: tuple[XmlNode, ...] = ()
    tail: str | None = None

    def __init__(
        self,
        *,
        tag: QName,
        prefix: str | None = None,
        attrs: tuple[tuple[QName, str], ...] = (),
        nsmap: tuple[tuple[str | None, str], ...] = (),
        text: str | None = None,
        children: tuple[XmlNode, ...] = (),
        tail: str | None = None,
    ) -> None:
        # Written out (etwmc.record): one per element of every template's <UserData>.
        s = _XML_NODE_SLOTS
        s[0](self, tag)
        s[1](self, prefix)
        s[2](self, attrs)
        s[3](self, nsmap)
        s[4](self, text)
        s[5](self, children)
        s[6](self, tail)


# The length field mc adds before the data of a template's ``<binary>`` item.
BINARY_LENGTH_FIELD = "__binLength"


class Template(Record, kw_only=True):
    """A ``<template>``.  ``binary`` is the name of its ``<binary name=...>`` item, which
    mc turns into the last two items: ``__binLength`` (win:UInt32), then a win:Binary
    field of that name whose length is ``__binLength``; the event XML shows them as one
    ``<Binary>%n</Binary>`` element (as classic Event Log events show their data)."""

    tid: str
    name: str | None = None
    items: tuple[Field | Struct, ...] = ()
    user_data: XmlNode | None = None
    binary: str | None = None
    span: Span = NOWHERE

    @property
    def properties(self) -> tuple[Field | Struct, ...]:
        """Top-level items in order (the ``%n`` numbering follows these)."""
        return self.items

    def flat_count(self) -> int:
        """Top-level items plus struct members: the number of property entries."""
        return sum(1 + (len(i.fields) if isinstance(i, Struct) else 0) for i in self.items)


class Event(Record, kw_only=True):
    """An ``<event>``, with its level, task, opcode, keywords, channel and template
    resolved (``None`` when left out or unresolved)."""

    value: int
    version: int = 0
    symbol: str | None = None
    name: str | None = None
    attributes: str | None = None
    message: str | None = None
    level: Level | None = None
    task: Task | None = None
    opcode: Opcode | None = None
    keywords: tuple[Keyword, ...] = ()
    channel: Channel | None = None
    template: Template | None = None
    not_logged: bool = False
    # Reference attributes that are written but name nothing (reported by lowering):
    # rules about a missing level, channel, ... must not fire on those.
    unresolved: frozenset[str] = frozenset()
    span: Span = NOWHERE

    def __init__(
        self,
        *,
        value: int,
        version: int = 0,
        symbol: str | None = None,
        name: str | None = None,
        attributes: str | None = None,
        message: str | None = None,
        level: Level | None = None,
        task: Task | None = None,
        opcode: Opcode | None = None,
        keywords: tuple[Keyword, ...] = (),
        channel: Channel | None = None,
        template: Template | None = None,
        not_logged: bool = False,
        unresolved: frozenset[str] = frozenset(),
        span: Span = NOWHERE,
    ) -> None:
        # Written out (etwmc.record): one per <event> of a manifest.
        s = _EVENT_SLOTS
        s[0](self, value)
        s[1](self, version)
        s[2](self, symbol)
        s[3](self, name)
        s[4](self, attributes)
        s[5](self, message)
        s[6](self, level)
        s[7](self, task)
        s[8](self, opcode)
        s[9](self, keywords)
        s[10](self, channel)
        s[11](self, template)
        s[12](self, not_logged)
        s[13](self, unresolved)
        s[14](self, span)

    @property
    def keyword_mask(self) -> int:
        """OR of the event's keyword masks (without the channel bit)."""
        m = 0
        for k in self.keywords:
            m |= k.mask
        return m


class Filter(Record, kw_only=True):
    """A ``<filter>``: data a session may pass to the provider when it enables it."""

    name: str
    qname: QName
    value: int
    version: int = 0
    symbol: str | None = None
    message: str | None = None
    template: Template | None = None
    span: Span = NOWHERE


class Traits(Record, kw_only=True):
    """A provider's ``<traits>``: its provider group and whether its name is included."""

    group_guid: uuid.UUID | None = None
    include_name: bool = False


class Provider(Record, kw_only=True):
    """A ``<provider>`` and everything it declares, in manifest order."""

    name: str
    guid: uuid.UUID
    symbol: str | None = None
    resource_file: str | None = None
    message_file: str | None = None
    parameter_file: str | None = None
    message: str | None = None
    help_link: str | None = None
    control_guid: uuid.UUID | None = None
    namespace: str | None = None
    traits: Traits | None = None
    channels: tuple[Channel, ...] = ()
    levels: tuple[Level, ...] = ()
    tasks: tuple[Task, ...] = ()
    opcodes: tuple[Opcode, ...] = ()  # provider-level opcodes (task-scoped ones live in tasks)
    keywords: tuple[Keyword, ...] = ()
    maps: tuple[Map, ...] = ()
    pattern_maps: tuple[PatternMap, ...] = ()
    templates: tuple[Template, ...] = ()
    events: tuple[Event, ...] = ()
    filters: tuple[Filter, ...] = ()
    index: int = 0  # position in the manifest
    span: Span = NOWHERE
    # Every field with a map= looks its map up by name: a scan of the maps each time
    # made that quadratic (a provider of 50,000 events has thousands of maps).
    _maps_by_name: Mapping[str, Map] = field(init=False)

    def __post_init__(self) -> None:
        by_name: dict[str, Map] = {}
        for m in self.maps:
            by_name.setdefault(m.name, m)  # the first of a name, as references resolve
        object.__setattr__(self, "_maps_by_name", by_name)

    def map_named(self, name: str) -> Map | None:
        """The first map called ``name``, or None."""
        return self._maps_by_name.get(name)

    def all_opcodes(self) -> tuple[Opcode, ...]:
        """Provider-level opcodes followed by every task's opcodes."""
        return self.opcodes + tuple(o for t in self.tasks for o in t.opcodes)


class Message(Record, kw_only=True):
    """An entry of ``<messageTable>``: a string with a fixed message id."""

    value: int
    message: str | None
    symbol: str | None = None
    mid: str | None = None
    span: Span = NOWHERE


class String(Record, kw_only=True):
    """A ``<string>`` of a culture's string table."""

    id: str
    value: str
    span: Span = NOWHERE

    def __init__(self, *, id: str, value: str, span: Span = NOWHERE) -> None:
        # Written out (etwmc.record): one per string of every culture read.
        s = _STRING_SLOTS
        s[0](self, id)
        s[1](self, value)
        s[2](self, span)


_FIELD_SLOTS = slot_setters(Field)
_XML_NODE_SLOTS = slot_setters(XmlNode)
_EVENT_SLOTS = slot_setters(Event)
_STRING_SLOTS = slot_setters(String)

_NO_STRINGS: MappingProxyType[str, String] = MappingProxyType({})


class Resources(Record, kw_only=True):
    """One culture's ``<resources>``: its string table by id."""

    culture: str
    strings: MappingProxyType[str, String] = _NO_STRINGS
    span: Span = NOWHERE


class Manifest(Record, kw_only=True):
    """The instrumentation manifest: its providers, message table entries and cultures."""

    path: str
    providers: tuple[Provider, ...] = ()
    messages: tuple[Message, ...] = ()
    resources: tuple[Resources, ...] = ()
    fallback_culture: str | None = None

    @property
    def primary(self) -> Resources | None:
        """The first culture: the one every string reference must resolve in."""
        return self.resources[0] if self.resources else None

    def text(self, string_id: str | None) -> str | None:
        """The primary culture's text for a string id (None when absent)."""
        if string_id is None or self.primary is None:
            return None
        s = self.primary.strings.get(string_id)
        return s.value if s else None
