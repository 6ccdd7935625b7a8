"""Encode time of every binary output (TEMP.BIN, message tables, .rc) for the largest
manifests of the corpus.

Run: .venv/bin/python bench/bench_wevt.py [--repeat N]

The model is built first and not timed; the figure is the best of N encodes.  Target:
all binary outputs of Win10-18990_Microsoft-Windows-Shell-Core.xml in <= 0.3 s.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from etwmc.validate import check_file  # noqa: E402
from etwmc.wevt import binary_outputs  # noqa: E402

CORPUS = ROOT.parent / "shared" / "corpus"
TARGET_FILE = "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml"
TARGET_SECONDS = 0.3
OTHERS = (
    "microsoft__Tx__Microsoft.Windows.ApplicationServer.Applications.manifest",
    "microsoft__Tx__SystemEvents.man",
    "microsoft__perfview__ClrEtwAll.man",
)


def best_encode(path: Path, repeat: int) -> tuple[float, int, int, int]:
    manifest = check_file(path).manifest
    if manifest is None:
        raise SystemExit(f"{path.name}: no model could be built")
    best = float("inf")
    size = 0
    for _ in range(repeat):
        t = time.perf_counter()
        out = binary_outputs(manifest, "x")
        best = min(best, time.perf_counter() - t)
        size = sum(len(v) for v in out.values())
    events = sum(len(p.events) for p in manifest.providers)
    templates = sum(len(p.templates) for p in manifest.providers)
    return best, size, events, templates


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    rows = [TARGET_FILE, *OTHERS]
    print(f"{'manifest':62} {'events':>6} {'tmpls':>6} {'bytes':>9} {'encode':>9}")
    target_time = None
    for name in rows:
        path = CORPUS / name
        if not path.is_file():
            print(f"{name[:62]:62} (absent)")
            continue
        secs, size, events, templates = best_encode(path, args.repeat)
        if name == TARGET_FILE:
            target_time = secs
        print(f"{name[:62]:62} {events:6d} {templates:6d} {size:9d} {secs * 1000:7.1f}ms")
    if target_time is not None:
        ratio = target_time / TARGET_SECONDS
        print(
            f"\nShell-Core: {target_time:.3f} s of encode time; target {TARGET_SECONDS} s; "
            f"ratio {ratio:.2f} ({'within' if ratio <= 1 else 'OVER'} target)"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
