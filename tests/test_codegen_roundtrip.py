"""Round trip over the corpus: every event of every provider is written through its
generated module (with generated argument values) into an in-process session, then
decoded with metadata read back from ``<base>TEMP.BIN`` alone; every field must equal
what was written, as the decoder presents it (documented in :mod:`etwmc.decode`)."""

from __future__ import annotations

import ipaddress
import struct
import uuid
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from codegen_helpers import HELLO, load

from conftest import corpus_files, expected_failures, sized_cases
from etwmc.compile import compile_manifest
from etwmc.decode import Decoder, filetime_text, socket_address
from etwmc.model import Field, Map, Provider, Struct
from etwmc.python import build_context
from etwmc.runtime.backends.inproc import InProcBackend
from etwmc.validate import check_file
from etwmc.wevt.reader import read_wevt

HEX_WIDTH = {"win:HexInt8": 2, "win:HexInt16": 4, "win:HexInt32": 8, "win:HexInt64": 16}
HEX_WIDTH |= {"win:Win32Error": 8, "win:NTSTATUS": 8, "win:HResult": 8, "win:ErrorCode": 8}
HEX_WIDTH |= {"win:CodePointer": 0}
INT_SIZES = {3: 1, 4: 1, 5: 2, 6: 2, 7: 4, 8: 4, 9: 8, 10: 8, 20: 4, 21: 8}
WHEN = datetime(2021, 6, 7, 8, 9, 10, 123000)


def out_of(f: Field) -> str | None:
    if f.out_type is not None:
        return f.out_type.qname
    return f.in_type.outs[0] if f.in_type else None


class Gen:
    """Argument values for a template, and what the decoder should show for them."""

    def __init__(self, provider: Provider, seed: int) -> None:
        self.p = provider
        self.seed = seed

    def element(self, f: Field, length: int | None) -> tuple[Any, Any]:
        """(value to pass, decoded presentation) for one element of field ``f``."""
        assert f.in_type is not None
        code, out = f.in_type.code, out_of(f)
        self.seed += 1
        if code in INT_SIZES:
            size = INT_SIZES[code]
            signed = code in (3, 5, 7, 9)
            if out == "xs:string" and code in (3, 4, 6):
                v = 65 + self.seed % 26
            elif out == "xs:boolean":
                v = 1
            elif f.map is not None and (mp := self.p.map_named(f.map)) and mp.items:
                fits = [i.value for i in mp.items if 0 <= i.value < 1 << (8 * size - 1)] or [1]
                v = fits[self.seed % len(fits)]
            else:
                v = (self.seed * 2654435761) % (1 << (8 * size - 1))
                v = -v if signed and self.seed % 2 else v
            return v, self.present_int(f, v, size, out)
        if code in (11, 12):
            return self.seed + 0.5, self.seed + 0.5
        if code == 13:
            return bool(self.seed % 2), bool(self.seed % 2)
        if code == 15:
            g = uuid.UUID(int=self.seed * 0x1234567890ABCDEF)
            return g, "{" + str(g).upper() + "}"
        if code == 16:
            return 0x7FF0_0000 + self.seed, f"0x{0x7FF0_0000 + self.seed:X}"
        if code in (1, 2, 22, 23):
            n = 3 if length is None else max(0, min(length, 5))
            s = "".join(chr(97 + (self.seed + i) % 26) for i in range(n))
            if code in (1, 22) and length is None:
                s += "\u00e9\U0001f600"
            elif code in (2, 23) and length is None:
                s += "\u00e9\u20ac"  # in Windows-1252 (and UTF-8 for win:Utf8)
            return s, s
        if code in (14, 25):
            wide = out in ("win:IPv6", "win:SocketAddress")
            n = length if length is not None else (16 if wide else 4)
            if out == "win:SocketAddress" and n >= 8:
                b = struct.pack("<H", 2) + bytes([0x1F, 0x90, 10, 0, 0, self.seed % 250])
                b += bytes(n - len(b))
                return b, socket_address(b)
            b = bytes((self.seed + i) % 256 for i in range(n))
            if out == "win:IPv6" and len(b) == 16:
                return b, str(ipaddress.IPv6Address(b))
            return b, "0x" + b.hex().upper()
        if code == 17:
            when = WHEN.replace(tzinfo=UTC)
            ticks = (int(when.timestamp()) + 11644473600) * 10**7 + when.microsecond * 10
            return when, filetime_text(ticks)
        if code == 18:
            return WHEN, WHEN.isoformat(timespec="milliseconds")
        if code == 19:
            return "S-1-5-21-1-2-3", "S-1-5-21-1-2-3"
        raise AssertionError(f"no generator for inType {code}")

    def present_int(self, f: Field, v: int, size: int, out: str | None) -> Any:
        assert f.in_type is not None
        code = f.in_type.code
        raw = v & ((1 << (8 * size)) - 1)
        if code == 6 and out == "win:Port":
            return int.from_bytes(raw.to_bytes(2, "little"), "big")
        if code == 8 and out == "win:IPv4":
            return str(ipaddress.IPv4Address(raw.to_bytes(4, "little")))
        if f.map is not None and (mp := self.p.map_named(f.map)) is not None:
            return present_map(mp, v)
        if out == "xs:boolean" and code == 4:
            return bool(v)
        if out == "xs:string" and code in (3, 4, 6):
            return chr(raw)
        if out in HEX_WIDTH:
            return f"0x{raw:0{HEX_WIDTH[out]}X}"
        if code in (20, 21):
            return f"0x{raw:0{2 * size}X}"
        return v

    def scope(
        self, items: tuple[Field | Struct, ...] | tuple[Field, ...]
    ) -> tuple[list[Any], dict[str, Any]]:
        """Arguments for the non-derived items, and the expected decoded fields."""
        counted = {x for it in items for x in (it.count, it.length) if isinstance(x, str)}
        sizes: dict[str, int] = {}
        args: list[Any] = []
        expected: dict[str, Any] = {}
        # Array sizes and lengths first: every item that refers to a field agrees on it.
        for it in items:
            if isinstance(it.count, str):
                sizes.setdefault(it.count, 2)
            is_sid = isinstance(it, Field) and it.in_type is not None and it.in_type.code == 19
            if isinstance(it.length, str) and not is_sid:
                # An IPv6 address or a socket address needs 16 bytes to decode.
                needs16 = isinstance(it, Field) and out_of(it) in ("win:IPv6", "win:SocketAddress")
                sizes[it.length] = 16 if needs16 else sizes.get(it.length, 3)
        for name in counted - sizes.keys():
            sizes[name] = 24  # a length only SIDs refer to: the size of the SID written
        for it in items:
            if it.name in counted:
                n = sizes[it.name]
                assert isinstance(it, Field)
                expected[it.name] = self.present_int(it, n, INT_SIZES[it.in_type.code], out_of(it))  # type: ignore[union-attr]
                continue
            count = it.count if isinstance(it.count, int) else sizes.get(it.count or "")
            count = None if count == 0 else count  # mc stores no count for count="0"
            if isinstance(it, Struct):

                def one(st: Struct = it) -> tuple[tuple[Any, ...], dict[str, Any]]:
                    a, e = self.scope(st.fields)
                    return tuple(a), e

                if count is None:
                    a, e = one()
                    args.append(a)
                    expected[it.name] = e
                else:
                    pairs = [one() for _ in range(count)]
                    args.append([a for a, _ in pairs])
                    expected[it.name] = [e for _, e in pairs]
                continue
            length = it.length if isinstance(it.length, int) else sizes.get(it.length or "")
            length = None if length == 0 else length
            if count is None:
                a, e = self.element(it, length)
                args.append(a)
                expected[it.name] = e
            else:
                pairs = [self.element(it, length) for _ in range(count)]
                args.append([a for a, _ in pairs])
                expected[it.name] = [e for _, e in pairs]
        return args, expected


def present_map(mp: Map, v: int) -> Any:
    # Decoded with TEMP.BIN alone there are no message strings: values show as numbers.
    if mp.kind == "value":
        return str(v)
    names = []
    rest = v
    for item in sorted(mp.items, key=lambda i: i.value):
        if item.value == 0:
            if v == 0:
                names.append("0")
        elif v & item.value == item.value:
            names.append(f"0x{item.value:X}")
            rest &= ~item.value
    if rest:
        names.append(f"0x{rest:X}")
    return names


def round_trip(man: Path, tmp_path: Path) -> int:
    checked = check_file(man)
    assert checked.ok and checked.manifest is not None
    result = compile_manifest(man)
    assert result.ok
    py = next(n for n in result.files if n.endswith(".py"))
    blob = next(v for n, v in result.files.items() if n.endswith("TEMP.BIN"))
    (tmp_path / py).write_bytes(result.files[py])
    mod = load(tmp_path / py)
    decoder = Decoder(read_wevt(blob))
    # The write function of each event, in event order (the generator's own naming).
    ctx, _ = build_context(checked.manifest, version="", source="")
    backend = InProcBackend()
    written = 0
    with backend.session(buffer=None) as session, mod.registration(backend):
        records: list[Any] = []
        session.consumer = records.append
        for p, runtime in zip(checked.manifest.providers, mod.PROVIDERS, strict=True):
            session.enable(runtime.guid, level=255)
            gen = Gen(p, seed=p.index * 1000)
            names = iter(e.write for e in ctx.providers[p.index].events)
            for ev in p.events:
                if ev.not_logged:
                    continue
                args, expected = gen.scope(ev.template.items if ev.template else ())
                write = getattr(mod, next(names))
                records.clear()
                write(*args)
                [rec] = records  # level 255 and every keyword: every event is enabled
                got = decoder.decode(rec.provider_id, rec.id, rec.version, rec.user_data)
                assert got.fields == expected, (man.name, ev.value, ev.version)
                assert got.extra == b""
                written += 1
            session.disable(runtime.guid)
    return written


def test_hello_round_trip(tmp_path: Path) -> None:
    assert round_trip(HELLO, tmp_path) == 3


@pytest.mark.parametrize(
    "man",
    sized_cases(
        [p for p in corpus_files() if p.name not in expected_failures()],
        ids=lambda p: p.name[:60],
    ),
)
def test_corpus_round_trip(man: Path, tmp_path: Path) -> None:
    round_trip(man, tmp_path)
