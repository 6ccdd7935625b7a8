"""Whole-process `etwmc decode TRACE.etl` throughput and peak memory.

Run: .venv/bin/python bench/bench_etl.py [--repeat N] [--trace FILE]

Decodes perfview_net.4.5.2.x86.etl (168,298 events, compressed buffers, 32-bit; .NET
runtime and rundown events with their 1803 manifests, three EventSource providers with
their in-band manifests, the rest kernel events) to JSON Lines in a temporary file.
The floor is the container library's own bare iteration over the same file
(``for record in ETL(f)``: records found, nothing decoded).  Runs are interleaved
(floor, decode, floor, decode, ...) and each figure is the least CPU time (user +
system) of N runs of a whole process, start-up and imports included.  Goal: at least
150,000 events/s (bench/run.py also compares with etwmc's own floor walk).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

from _measure import run_cpu

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT.parent / "shared" / "traces"
EVENTS = 168_298
GOAL = 150_000

FLOOR = "import sys\nfrom dissect.etl.etl import ETL\nwith open(sys.argv[1], 'rb') as f:\n"
FLOOR += "    n = sum(1 for _ in ETL(f))\nassert n == int(sys.argv[2]), n\n"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trace", default=str(TRACES / "perfview_net.4.5.2.x86.etl"))
    ap.add_argument("--events", type=int, default=EVENTS)
    args = ap.parse_args()
    path = Path(args.trace)
    if not path.is_file():
        print(f"{path} not found; nothing to measure")
        return 0
    manifests = [
        TRACES / "Win10-17134_Microsoft-Windows-DotNETRuntime.xml",
        TRACES / "Win10-17134_Microsoft-Windows-DotNETRuntimeRundown.xml",
    ]
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "events.jsonl"
        decode = [sys.executable, "-m", "etwmc", "decode", str(path), "-o", str(out)]
        for m in manifests:
            if m.is_file():
                decode += ["--manifest", str(m)]
        floor = [sys.executable, "-c", FLOOR, str(path), str(args.events)]
        runs: dict[str, list[tuple[float, float]]] = {"floor": [], "decode": []}
        for _ in range(args.repeat):
            for name, cmd in (("floor", floor), ("decode", decode)):
                cpu, mem, rc = run_cpu(cmd, ROOT)
                if rc not in (0, 1):  # 1: some events do not fit the 1803 manifests
                    print(f"{name} failed with exit status {rc}: {' '.join(cmd)}")
                    return 2
                runs[name].append((cpu, mem))
        lines = sum(1 for _ in out.open(encoding="utf-8"))
    if lines != args.events:
        print(f"decode wrote {lines} events, expected {args.events}")
        return 2
    print(f"{path.name}: {args.events:,} events, best of {args.repeat} interleaved runs")
    print(f"{'command':44} {'CPU s':>7} {'events/s':>9} {'vs floor':>8} {'peak MiB':>9}")
    floor_cpu = min(c for c, _ in runs["floor"])
    for name, label in (
        ("floor", "dissect.etl bare iteration (floor)"),
        ("decode", "etwmc decode -o FILE (JSON Lines)"),
    ):
        cpu = min(c for c, _ in runs[name])
        mem = max(m for _, m in runs[name])
        rate = args.events / cpu
        print(f"{label:44} {cpu:7.2f} {rate:9,.0f} {floor_cpu / cpu:7.2f}x {mem:9.1f}")
    best = args.events / min(c for c, _ in runs["decode"])
    print(f"goal {GOAL:,} events/s: {'met' if best >= GOAL else 'not met'} ({best / GOAL:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
