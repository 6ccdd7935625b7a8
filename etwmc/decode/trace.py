"""Turn a trace's records into decoded events, and count what was decoded.

Every record becomes one event object (the JSON Lines of docs/json-lines.md), by its kind:

- a classic (kernel or MOF) record passes through, ``kind: classic``;
- an event with a TraceLogging schema item decodes with that schema;
- an EventSource's manifest event (id 0xFFFE, opcode 254) adds its provider's in-band
  manifest once all its chunks are in; later events of that provider decode with it;
- any other event decodes with the metadata given (manifests, TEMP.BIN, DLLs).

``decoded`` is true when metadata was found and held the payload (bytes after the
described fields are ``trailing_bytes``, as TDH reports them).  An event whose metadata
does not fit gets an ``error``; one without metadata neither: the summary counts why.
:meth:`TraceDecoder.json_lines` writes the same events as JSON lines, without an
event object for classic records (three quarters of a kernel trace).
"""

from __future__ import annotations

import datetime as dt
import uuid
from collections.abc import Iterable, Iterator, Sequence
from typing import Any

from ..codes import W_INBAND_MANIFEST
from ..diagnostics import Diagnostic, Span, diag
from ..guid import provider_guid
from ..model import Event, Manifest, Provider
from .counts import (
    CLASSIC_REASON,
    MAX_REASONS,
    OTHER_REASONS,
    OVERSIZED_REASON,
    ProviderCount,
    provider_count,
    tally,
)
from .etl import Record
from .eventsource import (
    EnvelopeError,
    ManifestCollector,
    is_manifest_event,
    parse_envelope,
)
from .jsonline import body_json, encode, event_head, plain_json, tail_json
from .metadata import load_manifest_bytes
from .payload import DecodeError, Decoder
from .tracelogging import TlEvent, decode_payload, parse_event, provider_name

KINDS = ("manifest", "eventsource", "tracelogging", "classic")
ZERO_GUID = bytes(16)
_EPOCH = dt.date(1601, 1, 1).toordinal()
MAX_SCHEMA_BYTES = 4 << 20  # TraceLogging schemas kept parsed; more are parsed again
MAX_CACHED = 65536  # GUID texts and days kept formatted; more are formatted again
# descriptors whose JSON pieces are kept (a real trace has a few hundred); more are made
# again per event, so a hostile trace's many descriptors cost time, not memory
MAX_DESCRIPTORS = 4096
MAX_INBAND = 256  # in-band manifests compiled; a trace holding more is hostile
MAX_INBAND_BYTES = 4 << 20  # their text compiled, all together (then only the model is kept)
MAX_EVENT_JSON = 1 << 20  # characters of one event's JSON line; larger fields become an error


def _too_large(size: int) -> str:
    return (
        f"the event's fields take {size} characters of JSON, more than the "
        f"{MAX_EVENT_JSON} one event may write"
    )


_EventMeta = tuple[Decoder, Provider, Event, str | None]


def _task_opcode(event: Event) -> str | None:
    """An unnamed event's name as decoders show it: its task's and opcode's names
    (EventSource manifests name events only this way; a TEMP.BIN keeps no symbol)."""
    names = [x.name for x in (event.task, event.opcode) if x is not None]
    parts = [n.split(":")[-1] for n in names if n not in ("win:Info", "win:None")]
    return "".join(parts) or None


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
        self.counts: dict[str, ProviderCount] = {}
        self.diagnostics: list[Diagnostic] = []
        self.misfits = 0
        self.oversized = 0  # events whose fields were replaced by an error for their size
        self._decoders: dict[uuid.UUID, Decoder] = {}
        self._names: dict[bytes, str] = {}
        self._eventsource: set[bytes] = set()
        # What json_lines keeps: the head of each line, by descriptor and names; for
        # classic records, by descriptor, the head, the count (None: a provider not asked
        # for) and the provider's name; for events with metadata, the same and their kind,
        # metadata and reason for not being decoded.  All depend on provider names and
        # metadata: _forget empties them when either changes.
        self._heads: dict[tuple[tuple[Any, ...], str | None, str | None], str] = {}
        self._classic: dict[tuple[Any, ...], tuple[str, ProviderCount | None, str | None]] = {}
        self._described: dict[
            tuple[Any, ...],
            tuple[str, str, _EventMeta | None, ProviderCount | None, str | None, str | None],
        ] = {}
        for m in manifests:
            self._add(m, eventsource=False)
        self._collector = ManifestCollector()
        self._inband = 0
        self._inband_bytes = 0
        self._schemas: dict[bytes, TlEvent | DecodeError] = {}
        self._schema_bytes = 0
        self._provider_text: dict[bytes, str | None] = {}
        self._guid_text: dict[bytes, str] = {}
        self._uuids: dict[bytes, uuid.UUID] = {}
        self._events: dict[tuple[bytes, int, int], _EventMeta | None] = {}
        self._days: dict[int, str] = {}
        self._second = -1
        self._second_text = ""
        self._want_guids: set[str] = set()
        self._want_names: set[str] = set()
        self._asked: dict[str, tuple[str, ...]] = {}  # each --provider: the keys it matches
        self._matched: set[str] = set()  # keys an event matched
        for p in providers:
            text = p.strip().strip("{}").lower()
            try:
                self._want_guids.add(str(uuid.UUID(text)))
                self._asked[p] = (str(uuid.UUID(text)),)
            except ValueError:
                self._want_names.add(p.lower())
                self._want_guids.add(str(provider_guid(p)))  # an EventSource's name
                self._asked[p] = (p.lower(), str(provider_guid(p)))

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
        return added

    def _set_name(self, raw: bytes, name: str) -> None:
        self._names[raw] = name
        self._forget()

    def _forget(self) -> None:
        """Empty what json_lines keeps per descriptor (names or metadata changed)."""
        self._heads.clear()
        self._classic.clear()
        self._described.clear()

    def events(self, records: Iterable[Record]) -> Iterator[dict[str, Any]]:
        """The decoded events, in trace order (filtered by the providers asked for)."""
        want = bool(self._want_guids or self._want_names)
        for rec in records:
            ev = self.event(rec)
            if want and not self._wanted(ev):
                continue
            oversized = False
            if "fields" in ev:
                size = len(encode(ev["fields"]))
                oversized = size > MAX_EVENT_JSON
                if oversized:
                    self._shrink(ev, size)
            self._count(ev, oversized=oversized)
            yield ev

    def _shrink(self, ev: dict[str, Any], size: int) -> None:
        """Replace fields too large to write by an error saying so."""
        ev.pop("fields", None)
        ev.pop("trailing_bytes", None)
        ev["decoded"] = False
        ev["message"] = None
        ev["error"] = _too_large(size)
        self.oversized += 1
        self._counter(ev["provider"] or "(none)").oversized += 1

    def json_lines(self, records: Iterable[Record]) -> Iterator[str]:
        """The events as JSON lines (no line breaks): for each record, the text that
        :func:`~etwmc.decode.jsonline.event_json` writes for the event :meth:`events`
        yields, for records whose fields are integers, as the reader makes them.

        Faster than writing those events: the head of each line is kept per descriptor,
        and a classic record (most of a trace) makes no event dict at all."""
        want = bool(self._want_guids or self._want_names)
        heads = self._heads
        classic = self._classic
        for rec in records:
            if not rec[1] and not rec[15] and not is_manifest_event(rec[3], rec[7]):
                line = self._metadata_line(rec, want)  # no schema: decoded with metadata
                if line is not None:
                    yield line
                continue
            if rec[1] and not rec[13] and not rec[14]:  # classic, without activity ids
                key = rec[2:10]  # provider, id, version, channel, level, opcode, task, keyword
                entry = classic.get(key)
                if entry is None:
                    entry = self._classic_entry(rec, want)
                    if len(classic) < MAX_DESCRIPTORS:
                        classic[key] = entry
                head, c, name = entry
                if c is None:
                    continue  # a provider not asked for
                c.events += 1  # what _tally does, without a call
                c.kinds["classic"] += 1
                if name:
                    c.name = name
                if CLASSIC_REASON in c.reasons or len(c.reasons) < MAX_REASONS:
                    c.reasons[CLASSIC_REASON] += 1
                else:
                    c.reasons[OTHER_REASONS] += 1
                t = rec[10]
                if t is None or t < 0:
                    stamp = "null"
                else:
                    second, frac = divmod(t, 10_000_000)
                    if second == self._second:
                        stamp = f'"{self._second_text}{frac:07d}Z"'
                    else:
                        stamp = plain_json(self.timestamp(t))
                pid = rec[11]
                tid = rec[12]
                yield (
                    f'{head}{stamp},"pid":{"null" if pid is None else pid},'
                    f'"tid":{"null" if tid is None else tid},"activity_id":null,'
                    '"related_activity_id":null,"kind":"classic","decoded":false,"message":null}'
                )
                continue
            ev = self.event(rec)
            if want and not self._wanted(ev):
                continue
            hkey = (rec[2:10], ev["provider_name"], ev["name"])
            found = heads.get(hkey)
            if found is None:
                found = event_head(ev, ev["name"])
                if len(heads) < MAX_DESCRIPTORS:
                    heads[hkey] = found
            tail = tail_json(ev)
            oversized = len(tail) > MAX_EVENT_JSON
            if oversized:
                self._shrink(ev, len(tail))
                tail = tail_json(ev)
            self._count(ev, oversized=oversized)
            yield found + body_json(ev) + tail

    def _classic_entry(
        self, rec: Record, want: bool
    ) -> tuple[str, ProviderCount | None, str | None]:
        """What every classic record with this one's descriptor shares: the head of its
        JSON line, its count (None when its provider was not asked for), and its
        provider's name."""
        ev = self.event(rec._replace(time=None, pid=None, tid=None))
        if want and not self._wanted(ev):
            return "", None, None
        head = event_head(ev, None)
        return head, self._counter(ev["provider"] or "(none)"), ev["provider_name"]

    def _metadata_line(self, rec: Record, want: bool) -> str | None:
        """The JSON line of an event decoded with the metadata given or read in-band
        (what _with_metadata and _count do), or None when its provider is not wanted."""
        key = rec[2:10]
        entry = self._described.get(key)
        if entry is None:
            entry = self._metadata_entry(rec, want)
            if len(self._described) < MAX_DESCRIPTORS:
                self._described[key] = entry
        head, kind, meta, c, provider_name, reason = entry
        if c is None:
            return None
        message = None
        error = None
        oversized = False
        if meta is None:
            tail = "}"
        else:
            dec, provider, event, _ = meta
            data = rec.data
            quick = None  # the fields as JSON text, when the decoder can write them so
            try:
                quick = dec.payload_json(provider, event, data, rec.pointer_size)
                if quick is None:
                    fields, message, used = dec.payload(provider, event, data, rec.pointer_size)
                else:
                    used = quick[1]
            except DecodeError as e:
                error = str(e)
            if error is None:
                text = encode(fields) if quick is None else quick[0]
                if len(text) > MAX_EVENT_JSON:
                    error = _too_large(len(text))
                    c.oversized += 1
                    self.oversized += 1
                    oversized = True
            if error is None:
                extra = len(data) - used  # as TDH: an event that gained fields later
                if extra:
                    c.trailing += 1
                    tail = f',"fields":{text},"trailing_bytes":{extra}}}'
                else:
                    tail = f',"fields":{text}}}'
            else:
                message = None
                tail = f',"error":{encode(error)}}}'
                reason = (
                    OVERSIZED_REASON
                    if oversized
                    else f"payload does not fit the metadata of event {rec.id} v{rec.version}"
                )
        self._tally(c, kind, provider_name, reason, error is not None and not oversized)
        pid = rec.pid
        tid = rec.tid
        return (
            f'{head}{plain_json(self.timestamp(rec.time))},"pid":{"null" if pid is None else pid},'
            f'"tid":{"null" if tid is None else tid},'
            f'"activity_id":{plain_json(self._guid(rec.activity))},'
            f'"related_activity_id":{plain_json(self._guid(rec.related))},'
            f'"kind":"{kind}","decoded":{"false" if reason else "true"},'
            f'"message":{"null" if message is None else encode(message)}{tail}'
        )

    def _metadata_entry(
        self, rec: Record, want: bool
    ) -> tuple[str, str, _EventMeta | None, ProviderCount | None, str | None, str | None]:
        """What every event with this one's descriptor shares: the head of its JSON
        line, its kind, its metadata, its count (None when its provider was not asked
        for), its provider's name, and why it is not decoded when it has no metadata."""
        ev = self.event(rec)
        meta = self._meta(rec.provider, rec.id, rec.version)
        if want and not self._wanted(ev):
            return "", "", None, None, None, None
        head = event_head(ev, ev["name"])
        reason = None if meta is not None else self._reason(ev)
        counter = self._counter(ev["provider"] or "(none)")
        return head, ev["kind"], meta, counter, ev["provider_name"], reason

    def _wanted(self, ev: dict[str, Any]) -> bool:
        if ev["provider"] in self._want_guids:
            self._matched.add(ev["provider"])
            return True
        name = ev["provider_name"]
        if name is not None and name.lower() in self._want_names:
            self._matched.add(name.lower())
            return True
        return False

    def unmatched(self) -> list[str]:
        """The providers asked for (as given) that no event matched."""
        return [p for p, keys in self._asked.items() if not self._matched.intersection(keys)]

    def event(self, rec: Record) -> dict[str, Any]:
        raw = rec.provider
        if raw in self._provider_text:
            guid = self._provider_text[raw]
        else:
            guid = str(uuid.UUID(bytes_le=raw)) if len(raw) == 16 else None
            if len(self._provider_text) < MAX_CACHED:
                self._provider_text[raw] = guid
        ev: dict[str, Any] = {
            "provider": guid,
            "provider_name": self._names.get(raw),
            "name": None,
            "id": rec.id,
            "version": rec.version,
            "channel": rec.channel,
            "level": rec.level,
            "opcode": rec.opcode,
            "task": rec.task,
            "keyword": rec.keyword,
            "timestamp": self.timestamp(rec.time),
            "pid": rec.pid,
            "tid": rec.tid,
            "activity_id": self._guid(rec.activity),
            "related_activity_id": self._guid(rec.related),
            "kind": "classic",
            "decoded": False,
            "message": None,
        }
        if rec.classic:
            return ev
        if rec.schema:
            self._tracelogging(rec, ev)
        elif is_manifest_event(rec.id, rec.opcode):
            self._manifest_event(rec, ev)
        else:
            self._with_metadata(rec, ev)
        return ev

    def _tracelogging(self, rec: Record, ev: dict[str, Any]) -> None:
        ev["kind"] = "tracelogging"
        if rec.traits and ev["provider_name"] is None:
            name = provider_name(rec.traits)
            if name:
                if len(self._names) < MAX_CACHED:
                    self._set_name(rec.provider, name)
                ev["provider_name"] = name
        schema = self._schemas.get(rec.schema)
        if schema is None:
            try:
                schema = parse_event(rec.schema)
            except DecodeError as e:
                schema = e
            if self._schema_bytes + len(rec.schema) <= MAX_SCHEMA_BYTES:
                self._schemas[rec.schema] = schema
                self._schema_bytes += len(rec.schema)
        if isinstance(schema, DecodeError):
            ev["error"] = str(schema)
            return
        ev["name"] = schema.name
        try:
            fields = decode_payload(schema, rec.data, rec.pointer_size)
        except DecodeError as e:
            ev["error"] = str(e)
            return
        ev["decoded"] = True
        ev["fields"] = fields

    def _manifest_event(self, rec: Record, ev: dict[str, Any]) -> None:
        ev["kind"] = "eventsource"
        ev["name"] = "ManifestData"
        try:
            env = parse_envelope(rec.data)
        except EnvelopeError as e:
            ev["error"] = f"manifest event: {e}"
            return
        ev["decoded"] = True
        ev["fields"] = env.fields()
        if self._inband >= MAX_INBAND:
            if self._inband == MAX_INBAND:
                self._inband += 1
                self.diagnostics.append(
                    diag(
                        W_INBAND_MANIFEST,
                        Span(self.label),
                        f"after {MAX_INBAND} in-band manifests, later manifest events are not read",
                    )
                )
            return
        label = f"{self.label}: in-band manifest of provider {ev['provider']}"
        try:
            xml = self._collector.add(rec.provider, (rec.pid, rec.tid), env)
        except EnvelopeError as e:
            self._inband += 1
            self.diagnostics.append(diag(W_INBAND_MANIFEST, Span(self.label), f"{label}: {e}"))
            return
        if xml is None:
            return
        self._inband += 1
        if self._inband_bytes + len(xml) > MAX_INBAND_BYTES:
            self.diagnostics.append(
                diag(
                    W_INBAND_MANIFEST,
                    Span(self.label),
                    f"{label}: not compiled: with its {len(xml)} bytes, the trace's in-band "
                    f"manifests would take more than {MAX_INBAND_BYTES} bytes",
                )
            )
            return
        self._inband_bytes += len(xml)
        manifest, diags = load_manifest_bytes(xml, label)
        del xml  # only the compiled model is kept
        if manifest is None:
            first = diags[0].message if diags else "unreadable"
            self.diagnostics.append(diag(W_INBAND_MANIFEST, Span(self.label), f"{label}: {first}"))
            return
        added = self._add(manifest, eventsource=True)
        self._events.clear()  # events looked up before this manifest may be in it
        self._forget()
        if rec.provider not in added:
            self.diagnostics.append(
                diag(
                    W_INBAND_MANIFEST,
                    Span(self.label),
                    f"{label} describes other providers only",
                )
            )
        ev["provider_name"] = self._names.get(rec.provider)

    def _with_metadata(self, rec: Record, ev: dict[str, Any]) -> None:
        raw = rec.provider
        ev["kind"] = "eventsource" if raw in self._eventsource else "manifest"
        meta = self._meta(raw, rec.id, rec.version)
        if meta is None:
            return
        dec, provider, event, name = meta
        ev["name"] = name
        try:
            fields, message, used = dec.payload(provider, event, rec.data, rec.pointer_size)
        except DecodeError as e:
            ev["error"] = str(e)
            return
        ev["decoded"] = True
        ev["fields"] = fields
        ev["message"] = message
        if used != len(rec.data):  # as TDH: an event that gained fields later
            ev["trailing_bytes"] = len(rec.data) - used

    def _meta(self, raw: bytes, event_id: int, version: int) -> _EventMeta | None:
        key = (raw, event_id, version)
        if key in self._events:
            return self._events[key]
        meta = self._lookup(raw, event_id, version)
        if len(self._events) < MAX_CACHED:
            self._events[key] = meta
        return meta

    def _lookup(self, raw: bytes, event_id: int, version: int) -> _EventMeta | None:
        pid = self._uuids.get(raw)
        if pid is None:
            pid = uuid.UUID(bytes_le=raw)
            if len(self._uuids) < MAX_CACHED:
                self._uuids[raw] = pid
        dec = self._decoders.get(pid)
        found = dec.lookup(pid, event_id, version) if dec is not None else None
        if dec is None or found is None:
            return None
        provider, event = found
        return dec, provider, event, event.name or _task_opcode(event) or event.symbol

    def _counter(self, key: str) -> ProviderCount:
        """The count of the provider with this key (a GUID's text or "(none)")."""
        return provider_count(self.counts, key)

    def _count(self, ev: dict[str, Any], *, oversized: bool = False) -> None:
        c = self._counter(ev["provider"] or "(none)")
        if "trailing_bytes" in ev:
            c.trailing += 1
        if oversized:
            self._tally(c, ev["kind"], ev["provider_name"], OVERSIZED_REASON, False)
            return
        reason = None if ev["decoded"] else self._reason(ev)
        self._tally(c, ev["kind"], ev["provider_name"], reason, "error" in ev)

    def _tally(
        self, c: ProviderCount, kind: str, name: str | None, reason: str | None, error: bool
    ) -> None:
        """Count one event; ``reason`` is why it was not decoded (None: it was)."""
        tally(c, kind, name, reason)
        if reason is not None and error:
            self.misfits += 1

    def _reason(self, ev: dict[str, Any]) -> str:
        kind = ev["kind"]
        if kind == "classic":
            return CLASSIC_REASON
        where = f"event {ev['id']} v{ev['version']}"
        if "error" in ev:
            if kind == "tracelogging":
                return "TraceLogging payload does not fit its schema"
            if ev["name"] == "ManifestData":
                return "manifest event is malformed"
            return f"payload does not fit the metadata of {where}"
        raw = uuid.UUID(ev["provider"]).bytes_le if ev["provider"] else b""
        pid = self._uuids.get(raw)
        if pid is not None and pid in self._decoders:
            return f"{where} is not in the provider's metadata"
        return "no metadata for the provider"

    def _guid(self, raw: bytes) -> str | None:
        if not raw or raw == ZERO_GUID:
            return None
        text = self._guid_text.get(raw)
        if text is None:
            text = str(uuid.UUID(bytes_le=raw))
            if len(self._guid_text) < MAX_CACHED:
                self._guid_text[raw] = text
        return text

    def timestamp(self, filetime: int | None) -> str | None:
        """RFC 3339 in UTC with the full 100 ns precision (7 fraction digits)."""
        if filetime is None or filetime < 0:
            return None
        seconds, frac = divmod(filetime, 10_000_000)
        if seconds != self._second:  # events come in time order: most share a second
            days, rest = divmod(seconds, 86400)
            date = self._days.get(days)
            if date is None:
                try:
                    date = dt.date.fromordinal(_EPOCH + days).isoformat()
                except (ValueError, OverflowError):
                    return None
                if len(self._days) < MAX_CACHED:
                    self._days[days] = date
            h, rest = divmod(rest, 3600)
            m, s = divmod(rest, 60)
            self._second = seconds
            self._second_text = f"{date}T{h:02d}:{m:02d}:{s:02d}."
        return f"{self._second_text}{frac:07d}Z"
