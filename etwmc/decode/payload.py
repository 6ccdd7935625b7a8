"""Decode event payloads with manifest metadata, the way TDH does.

A :class:`Decoder` indexes a :class:`~etwmc.model.Manifest` (lowered from a manifest
file, or read from a WEVT_TEMPLATE blob) by (provider GUID, event id, version) and turns
an event's user data into named, typed values.

Payload rules (inType decides the bytes, outType only the presentation):

- integers are little-endian; UInt16 with outType win:Port is big-endian; UInt32 with
  win:IPv4 is four bytes in network order;
- Boolean is a 4-byte Win32 BOOL; UInt8 with xs:boolean is one byte;
- UnicodeString/AnsiString end at a NUL unless ``length`` gives the number of
  characters; counted types start with a u16 **byte** count;
- Binary needs ``length`` (bytes); Pointer is 4 or 8 bytes (the record's pointer size);
  SID is 8 + 4 * sub-authority-count bytes; GUID 16, FILETIME 8, SYSTEMTIME 16;
- ``count`` makes an array (constant or another field's value), also for structs;
  ``length``/``count`` naming a field take that field's value in the same scope;
- a value map turns a value into its text; a bit map into the texts of its bits.

A payload that ends early or holds an impossible value raises :class:`DecodeError`
naming the event and the field.  Messages are formatted like FormatMessage: ``%1`` ..
``%99`` (optionally ``%1!x!``) insert the top-level properties, ``%%`` is ``%``, ``%n``
a line break, ``%t`` a tab, ``%r`` CR, ``%b`` a space, ``%0`` ends the message, and
``%`` before any other character yields that character.
"""

from __future__ import annotations

import datetime as dt
import ipaddress
import json
import math
import struct
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from ..model import Event, Field, Manifest, Map, Provider, Struct, Template
from ..msgformat import table_text
from ..payloadvalues import PayloadValueError, ValueReader
from ..record import Record, field
from ..winmeta import InTypeCode
from .bounds import MAX_ARRAY, element_size
from .message import format_message
from .plan import INT_FORMATS as _INT_FORMATS
from .plan import Integers, JsonPlan, Run, Step, String, json_plan, make_plan, write_json
from .plan import plain as _plain
from .values import filetime_text, format_int, socket_address, trim

MAX_PREPARED = 65536  # events whose label and message text are kept; more are made again
# inType codes as plain names: a member read from the enum class in the per-value path
# would cost more than the comparisons it names.
_UNICODE, _ANSI = InTypeCode.UNICODE_STRING, InTypeCode.ANSI_STRING
_COUNTED_UNICODE, _COUNTED_ANSI = InTypeCode.COUNTED_UNICODE_STRING, InTypeCode.COUNTED_ANSI_STRING
_UINT8, _UINT16, _UINT32 = InTypeCode.UINT8, InTypeCode.UINT16, InTypeCode.UINT32
_BOOLEAN, _GUID = InTypeCode.BOOLEAN, InTypeCode.GUID
_POINTER, _FILETIME, _SYSTEMTIME = InTypeCode.POINTER, InTypeCode.FILETIME, InTypeCode.SYSTEMTIME
_SID, _COUNTED_BINARY = InTypeCode.SID, InTypeCode.COUNTED_BINARY
_STRINGS = frozenset({_UNICODE, _ANSI, _COUNTED_UNICODE, _COUNTED_ANSI})
_CHARACTERS = frozenset({InTypeCode.INT8, InTypeCode.UINT8, InTypeCode.UINT16})  # xs:string
_REALS = frozenset({InTypeCode.FLOAT, InTypeCode.DOUBLE})
_BINARIES = frozenset({InTypeCode.BINARY, InTypeCode.COUNTED_BINARY})


class DecodeError(ValueError):
    """An event's payload does not match its metadata (or there is no metadata)."""


class DecodedEvent(Record):
    provider: str
    provider_id: uuid.UUID
    id: int
    version: int
    name: str | None
    level: str | None
    task: str | None
    opcode: str | None
    keywords: tuple[str, ...]
    channel: str | None
    message: str | None
    fields: dict[str, Any] = field(default_factory=dict)
    extra: bytes = b""  # bytes after the last field

    def to_json(self) -> dict[str, Any]:
        return {
            "provider": self.provider,
            "provider_id": str(self.provider_id),
            "id": self.id,
            "version": self.version,
            "name": self.name,
            "level": self.level,
            "task": self.task,
            "opcode": self.opcode,
            "keywords": list(self.keywords),
            "channel": self.channel,
            "message": self.message,
            "fields": self.fields,
            **({"extra": self.extra.hex()} if self.extra else {}),
        }


class Decoder:
    """Decodes events of every provider in a manifest."""

    def __init__(self, manifest: Manifest) -> None:
        self.manifest = manifest
        self._events: dict[tuple[uuid.UUID, int, int], tuple[Provider, Event]] = {}
        self._plans: dict[int, tuple[Sequence[Field | Struct], list[Step]]] = {}
        self._json_plans: dict[int, tuple[Event, JsonPlan | None]] = {}  # by event
        self._prepared: dict[int, tuple[Event, str, str | None]] = {}
        for p in manifest.providers:
            for e in p.events:
                self._events.setdefault((p.guid, e.value, e.version), (p, e))
                if p.control_guid is not None:
                    self._events.setdefault((p.control_guid, e.value, e.version), (p, e))

    def text(self, string_id: str | None) -> str | None:
        """A string as Windows reads it from the message table: line feeds as CR LF."""
        text = self.manifest.text(string_id)
        return table_text(text) if text is not None else None

    def provider(self, provider_id: uuid.UUID) -> Provider | None:
        """The provider with this GUID (or control GUID), if the manifest has it."""
        for p in self.manifest.providers:
            if provider_id in (p.guid, p.control_guid):
                return p
        return None

    def decode(
        self,
        provider_id: uuid.UUID,
        event_id: int,
        version: int,
        user_data: bytes,
        *,
        pointer_size: int = 8,
    ) -> DecodedEvent:
        found = self._events.get((provider_id, event_id, version))
        if found is None:
            raise DecodeError(
                f"no metadata for event {event_id} version {version} of provider {provider_id}"
            )
        p, e = found
        values, message, used = self.payload(p, e, user_data, pointer_size)
        return DecodedEvent(
            provider=p.name,
            provider_id=p.guid,
            id=e.value,
            version=e.version,
            name=e.name or e.symbol,
            level=e.level.name if e.level else None,
            task=e.task.name if e.task else None,
            opcode=e.opcode.name if e.opcode else None,
            keywords=tuple(k.name for k in e.keywords),
            channel=e.channel.name if e.channel else None,
            message=message,
            fields=values,
            extra=user_data[used:],
        )

    def payload(
        self, p: Provider, e: Event, user_data: bytes, pointer_size: int
    ) -> tuple[dict[str, Any], str | None, int]:
        """An event's fields, its formatted message, and how many bytes they used."""
        values: dict[str, Any] = {}
        inserts: list[str] = []
        used = 0
        _, label, text = self._prepare(e)
        if e.template is not None:
            r = PayloadReader(user_data, label, pointer_size, self, inserts=text is not None)
            values, inserts = r.scope(e.template.items, p)
            used = r.pos
        return values, format_message(text, inserts) if text is not None else None, used

    def _prepare(self, e: Event) -> tuple[Event, str, str | None]:
        """The event, the label its errors start with, and its message text (kept)."""
        found = self._prepared.get(id(e))
        if found is None or found[0] is not e:
            label = f"event {e.value} v{e.version}" + (f" ({e.name})" if e.name else "")
            found = (e, label, self.text(e.message))
            if len(self._prepared) < MAX_PREPARED:
                self._prepared[id(e)] = found
        return found

    def json_plan(self, e: Event) -> JsonPlan | None:
        """How :func:`~etwmc.decode.plan.write_json` writes the event's fields, when the
        event has no message and its template a JSON plan (kept per event)."""
        found = self._json_plans.get(id(e))
        if found is None or found[0] is not e:
            plan = None
            if e.template is not None and self._prepare(e)[2] is None:
                plan = json_plan(self.plan(e.template.items))
            found = (e, plan)
            if len(self._json_plans) < MAX_PREPARED:
                self._json_plans[id(e)] = found
        return found[1]

    def payload_json(
        self, p: Provider, e: Event, user_data: bytes, pointer_size: int
    ) -> tuple[str, int] | None:
        """An event's fields as JSON text (what ``json.dumps`` writes for the fields
        :meth:`payload` returns) and how many bytes they used, when it has a
        :meth:`json_plan`; None otherwise, and when the payload does not fit:
        :meth:`payload` says why."""
        plan = self.json_plan(e)
        return None if plan is None else write_json(plan, user_data, pointer_size)

    def lookup(
        self, provider_id: uuid.UUID, event_id: int, version: int
    ) -> tuple[Provider, Event] | None:
        """The provider and event with these numbers, if the manifest has them."""
        return self._events.get((provider_id, event_id, version))

    def plan(self, items: Sequence[Field | Struct]) -> Sequence[Step]:
        """The steps that read ``items`` (see :mod:`etwmc.decode.plan`).  Cached per
        template (model nodes live as long as the decoder)."""
        found = self._plans.get(id(items))
        if found is None or found[0] is not items:
            found = (items, make_plan(items))
            self._plans[id(items)] = found
        return found[1]

    def template_of(self, provider_id: uuid.UUID, event_id: int, version: int) -> Template | None:
        found = self._events.get((provider_id, event_id, version))
        return found[1].template if found else None


# --------------------------------------------------------------------------- payload


class PayloadReader(ValueReader):
    """Reads fields from one payload, front to back, with the values' shared reader
    (:class:`~etwmc.payloadvalues.ValueReader`); its errors name the event and field."""

    def __init__(
        self,
        data: bytes,
        label: str,
        pointer_size: int,
        dec: Decoder | None = None,
        *,
        inserts: bool = True,
    ) -> None:
        """``inserts=False``: the caller formats no message, so no insert text is made
        for arrays and structs (the costly ones)."""
        try:
            super().__init__(data, pointer_size)
        except PayloadValueError as e:  # the pointer size
            raise DecodeError(f"{label}: {e}") from None
        self.label = label
        self.dec = dec
        self.want_inserts = inserts

    def fail(self, name: str, msg: str) -> DecodeError:
        return DecodeError(f"{self.label}: field '{name}': {msg}")

    def take_field(self, n: int, name: str) -> bytes:
        """:meth:`take` for the field ``name``."""
        try:
            return self.take(n)
        except PayloadValueError as e:
            raise self.fail(name, str(e)) from None

    def spend_field(self, n: int, name: str, element: int, values: int = 1) -> None:
        """:meth:`spend` for the field ``name``."""
        try:
            self.spend(n, element, values)
        except PayloadValueError as e:
            raise self.fail(name, str(e)) from None

    def scope(
        self, items: Sequence[Field | Struct], p: Provider
    ) -> tuple[dict[str, Any], list[str]]:
        """Decode items in order; return their values and their insert strings."""
        values: dict[str, Any] = {}
        raw: dict[str, int] = {}  # integer values, for count/length references
        inserts: list[str] = []
        steps = self.dec.plan(items) if self.dec is not None else items
        data = self.data
        for step in steps:
            if type(step) is Run:
                end = self.pos + step.size
                if end <= len(data):
                    numbers = step.format.unpack_from(data, self.pos)
                    self.pos = end
                    # the names and numbers are as many, by the plan's making
                    values.update(zip(step.names, numbers, strict=False))
                    if step.referenced:
                        raw.update(zip(step.names, numbers, strict=False))
                    if self.want_inserts:
                        inserts.extend(map(str, numbers))
                    else:
                        inserts.extend(step.blanks)
                    continue
                for f in step.fields:  # cut short: field by field, for the error
                    self.item(f, values, raw, inserts, p)
            elif type(step) is String:
                try:
                    s = self.utf16()
                except PayloadValueError as e:
                    raise self.fail(step.name, str(e)) from None
                values[step.name] = s
                inserts.append(s)
            elif type(step) is Integers:  # what item() does for them, without its tests
                n = self.extent(step.count, raw, step.name, "count")
                raw_bytes = self.take_field(n * step.size, step.name)  # type: ignore[operator]
                numbers = struct.unpack(f"<{n}{step.code}", raw_bytes)
                values[step.name] = list(numbers)
                inserts.append(", ".join(map(str, numbers)) if self.want_inserts else "")
            else:
                self.item(step, values, raw, inserts, p)  # type: ignore[arg-type]
        return values, inserts

    def item(
        self,
        item: Field | Struct,
        values: dict[str, Any],
        raw: dict[str, int],
        inserts: list[str],
        p: Provider,
    ) -> None:
        if item.count is None and item.length is None and type(item) is Field:
            value, shown, integer = self.one(item, None, p)  # the common case, first
            if integer is not None:
                raw[item.name] = integer
            values[item.name] = value
            inserts.append(shown)
            return
        n = self.extent(item.count, raw, item.name, "count")
        if isinstance(item, Struct):
            if n is None:
                v: Any = self.scope(item.fields, p)[0]
            else:
                self.spend_field(n, item.name, element_size(item), max(1, len(item.fields)))
                v = [self.scope(item.fields, p)[0] for _ in range(n)]
            values[item.name] = v
            inserts.append(json.dumps(v, sort_keys=True) if self.want_inserts else "")
            return
        length = self.extent(item.length, raw, item.name, "length")
        if n is None:
            value, shown, integer = self.one(item, length, p)
            if integer is not None:
                raw[item.name] = integer
            values[item.name] = value
            inserts.append(shown)
        elif length is None and _plain(item, counted=True):
            size, fmt = _INT_FORMATS[item.in_type.code]  # type: ignore[union-attr]
            numbers = struct.unpack(f"<{n}{fmt[1]}", self.take_field(n * size, item.name))
            values[item.name] = list(numbers)
            inserts.append(", ".join(map(str, numbers)) if self.want_inserts else "")
        else:
            self.spend_field(n, item.name, element_size(item))
            triples = [self.one(item, length, p) for _ in range(n)]
            values[item.name] = [t[0] for t in triples]
            inserts.append(", ".join(t[1] for t in triples) if self.want_inserts else "")

    def extent(
        self, ext: int | str | None, raw: Mapping[str, int], name: str, what: str
    ) -> int | None:
        if ext is None:
            return None
        if isinstance(ext, int):
            n = ext
        elif ext in raw:
            n = raw[ext]
        else:
            raise self.fail(
                name, f"its {what} refers to '{ext}', which is no earlier integer field"
            )
        if not 0 <= n <= MAX_ARRAY:
            raise self.fail(name, f"{what} {n} is out of range")
        return n

    def one(self, f: Field, length: int | None, p: Provider | None) -> tuple[Any, str, int | None]:
        """One value: (JSON value, insert text, integer value or None)."""
        try:
            return self._one(f, length, p)
        except PayloadValueError as e:
            raise self.fail(f.name, str(e)) from None

    def _one(self, f: Field, length: int | None, p: Provider | None) -> tuple[Any, str, int | None]:
        it = f.in_type.code if f.in_type else -1
        if it == _UNICODE and length is None:  # the most common type after integers
            s = self.utf16()
            return s, s, None
        out = (f.out_type.qname if f.out_type else None) or (
            f.in_type.default_out if f.in_type else None
        )
        if it in _INT_FORMATS:
            size, fmt = _INT_FORMATS[it]
            raw_bytes = self.take(size)
            if it == _UINT16 and out == "win:Port":
                v = int.from_bytes(raw_bytes, "big")
                return v, str(v), v
            if it == _UINT32 and out == "win:IPv4":
                ip = str(ipaddress.IPv4Address(raw_bytes))
                return ip, ip, int.from_bytes(raw_bytes, "little")
            v = struct.unpack(fmt, raw_bytes)[0]
            if f.map is not None and p is not None:
                mp = p.map_named(f.map)
                if mp is not None:
                    mv = self.mapped(mp, v)
                    return mv, mv if isinstance(mv, str) else " | ".join(map(str, mv)), v
            shown = format_int(v, size, it, out)
            if out == "xs:boolean" and it == _UINT8:
                return bool(v), "true" if v else "false", v
            if out == "xs:string" and it in _CHARACTERS:
                ch = chr(v & 0xFF if size == 1 else v)
                return ch, ch, v
            if isinstance(shown, str) and shown.startswith("0x"):
                return shown, shown, v
            return v, str(v), v
        if it in _REALS:
            r = self.number(it)
            if not math.isfinite(r):
                return repr(r), repr(r), None  # JSON has no NaN or infinity
            return r, repr(r), None
        if it == _BOOLEAN:
            b = int(self.number(it))
            return bool(b), "true" if b else "false", b
        if it in _STRINGS:
            s = self.value(it, length, utf8=out == "win:Utf8")  # type: ignore[assignment]
            return s, s, None
        if it in _BINARIES:
            blob = self.counted() if it == _COUNTED_BINARY else self.binary(length)
            return self.binary_value(blob, out)
        if it == _GUID:
            g = "{" + str(self.guid()).upper() + "}"
            return g, g, None
        if it == _POINTER:
            p_value = int(self.number(it))
            s = f"0x{p_value:X}"
            return s, s, p_value
        if it == _FILETIME:
            s = filetime_text(self.filetime())
            return s, s, None
        if it == _SYSTEMTIME:
            s = self.systemtime_text()
            return s, s, None
        if it == _SID:
            s = self.sid(length)
            return s, s, None
        raise PayloadValueError(f"cannot decode inType {f.in_type_text!r}")

    def _text(self, string_id: str | None) -> str | None:
        return self.dec.text(string_id) if self.dec is not None else None

    def mapped(self, mp: Map, v: int) -> Any:
        if mp.kind == "value":
            for item in mp.items:
                if item.value == v:
                    return trim(self._text(item.message)) or str(v)
            return str(v)
        names: list[str] = []
        rest = v
        for item in sorted(mp.items, key=lambda i: i.value):
            if item.value == 0:
                if v == 0:
                    names.append(trim(self._text(item.message)) or "0")
            elif v & item.value == item.value:
                names.append(trim(self._text(item.message)) or f"0x{item.value:X}")
                rest &= ~item.value
        if rest:
            names.append(f"0x{rest:X}")
        return names

    def binary_value(self, b: bytes, out: str | None) -> tuple[Any, str, int | None]:
        if out == "win:IPv6":
            if len(b) != 16:
                raise PayloadValueError(f"an IPv6 address needs 16 bytes, not {len(b)}")
            s = str(ipaddress.IPv6Address(b))
            return s, s, None
        if out == "win:SocketAddress":
            sa = socket_address(b)
            if sa is None:
                raise PayloadValueError(f"{len(b)} bytes are no IPv4/IPv6 socket address")
            return sa, sa, None
        h = "0x" + b.hex().upper()
        return h, h, None

    def systemtime_text(self) -> str:
        y, mo, _dow, d, h, mi, s, ms = self.systemtime()
        try:
            t = dt.datetime(y, mo, d, h, mi, s, ms * 1000)
        except ValueError as e:
            raise PayloadValueError(
                f"SYSTEMTIME {y}-{mo}-{d} {h}:{mi}:{s}.{ms} is invalid ({e})"
            ) from None
        return t.isoformat(timespec="milliseconds")
