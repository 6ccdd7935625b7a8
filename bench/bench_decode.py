"""Decode throughput (events per second) on a realistic mix of payloads.

Run: .venv/bin/python bench/bench_decode.py [--events N] [--repeat R]

The mix imitates a service trace: 40 % small integer events (ids, sizes, an error code),
25 % events with two strings and a GUID, 15 % network events (IPv4, port, value map,
bit map), 10 % events with an array and a FILETIME, 10 % events with a counted struct
array.  Metadata comes from a manifest (lowered) and from the same manifest compiled to a
WEVT_TEMPLATE blob and read back; the figure is the best of R passes over N events.
"""

from __future__ import annotations

import argparse
import random
import struct
import sys
import time
import uuid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from etwmc.decode import Decoder  # noqa: E402
from etwmc.model import Manifest  # noqa: E402
from etwmc.validate import check_bytes  # noqa: E402

GUID = uuid.UUID("7d2f4f7e-2c39-4a6b-9a51-0f7d6a0b2c11")
MANIFEST = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
 <instrumentation><events>
  <provider name="Bench-Decode" guid="{7D2F4F7E-2C39-4A6B-9A51-0F7D6A0B2C11}" symbol="BENCH"
            resourceFileName="b.dll" messageFileName="b.dll">
   <maps>
    <valueMap name="Proto">
     <map value="6" message="$(string.tcp)"/><map value="17" message="$(string.udp)"/>
    </valueMap>
    <bitMap name="Opts">
     <map value="0x1" message="$(string.nodelay)"/><map value="0x2" message="$(string.keepalive)"/>
    </bitMap>
   </maps>
   <templates>
    <template tid="Small">
     <data name="Id" inType="win:UInt32"/><data name="Size" inType="win:UInt64"/>
     <data name="Status" inType="win:UInt32" outType="win:Win32Error"/>
    </template>
    <template tid="Strings">
     <data name="Path" inType="win:UnicodeString"/><data name="User" inType="win:AnsiString"/>
     <data name="Session" inType="win:GUID"/>
    </template>
    <template tid="Net">
     <data name="Addr" inType="win:UInt32" outType="win:IPv4"/>
     <data name="Port" inType="win:UInt16" outType="win:Port"/>
     <data name="Proto" inType="win:UInt32" map="Proto"/>
     <data name="Opts" inType="win:UInt32" map="Opts"/>
    </template>
    <template tid="Array">
     <data name="N" inType="win:UInt16"/><data name="Samples" inType="win:Int32" count="N"/>
     <data name="When" inType="win:FILETIME"/>
    </template>
    <template tid="Structs">
     <data name="N" inType="win:UInt8"/>
     <struct name="Items" count="N">
      <data name="Key" inType="win:UInt16"/><data name="Name" inType="win:UnicodeString"/>
     </struct>
    </template>
   </templates>
   <events>
    <event value="1" template="Small" level="win:Informational" message="$(string.small)"/>
    <event value="2" template="Strings" level="win:Informational" message="$(string.strings)"/>
    <event value="3" template="Net" level="win:Verbose"/>
    <event value="4" template="Array" level="win:Verbose"/>
    <event value="5" template="Structs" level="win:Verbose"/>
   </events>
  </provider>
 </events></instrumentation>
 <localization><resources culture="en-US"><stringTable>
  <string id="tcp" value="TCP"/><string id="udp" value="UDP"/>
  <string id="nodelay" value="NoDelay"/><string id="keepalive" value="KeepAlive"/>
  <string id="small" value="Request %1 of %2 bytes finished with %3."/>
  <string id="strings" value="%2 opened %1 in session %3."/>
 </stringTable></resources></localization>
</instrumentationManifest>
"""


def _utf16z(s: str) -> bytes:
    return s.encode("utf-16-le") + b"\0\0"


def make_events(n: int, seed: int = 1) -> list[tuple[int, bytes]]:
    rnd = random.Random(seed)
    out: list[tuple[int, bytes]] = []
    for _ in range(n):
        r = rnd.random()
        if r < 0.40:
            payload = struct.pack("<IQI", rnd.randrange(1 << 20), rnd.randrange(1 << 40), 0)
            out.append((1, payload))
        elif r < 0.65:
            path = f"C:\\Users\\svc\\AppData\\Local\\Temp\\file{rnd.randrange(99999):05d}.tmp"
            payload = (
                _utf16z(path) + b"svc-account\0" + uuid.UUID(int=rnd.getrandbits(128)).bytes_le
            )
            out.append((2, payload))
        elif r < 0.80:
            payload = (
                bytes(rnd.randrange(256) for _ in range(4))
                + rnd.randrange(1 << 16).to_bytes(2, "big")
                + struct.pack("<II", rnd.choice((6, 17)), rnd.randrange(4))
            )
            out.append((3, payload))
        elif r < 0.90:
            k = rnd.randrange(1, 16)
            payload = (
                struct.pack("<H", k)
                + struct.pack(f"<{k}i", *(rnd.randrange(-999, 999) for _ in range(k)))
                + struct.pack("<Q", 133_000_000_000_000_000 + rnd.randrange(10**12))
            )
            out.append((4, payload))
        else:
            k = rnd.randrange(1, 5)
            payload = bytes([k]) + b"".join(
                struct.pack("<H", i) + _utf16z(f"item{i}") for i in range(k)
            )
            out.append((5, payload))
    return out


def bench(decoder: Decoder, events: list[tuple[int, bytes]], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for eid, payload in events:
            decoder.decode(GUID, eid, 0, payload)
        best = min(best, time.perf_counter() - start)
    return len(events) / best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=20000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    checked = check_bytes(MANIFEST.encode(), "bench.man")
    if not checked.ok or checked.manifest is None:
        for d in checked.diagnostics:
            print(d, file=sys.stderr)
        return 1
    events = make_events(args.events)
    from etwmc.wevt import build_wevt
    from etwmc.wevt.reader import read_wevt

    from_blob: Manifest = read_wevt(build_wevt(checked.manifest))
    for label, m in (("manifest metadata", checked.manifest), ("blob metadata", from_blob)):
        rate = bench(Decoder(m), events, args.repeat)
        print(
            f"decode, {label}: {rate:,.0f} events/s ({len(events)} events, best of {args.repeat})"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
