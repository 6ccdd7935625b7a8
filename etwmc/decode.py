"""Decode event payloads with manifest metadata, the way TDH does, and ``etwmc decode``.

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

import argparse
import datetime as dt
import ipaddress
import json
import math
import struct
import sys
import uuid
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from . import winmeta as wm
from .model import Event, Field, Manifest, Map, Provider, Struct, Template
from .msgformat import Stop, tokens

if TYPE_CHECKING:
    from .runtime.eventfile import EventRecord

MAX_ARRAY = 0xFFFF  # ETW payloads are < 64 KiB; no count can be larger


class DecodeError(ValueError):
    """An event's payload does not match its metadata (or there is no metadata)."""


@dataclass(frozen=True, slots=True)
class DecodedEvent:
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
        for p in manifest.providers:
            for e in p.events:
                self._events.setdefault((p.guid, e.value, e.version), (p, e))
                if p.control_guid is not None:
                    self._events.setdefault((p.control_guid, e.value, e.version), (p, e))

    def text(self, string_id: str | None) -> str | None:
        return self.manifest.text(string_id)

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
        label = f"event {e.value} v{e.version}" + (f" ({e.name})" if e.name else "")
        values: dict[str, Any] = {}
        inserts: list[str] = []
        extra = b""
        if e.template is not None:
            r = _Reader(user_data, label, pointer_size, self)
            values, inserts = r.scope(e.template.items, p)
            extra = user_data[r.pos :]
        elif user_data:
            extra = user_data
        message = self.text(e.message)
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
            message=format_message(message, inserts) if message is not None else None,
            fields=values,
            extra=extra,
        )

    def template_of(self, provider_id: uuid.UUID, event_id: int, version: int) -> Template | None:
        found = self._events.get((provider_id, event_id, version))
        return found[1].template if found else None


# --------------------------------------------------------------------------- payload


class _Reader:
    def __init__(self, data: bytes, label: str, pointer_size: int, dec: Decoder) -> None:
        if pointer_size not in (4, 8):
            raise DecodeError(f"{label}: pointer size must be 4 or 8, not {pointer_size}")
        self.data = data
        self.pos = 0
        self.label = label
        self.ptr = pointer_size
        self.dec = dec

    def fail(self, name: str, msg: str) -> DecodeError:
        return DecodeError(f"{self.label}: field '{name}': {msg}")

    def take(self, n: int, name: str) -> bytes:
        if n < 0 or self.pos + n > len(self.data):
            left = len(self.data) - self.pos
            raise self.fail(name, f"needs {n} bytes at offset {self.pos}, {left} left")
        b = self.data[self.pos : self.pos + n]
        self.pos += n
        return b

    def scope(
        self, items: Sequence[Field | Struct], p: Provider
    ) -> tuple[dict[str, Any], list[str]]:
        """Decode items in order; return their values and their insert strings."""
        values: dict[str, Any] = {}
        raw: dict[str, int] = {}  # integer values, for count/length references
        inserts: list[str] = []
        for item in items:
            n = self.extent(item.count, raw, item.name, "count")
            if isinstance(item, Struct):
                if n is None:
                    v: Any = self.scope(item.fields, p)[0]
                else:
                    v = [self.scope(item.fields, p)[0] for _ in range(n)]
                values[item.name] = v
                inserts.append(json.dumps(v, sort_keys=True))
                continue
            length = self.extent(item.length, raw, item.name, "length")
            if n is None:
                value, shown, integer = self.one(item, length, p)
                if integer is not None:
                    raw[item.name] = integer
                values[item.name] = value
                inserts.append(shown)
            else:
                triples = [self.one(item, length, p) for _ in range(n)]
                values[item.name] = [t[0] for t in triples]
                inserts.append(", ".join(t[1] for t in triples))
        return values, inserts

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

    def one(self, f: Field, length: int | None, p: Provider) -> tuple[Any, str, int | None]:
        """One value: (JSON value, insert text, integer value or None)."""
        it = f.in_type.code if f.in_type else -1
        out = (f.out_type.qname if f.out_type else None) or (
            f.in_type.default_out if f.in_type else None
        )
        name = f.name
        if it in _INT_FORMATS:
            size, fmt = _INT_FORMATS[it]
            raw_bytes = self.take(size, name)
            if it == 6 and out == "win:Port":
                v = int.from_bytes(raw_bytes, "big")
                return v, str(v), v
            if it == 8 and out == "win:IPv4":
                ip = str(ipaddress.IPv4Address(raw_bytes))
                return ip, ip, int.from_bytes(raw_bytes, "little")
            v = struct.unpack(fmt, raw_bytes)[0]
            if f.map is not None:
                mp = p.map_named(f.map)
                if mp is not None:
                    mv = self.mapped(mp, v)
                    return mv, mv if isinstance(mv, str) else " | ".join(map(str, mv)), v
            shown = _format_int(v, size, it, out)
            if out == "xs:boolean" and it == 4:
                return bool(v), "true" if v else "false", v
            if out == "xs:string" and it in (3, 4, 6):
                ch = chr(v & 0xFF if size == 1 else v)
                return ch, ch, v
            if isinstance(shown, str) and shown.startswith("0x"):
                return shown, shown, v
            return v, str(v), v
        if it in (11, 12):
            v = struct.unpack("<f" if it == 11 else "<d", self.take(4 if it == 11 else 8, name))[0]
            if not math.isfinite(v):
                return repr(v), repr(v), None  # JSON has no NaN or infinity
            return v, repr(v), None
        if it == 13:
            v = struct.unpack("<i", self.take(4, name))[0]
            return bool(v), "true" if v else "false", v
        if it == 1:
            s = self.utf16(name, length)
            return s, s, None
        if it == 2:
            s = self.ansi(name, length, out)
            return s, s, None
        if it == 22:
            nbytes = struct.unpack("<H", self.take(2, name))[0]
            s = self.take(nbytes, name).decode("utf-16-le", errors="replace")
            return s, s, None
        if it == 23:
            nbytes = struct.unpack("<H", self.take(2, name))[0]
            s = _ansi_text(self.take(nbytes, name), out)
            return s, s, None
        if it in (14, 25):
            if it == 25:
                length = struct.unpack("<H", self.take(2, name))[0]
            if length is None:
                raise self.fail(name, "win:Binary needs a length")
            b = self.take(length, name)
            return self.binary(name, b, out)
        if it == 15:
            g = "{" + str(uuid.UUID(bytes_le=self.take(16, name))).upper() + "}"
            return g, g, None
        if it == 16:
            v = int.from_bytes(self.take(self.ptr, name), "little")
            s = f"0x{v:X}"
            return s, s, v
        if it == 17:
            v = struct.unpack("<Q", self.take(8, name))[0]
            s = filetime_text(v)
            return s, s, None
        if it == 18:
            s = self.systemtime(name)
            return s, s, None
        if it == 19:
            s = self.sid(name, length)
            return s, s, None
        raise self.fail(name, f"cannot decode inType {f.in_type_text!r}")

    def mapped(self, mp: Map, v: int) -> Any:
        if mp.kind == "value":
            for item in mp.items:
                if item.value == v:
                    return _trim(self.dec.text(item.message)) or str(v)
            return str(v)
        names: list[str] = []
        rest = v
        for item in sorted(mp.items, key=lambda i: i.value):
            if item.value == 0:
                if v == 0:
                    names.append(_trim(self.dec.text(item.message)) or "0")
            elif v & item.value == item.value:
                names.append(_trim(self.dec.text(item.message)) or f"0x{item.value:X}")
                rest &= ~item.value
        if rest:
            names.append(f"0x{rest:X}")
        return names

    def utf16(self, name: str, length: int | None) -> str:
        if length is not None:
            raw = self.take(2 * length, name).decode("utf-16-le", errors="replace")
            return raw.split("\0", 1)[0]
        end = self.pos
        while True:  # the first NUL code unit: a 00 00 pair at an even distance
            end = self.data.find(b"\0\0", end)
            if end < 0:
                raise self.fail(name, f"string at offset {self.pos} has no NUL terminator")
            if not (end - self.pos) & 1:
                break
            end += 1
        s = self.data[self.pos : end].decode("utf-16-le", errors="replace")
        self.pos = end + 2
        return s

    def ansi(self, name: str, length: int | None, out: str | None) -> str:
        if length is not None:
            return _ansi_text(self.take(length, name), out).split("\0", 1)[0]
        end = self.data.find(b"\0", self.pos)
        if end < 0:
            raise self.fail(name, f"string at offset {self.pos} has no NUL terminator")
        s = _ansi_text(self.data[self.pos : end], out)
        self.pos = end + 1
        return s

    def binary(self, name: str, b: bytes, out: str | None) -> tuple[Any, str, int | None]:
        if out == "win:IPv6":
            if len(b) != 16:
                raise self.fail(name, f"an IPv6 address needs 16 bytes, not {len(b)}")
            s = str(ipaddress.IPv6Address(b))
            return s, s, None
        if out == "win:SocketAddress":
            sa = socket_address(b)
            if sa is None:
                raise self.fail(name, f"{len(b)} bytes are no IPv4/IPv6 socket address")
            return sa, sa, None
        h = "0x" + b.hex().upper()
        return h, h, None

    def systemtime(self, name: str) -> str:
        y, mo, _dow, d, h, mi, s, ms = struct.unpack("<8H", self.take(16, name))
        try:
            t = dt.datetime(y, mo, d, h, mi, s, ms * 1000)
        except ValueError as e:
            raise self.fail(
                name, f"SYSTEMTIME {y}-{mo}-{d} {h}:{mi}:{s}.{ms} is invalid ({e})"
            ) from None
        return t.isoformat(timespec="milliseconds")

    def sid(self, name: str, length: int | None) -> str:
        start = self.pos
        head = self.take(8, name)
        rev, n = head[0], head[1]
        if rev != 1 or n > 15:
            raise self.fail(
                name, f"bytes at offset {start} are no SID (revision {rev}, {n} sub-authorities)"
            )
        subs = struct.unpack(f"<{n}I", self.take(4 * n, name))
        auth = int.from_bytes(head[2:8], "big")
        if length is not None and length > 8 + 4 * n:
            self.take(length - 8 - 4 * n, name)
        return "S-1-" + "-".join(str(x) for x in (auth, *subs))


_INT_FORMATS: dict[int, tuple[int, str]] = {
    c: (struct.calcsize("<" + wm.SCALAR_FORMATS[c]), "<" + wm.SCALAR_FORMATS[c])
    for c in sorted(wm.INTEGER_CODES)
}
_HEX_OUTS = {
    "win:HexInt8": 2,
    "win:HexInt16": 4,
    "win:HexInt32": 8,
    "win:HexInt64": 16,
    "win:Win32Error": 8,
    "win:NTSTATUS": 8,
    "win:HResult": 8,
    "win:ErrorCode": 8,
    "win:CodePointer": 0,
}


def _format_int(v: int, size: int, in_type: int, out: str | None) -> str | int:
    if in_type in (20, 21) and out not in _HEX_OUTS:
        return f"0x{v:0{2 * size}X}"
    if out in _HEX_OUTS:
        width = _HEX_OUTS[out]
        return f"0x{v & ((1 << (8 * size)) - 1):0{width}X}"
    return v


def _ansi_text(b: bytes, out: str | None) -> str:
    if out == "win:Utf8":
        return b.decode("utf-8", errors="replace")
    return b.decode("cp1252", errors="replace")


def _trim(text: str | None) -> str | None:
    return text.rstrip("\r\n") if text is not None else None


def filetime_text(v: int) -> str:
    """A FILETIME (100 ns since 1601-01-01 UTC) as ISO 8601 with 7 fraction digits."""
    secs, frac = divmod(v, 10_000_000)
    try:
        t = dt.datetime(1601, 1, 1) + dt.timedelta(seconds=secs)
    except OverflowError:
        return f"0x{v:016X}"
    return t.strftime("%Y-%m-%dT%H:%M:%S") + f".{frac:07d}Z"


def socket_address(b: bytes) -> str | None:
    """A SOCKADDR_IN / SOCKADDR_IN6 as ``a.b.c.d:port`` / ``[v6]:port`` (None if neither)."""
    if len(b) >= 8 and int.from_bytes(b[:2], "little") == 2:
        return f"{ipaddress.IPv4Address(b[4:8])}:{int.from_bytes(b[2:4], 'big')}"
    if len(b) >= 28 and int.from_bytes(b[:2], "little") == 23:
        scope = int.from_bytes(b[24:28], "little")
        addr = str(ipaddress.IPv6Address(b[8:24])) + (f"%{scope}" if scope else "")
        return f"[{addr}]:{int.from_bytes(b[2:4], 'big')}"
    return None


# --------------------------------------------------------------------------- messages


def format_message(text: str, inserts: Sequence[str]) -> str:
    """Format a message like FormatMessage with string inserts (``%1`` is ``inserts[0]``)."""
    out: list[str] = []
    for t in tokens(text):
        if isinstance(t, str):
            out.append(t)
        elif isinstance(t, Stop):
            break
        elif t.number > len(inserts):
            out.append(f"%{t.number}")  # nothing to insert: shown as written
        else:
            value = inserts[t.number - 1]
            out.append(_printf(value, t.format) if t.format and t.closed else value)
    return "".join(out)


def _printf(value: str, fmt: str) -> str:
    """Apply a ``!fmt!`` printf conversion to an insert when it fits the value."""
    try:
        if fmt and fmt[-1] in "diuxXo":
            n = int(value, 0)
            return ("%" + fmt.replace("I64", "").replace("l", "").replace("u", "d")) % n
        if fmt and fmt[-1] in "sS":
            return ("%" + fmt[:-1] + "s") % value
    except (ValueError, TypeError):
        pass
    return value


# --------------------------------------------------------------------------- CLI


def run(args: argparse.Namespace) -> int:
    """``etwmc decode``: decode an event file to JSON (exit 1 if any event fails)."""
    from .diagnostics import render_text
    from .inputs import event_file_problem, open_input, write_output
    from .runtime.eventfile import EventFileError, iter_events

    if bool(args.manifest) == bool(args.wevt):
        print("etwmc: decode needs exactly one of --manifest or --wevt", file=sys.stderr)
        return 2
    with open_input(args.input) as events:
        manifest = _load_metadata(args)
        if manifest is None:
            return 1
        dec = Decoder(manifest)
        out: list[dict[str, Any]] = []
        try:
            out.extend(_record_json(dec, rec) for rec in iter_events(events))
        except (OSError, EventFileError) as e:
            sys.stderr.write(render_text([event_file_problem(args.input, e)]))
            return 1
    text = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    if args.output:
        write_output(args.output, text)
    else:
        sys.stdout.write(text)
    return 1 if any("error" in item for item in out) else 0


def _record_json(dec: Decoder, rec: EventRecord) -> dict[str, Any]:
    """One event record as decode prints it; a payload that does not decode gives an
    ``error`` member instead of the values."""
    try:
        d = dec.decode(
            rec.provider_id, rec.id, rec.version, rec.user_data, pointer_size=rec.pointer_size
        )
        item = d.to_json()
    except DecodeError as e:
        item = {
            "provider_id": str(rec.provider_id),
            "id": rec.id,
            "version": rec.version,
            "error": str(e),
        }
    item["descriptor"] = {
        "id": rec.id,
        "version": rec.version,
        "channel": rec.channel,
        "level": rec.level,
        "opcode": rec.opcode,
        "task": rec.task,
        "keyword": f"0x{rec.keyword:016X}",
    }
    item["timestamp"] = filetime_text(rec.timestamp)
    item["process_id"] = rec.process_id
    item["thread_id"] = rec.thread_id
    item["activity_id"] = str(rec.activity_id)
    if rec.related_activity_id is not None:
        item["related_activity_id"] = str(rec.related_activity_id)
    return item


def _load_metadata(args: argparse.Namespace) -> Manifest | None:
    from .diagnostics import render_text

    if args.manifest:
        from .inputs import require_input
        from .validate import check_file

        require_input(args.manifest)
        checked = check_file(args.manifest)
        if not checked.ok or checked.manifest is None:
            sys.stderr.write(render_text(checked.diagnostics))
            return None
        return checked.manifest
    from .inputs import load_blob

    manifest, problems = load_blob(args.wevt, args.messages)
    sys.stderr.write(render_text(problems))
    return manifest
