"""Turn a trace's records into decoded events, and count what was decoded.

Every record becomes one :class:`~etwmc.decode.event.Event` (written out as the JSON
Lines of docs/json-lines.md), by its kind:

- a classic (kernel or MOF) record passes through, ``kind: classic``;
- an event with a TraceLogging schema item decodes with that schema;
- an EventSource's manifest event (id 0xFFFE, opcode 254) adds its provider's in-band
  manifest once all its chunks are in (:mod:`.inband`); later events of that provider
  decode with it;
- any other event decodes with the metadata given (manifests, TEMP.BIN, DLLs).

``decoded`` is true when metadata was found and held the payload (bytes after the
described fields are ``trailing_bytes``, as TDH reports them).  An event whose metadata
does not fit gets an ``error``; one without metadata neither: the summary counts why.

What every record of one provider and descriptor shares is worked out once, as a
:class:`Route`: its event head, how it decodes, its metadata and its count.
:meth:`TraceDecoder.json_lines` writes a record that passes through (a
:class:`~.etl.PassRecord`) straight from the record, without an Event, by a line writer
per kind; the lines are the ones :meth:`TraceDecoder.events` and
:class:`~.jsonline.JsonLines` write (tests/test_decode_jsonlines.py holds them to it).
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import NamedTuple

from ..diagnostics import Diagnostic
from ..eventdescriptor import EventDescriptor
from ..guid import provider_guid
from ..model import Event as ModelEvent
from ..model import Manifest, Provider
from .counts import (
    CLASSIC_REASON,
    OVERSIZED_REASON,
    ProviderCount,
    pass_through,
    provider_count,
    tally,
)
from .etl import PassKind, PassRecord, Record, pass_kind
from .event import KINDS, Event, EventHead
from .eventsource import EnvelopeError, is_manifest_event, parse_envelope
from .inband import InbandManifests
from .jsonline import BareLine, JsonLines, encode
from .payload import DecodeError, Decoder
from .plan import JsonPlan, write_json
from .tracelogging import TlEvent, decode_payload, parse_event, provider_name

__all__ = ["KINDS", "MAX_EVENT_JSON", "Route", "TraceDecoder"]

MAX_SCHEMA_BYTES = 4 << 20  # TraceLogging schemas kept parsed; more are parsed again
MAX_CACHED = 65536  # provider GUID texts and event metadata kept; more are made again
MAX_NAMES = 65536  # provider names learnt from TraceLogging traits; more are not kept
# routes kept (a real trace has a few hundred descriptors); more are made again per
# record, so a hostile trace's many descriptors cost time, not memory
MAX_ROUTES = 4096
MAX_NAME = 1024  # characters of a TraceLogging event name whose head is kept
MAX_EVENT_JSON = 1 << 20  # characters of one event's fields; larger fields become an error

_new = tuple.__new__
# how a route's records decode
PASS, METADATA, MANIFEST_EVENT = 0, 1, 2

_EventMeta = tuple[Decoder, Provider, ModelEvent]


def _too_large(size: int) -> str:
    return (
        f"the event's fields take {size} characters of JSON, more than the "
        f"{MAX_EVENT_JSON} one event may write"
    )


def _count_pass(c: ProviderCount, name: str | None) -> None:
    """Count a record that passes through (see :func:`~.counts.pass_through`)."""
    c.passed += 1
    if name:
        c.name = name


def _task_opcode(event: ModelEvent) -> str | None:
    """An unnamed event's name as decoders show it: its task's and opcode's names
    (EventSource manifests name events only this way; a TEMP.BIN keeps no symbol)."""
    names = [x.name for x in (event.task, event.opcode) if x is not None]
    parts = [n.split(":")[-1] for n in names if n not in ("win:Info", "win:None")]
    return "".join(parts) or None


class Route(NamedTuple):
    """What every record of one provider and descriptor shares: the head of its events,
    how they decode, their metadata, their count (None: a provider not asked for), and
    why they are not decoded when that is known before decoding."""

    head: EventHead
    how: int  # PASS, METADATA or MANIFEST_EVENT
    meta: _EventMeta | None
    counter: ProviderCount | None
    reason: str | None
    plan: JsonPlan | None = None  # how the payload is written to JSON, when it can be


class TraceDecoder:
    """Decodes records one at a time; ``counts`` and ``diagnostics`` grow as it goes."""

    def __init__(
        self,
        manifests: Sequence[Manifest] = (),
        *,
        providers: Iterable[str] = (),
        label: str = "<trace>",
    ) -> None:
        self.label = label
        self._counts: dict[str, ProviderCount] = {}
        self.diagnostics: list[Diagnostic] = []
        self.misfits = 0  # events whose metadata or schema does not fit their payload
        self.oversized = 0  # events whose fields were replaced by an error for their size
        self._decoders: dict[uuid.UUID, Decoder] = {}  # by provider GUID
        self._names: dict[bytes, str] = {}  # provider names, by raw GUID
        self._eventsource: set[bytes] = set()  # providers described in-band
        # by provider, descriptor and whether the record is classic
        self._routes: dict[tuple[bytes, object, bool], Route] = {}
        self._pass_routes: dict[PassKind, Route] = {}  # by pass record kind
        self._epoch = 0  # how many times routes were forgotten (provider names changed)
        self._inband = InbandManifests(label, self.diagnostics)
        self._schemas: dict[bytes, TlEvent | DecodeError] = {}  # parsed TraceLogging schemas
        self._schema_bytes = 0
        self._tl_heads: dict[EventHead, EventHead] = {}  # TraceLogging heads, one of each
        self._guid_text: dict[bytes, str | None] = {}  # provider GUIDs as text
        # each event's metadata (None: none), by provider, id and version
        self._metadata: dict[tuple[bytes, int, int], _EventMeta | None] = {}
        self._want_guids: set[str] = set()
        self._want_names: set[str] = set()
        self._asked: dict[str, tuple[str, ...]] = {}  # each --provider: the keys it matches
        self._matched: set[str] = set()  # keys an event matched
        for m in manifests:
            self._add(m, eventsource=False)
        for p in providers:
            text = p.strip().strip("{}").lower()
            try:
                self._want_guids.add(str(uuid.UUID(text)))
                self._asked[p] = (str(uuid.UUID(text)),)
            except ValueError:
                self._want_names.add(p.lower())
                self._want_guids.add(str(provider_guid(p)))  # an EventSource's name
                self._asked[p] = (p.lower(), str(provider_guid(p)))
        self._want = bool(self._asked)

    # ------------------------------------------------------------------ metadata

    def _add(self, manifest: Manifest, *, eventsource: bool) -> list[bytes]:
        dec = Decoder(manifest)
        added = []
        for p in manifest.providers:
            for g in (p.guid, p.control_guid):
                if g is not None:
                    self._decoders[g] = dec
                    self._set_name(g.bytes_le, p.name)
                    added.append(g.bytes_le)
                    if eventsource:
                        self._eventsource.add(g.bytes_le)
        self._metadata.clear()  # events looked up before this manifest may be in it
        return added

    @property
    def counts(self) -> dict[str, ProviderCount]:
        """Events seen per provider (GUID text, or "(none)"), so far."""
        for c in self._counts.values():
            c.settle()
        return self._counts

    def _set_name(self, raw: bytes, name: str) -> None:
        self._names[raw] = name
        self._routes.clear()  # their heads hold provider names
        self._pass_routes.clear()
        self._epoch += 1
        self._tl_heads.clear()

    def _meta(self, raw: bytes, event_id: int, version: int) -> _EventMeta | None:
        key = (raw, event_id, version)
        if key in self._metadata:
            return self._metadata[key]
        dec = self._decoders.get(uuid.UUID(bytes_le=raw)) if len(raw) == 16 else None
        found = dec.lookup(uuid.UUID(bytes_le=raw), event_id, version) if dec else None
        meta = None if dec is None or found is None else (dec, *found)
        if len(self._metadata) < MAX_CACHED:
            self._metadata[key] = meta
        return meta

    def _provider_text(self, raw: bytes) -> str | None:
        if raw in self._guid_text:
            return self._guid_text[raw]
        guid = str(uuid.UUID(bytes_le=raw)) if len(raw) == 16 else None
        if len(self._guid_text) < MAX_CACHED:
            self._guid_text[raw] = guid
        return guid

    def _wanted(self, guid: str | None, name: str | None) -> bool:
        if not self._want:
            return True
        if guid is not None and guid in self._want_guids:
            self._matched.add(guid)
            return True
        if name is not None and name.lower() in self._want_names:
            self._matched.add(name.lower())
            return True
        return False

    def unmatched(self) -> list[str]:
        """The providers asked for (as given) that no event matched."""
        return [p for p, keys in self._asked.items() if not self._matched.intersection(keys)]

    # ------------------------------------------------------------------ events

    def json_lines(
        self, records: Iterable[Record | PassRecord], lines: JsonLines | None = None
    ) -> Iterator[str]:
        """The events as JSON lines (written by ``lines``: no line breaks unless it
        says so).  A :class:`~.etl.PassRecord` is written straight from its kind's line
        writer, without an :class:`Event`: most of a trace is kernel records, and this
        takes about half the time of making an event and writing it."""
        lines = lines or JsonLines()
        line = lines.line
        bare_line = lines.bare_line
        # by pass record kind: the count, provider name and line writer of its route
        writers: dict[PassKind, tuple[ProviderCount | None, str | None, BareLine]] = {}
        epoch = self._epoch
        for rec in records:
            if isinstance(rec, PassRecord):
                kind, t, pid, tid = rec
                found = writers.get(kind)
                if found is None:
                    route = self._pass_route(kind)
                    found = (route.counter, route.head.provider_name, bare_line(route.head))
                    if len(writers) < MAX_ROUTES:
                        writers[kind] = found
                c, name, write = found
                if c is not None:  # else a provider not asked for
                    _count_pass(c, name)
                    yield write(t, pid, tid)
                continue
            ev = self.event(rec)
            if self._epoch != epoch:  # the event named a provider: routes changed
                writers.clear()
                epoch = self._epoch
            if ev is not None:
                yield line(ev)

    def events(self, records: Iterable[Record | PassRecord]) -> Iterator[Event]:
        """The decoded events, in trace order (of the providers asked for)."""
        for rec in records:
            if not isinstance(rec, PassRecord):
                ev = self.event(rec)
                if ev is not None:
                    yield ev
                continue
            route = self._pass_route(rec.kind)
            c = route.counter
            if c is not None:
                _count_pass(c, route.head.provider_name)
                yield _new(
                    Event,
                    (route.head, rec.time, rec.pid, rec.tid, b"", b"", False, None, None, 0,
                     None, None),
                )  # fmt: skip

    def event(self, rec: Record) -> Event | None:
        """The record's event, or None when its provider was not asked for."""
        if rec.schema:
            return self._tracelogging(rec)
        key = (rec.provider, rec.descriptor, rec.classic)
        route = self._routes.get(key)
        if route is None:
            route = self._route(rec)
            if len(self._routes) < MAX_ROUTES:
                self._routes[key] = route
        c = route.counter
        if c is None:
            return None  # a provider not asked for
        how = route.how
        if how == PASS:
            _count_pass(c, route.head.provider_name)
            return self._failed(rec, route.head, None)
        if how == METADATA:
            return self._with_metadata(rec, route, c)
        return self._manifest_event(rec, route, c)

    def _pass_route(self, kind: PassKind) -> Route:
        route = self._pass_routes.get(kind)
        if route is None:
            route = self._classic_route(*pass_kind(kind))
            if len(self._pass_routes) < MAX_ROUTES:
                self._pass_routes[kind] = route
        return route

    def _classic_route(self, provider: bytes, d: EventDescriptor) -> Route:
        guid = self._provider_text(provider)
        name = self._names.get(provider)
        counter = None
        if self._wanted(guid, name):
            counter = provider_count(self._counts, guid or "(none)")
            pass_through(counter)
        head = EventHead(guid, name, None, d, "classic")
        return Route(head, PASS, None, counter, CLASSIC_REASON)

    def _route(self, rec: Record) -> Route:
        d = rec.descriptor
        if rec.classic:
            return self._classic_route(rec.provider, d)
        guid = self._provider_text(rec.provider)
        name = self._names.get(rec.provider)
        counter = None
        if self._wanted(guid, name):
            counter = provider_count(self._counts, guid or "(none)")
        if is_manifest_event(d.id, d.opcode):
            head = EventHead(guid, name, "ManifestData", d, "eventsource")
            return Route(head, MANIFEST_EVENT, None, counter, None)
        kind = "eventsource" if rec.provider in self._eventsource else "manifest"
        meta = self._meta(rec.provider, d.id, d.version)
        if meta is None:
            reason = "no metadata for the provider"
            if len(rec.provider) == 16 and uuid.UUID(bytes_le=rec.provider) in self._decoders:
                reason = f"event {d.id} v{d.version} is not in the provider's metadata"
            return Route(EventHead(guid, name, None, d, kind), METADATA, None, counter, reason)
        dec, _, event = meta
        event_name = event.name or _task_opcode(event) or event.symbol
        head = EventHead(guid, name, event_name, d, kind)
        return Route(head, METADATA, meta, counter, None, dec.json_plan(event))

    def _finish(
        self,
        rec: Record,
        head: EventHead,
        c: ProviderCount,
        fields: str,
        *,
        message: str | None = None,
        values: dict[str, object] | None = None,
        trailing: int = 0,
    ) -> Event:
        """A decoded event, or the error of fields too large to write; counted."""
        if len(fields) > MAX_EVENT_JSON:
            self.oversized += 1
            c.oversized += 1
            tally(c, head.kind, head.provider_name, OVERSIZED_REASON)
            return self._failed(rec, head, _too_large(len(fields)))
        if trailing:
            c.trailing += 1
        tally(c, head.kind, head.provider_name, None)
        return _new(
            Event,
            (head, rec.time, rec.pid, rec.tid, rec.activity, rec.related, True, message,
             fields, trailing, None, values),
        )  # fmt: skip

    def _failed(self, rec: Record, head: EventHead, error: str | None) -> Event:
        return _new(
            Event,
            (head, rec.time, rec.pid, rec.tid, rec.activity, rec.related, False, None,
             None, 0, error, None),
        )  # fmt: skip

    def _misfit(
        self, rec: Record, head: EventHead, c: ProviderCount, error: str, why: str
    ) -> Event:
        self.misfits += 1
        tally(c, head.kind, head.provider_name, why)
        return self._failed(rec, head, error)

    def _with_metadata(self, rec: Record, route: Route, c: ProviderCount) -> Event:
        head = route.head
        if route.meta is None:
            tally(c, head.kind, head.provider_name, route.reason)
            return self._failed(rec, head, None)
        dec, provider, event = route.meta
        data = rec.data
        try:
            plan = route.plan
            quick = None if plan is None else write_json(plan, data, rec.pointer_size)
            if quick is not None:
                fields, used = quick
                message = None
                values = None
            else:  # the general reader: it also says why a payload does not fit
                values, message, used = dec.payload(provider, event, data, rec.pointer_size)
                fields = encode(values)
        except DecodeError as e:
            d = rec.descriptor
            why = f"payload does not fit the metadata of event {d.id} v{d.version}"
            return self._misfit(rec, head, c, str(e), why)
        # as TDH: bytes after the described fields (an event that gained fields later)
        return self._finish(
            rec, head, c, fields, message=message, values=values, trailing=len(data) - used
        )

    def _manifest_event(self, rec: Record, route: Route, c: ProviderCount) -> Event:
        head = route.head
        try:
            env = parse_envelope(rec.data)
        except EnvelopeError as e:
            return self._misfit(rec, head, c, f"manifest event: {e}", "manifest event is malformed")
        manifest = self._inband.add(rec, env, head.provider)
        if manifest is not None:
            added = self._add(manifest, eventsource=True)
            self._inband.check_described(rec, head.provider, added)
            name = self._names.get(rec.provider)
            if name != head.provider_name:
                head = head._replace(provider_name=name)
        values = env.fields()
        return self._finish(rec, head, c, encode(values), values=values)

    def _tracelogging(self, rec: Record) -> Event | None:
        """A TraceLogging event (decoded with the schema it carries), or None when its
        provider was not asked for."""
        raw = rec.provider
        name = self._names.get(raw)
        if rec.traits and name is None:
            name = provider_name(rec.traits)
            if name and len(self._names) < MAX_NAMES:
                self._set_name(raw, name)
        guid = self._provider_text(raw)
        if not self._wanted(guid, name):
            return None
        c = provider_count(self._counts, guid or "(none)")
        schema = self._schema(rec.schema)
        event_name = None if isinstance(schema, DecodeError) else schema.name
        head = EventHead(guid, name or None, event_name, rec.descriptor, "tracelogging")
        head = self._tl_heads.get(head, head)
        if len(self._tl_heads) < MAX_ROUTES and len(event_name or "") <= MAX_NAME:
            self._tl_heads.setdefault(head, head)
        why = "TraceLogging payload does not fit its schema"
        if isinstance(schema, DecodeError):
            return self._misfit(rec, head, c, str(schema), why)
        try:
            values = decode_payload(schema, rec.data, rec.pointer_size)
        except DecodeError as e:
            return self._misfit(rec, head, c, str(e), why)
        return self._finish(rec, head, c, encode(values), values=values)

    def _schema(self, blob: bytes) -> TlEvent | DecodeError:
        schema = self._schemas.get(blob)
        if schema is None:
            try:
                schema = parse_event(blob)
            except DecodeError as e:
                schema = e
            if self._schema_bytes + len(blob) <= MAX_SCHEMA_BYTES:
                self._schemas[blob] = schema
                self._schema_bytes += len(blob)
        return schema
