"""CPU time of reading WEVT_TEMPLATE blobs back into a model, with the checks that
report what a decompiled manifest would lose (etwmc.wevt.fidelity).

Run: .venv/bin/python bench/bench_read.py [--repeat N]

Blobs: the largest corpus manifests compiled by etwmc, and Microsoft's services.wevt.
Named baseline: ``parse_blob``, the bounded walk of the layout that every reader does
first.  Runs are interleaved (baseline, reader, baseline, ...) and the figure is the
best CPU time (``time.process_time``) of each over N rounds; the ratio is reader time
over baseline time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from etwmc.validate import check_file  # noqa: E402
from etwmc.wevt import build_wevt  # noqa: E402
from etwmc.wevt.reader import parse_blob, read_wevt_with_losses  # noqa: E402

SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
MANIFESTS = (
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml",
    "microsoft__perfview__ClrEtwAll.man",
)
SAMPLES = (SHARED / "golden" / "samples" / "services.wevt",)


def _cpu(fn: Callable[[], object]) -> float:
    t = time.process_time()
    fn()
    return time.process_time() - t


def blobs() -> list[tuple[str, bytes]]:
    out = []
    for name in MANIFESTS:
        manifest = check_file(CORPUS / name).manifest
        if manifest is None:
            raise SystemExit(f"{name}: no model could be built")
        out.append((name, build_wevt(manifest)))
    out += [(p.name, p.read_bytes()) for p in SAMPLES]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print(f"corpus not found at {CORPUS}", file=sys.stderr)
        return 2
    print(f"{'blob':62} {'bytes':>9} {'parse_blob':>11} {'read':>9} {'ratio':>6}")
    for name, blob in blobs():
        base = read = float("inf")
        for _ in range(args.repeat):
            base = min(base, _cpu(lambda: parse_blob(blob)))  # noqa: B023
            read = min(read, _cpu(lambda: read_wevt_with_losses(blob)))  # noqa: B023
        print(f"{name[:62]:62} {len(blob):9} {base:10.4f}s {read:8.4f}s {read / base:5.1f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
