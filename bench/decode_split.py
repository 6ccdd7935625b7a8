"""Where ``etwmc decode``'s CPU time goes, stage by stage, in one process.

Run: .venv/bin/python bench/decode_split.py [TRACE.etl] [--repeat N]

Without a trace, ../shared/traces/perfview_net.4.5.2.x86.etl with both .NET manifests
(what bench/run.py's decode group measures).  Each figure is the best CPU time of N
runs (``time.process_time``) of one stage alone:

- LZXpress: decompressing every compressed buffer, nothing else;
- walk: ``EtlReader.walk()``'s records, less LZXpress (reading, the record headers,
  the record objects);
- pass lines: the JSON lines of the records that pass through (kernel and classic
  MOF records, ``PassRecord``), from records walked beforehand;
- events: the JSON lines of every other record (decoding their payloads);
- output: joining the lines into batches (``OutputBudget``) and writing them to a file.

The command also pays for starting the interpreter, importing etwmc and loading the
manifests (``bench/run.py`` measures it whole).
"""

from __future__ import annotations

import argparse
import collections
import struct
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from etwmc.decode.etl import BUFFER_HEADER, COMPRESSED, PassRecord, open_trace  # noqa: E402
from etwmc.decode.jsonline import JsonLines  # noqa: E402
from etwmc.decode.lzxpress import decompress  # noqa: E402
from etwmc.decode.metadata import load_manifest  # noqa: E402
from etwmc.decode.output import OutputBudget  # noqa: E402
from etwmc.decode.trace import TraceDecoder  # noqa: E402

TRACES = ROOT.parent / "shared" / "traces"
X86 = TRACES / "perfview_net.4.5.2.x86.etl"
DOTNET = ("DotNETRuntime", "DotNETRuntimeRundown")


def _best(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.process_time()
        fn()
        best = min(best, time.process_time() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("trace", nargs="?", type=Path, default=X86)
    ap.add_argument("--manifest", action="append", type=Path)
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = args.manifest or [TRACES / f"Win10-17134_Microsoft-Windows-{m}.xml" for m in DOTNET]
    models = [m for m in (load_manifest(str(p))[0] for p in paths) if m is not None]

    buffers = []
    with args.trace.open("rb") as f:
        while head := f.read(BUFFER_HEADER):
            size, filled, flags = struct.unpack_from("<I44xIH", head)
            body = f.read(size - BUFFER_HEADER)
            if flags & COMPRESSED:
                buffers.append((body, filled - BUFFER_HEADER))

    def walk() -> None:
        f, reader = open_trace(args.trace)
        with f:
            collections.deque(reader.walk(), maxlen=0)  # each record dropped as it comes

    f, reader = open_trace(args.trace)
    with f:
        records = list(reader.walk())
    passed = [r for r in records if isinstance(r, PassRecord)]
    others = [r for r in records if not isinstance(r, PassRecord)]

    def lines(of: list[Any]) -> Callable[[], None]:
        return lambda: collections.deque(
            TraceDecoder(models).json_lines(of, JsonLines(end="\n")), maxlen=0
        )

    text = list(TraceDecoder(models).json_lines(records, JsonLines(end="\n")))

    def output() -> None:
        with tempfile.TemporaryDirectory(prefix="etwmc-split-") as tmp:
            with open(Path(tmp) / "x.jsonl", "w", encoding="utf-8", newline="\n") as out:
                for piece in OutputBudget(1 << 62).take(text):
                    out.write(piece)

    lzx = _best(lambda: [decompress(b, n) for b, n in buffers], args.repeat)
    rows = [
        ("LZXpress", lzx),
        ("walk", _best(walk, args.repeat) - lzx),
        (f"pass lines ({len(passed):,})", _best(lines(passed), args.repeat)),
        (f"events ({len(others):,})", _best(lines(others), args.repeat)),
        ("output", _best(output, args.repeat)),
    ]
    total = sum(cpu for _, cpu in rows)
    print(f"{args.trace.name}: {len(records):,} records, best CPU time of {args.repeat}")
    for name, cpu in rows:
        print(f"  {name:24s} {cpu:6.3f} s  {100 * cpu / total:5.1f}%")
    print(f"  {'the above':24s} {total:6.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
