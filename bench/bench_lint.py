"""Whole-process `etwmc lint` timings on the largest corpus manifests and the whole corpus.

Run: .venv/bin/python bench/bench_lint.py [--repeat N]
Prints the best wall time of N runs of each command, its ratio to the target budget
(ratio <= 1.0 meets the target) and the process's peak memory.  Start-up of the
interpreter is included: this is what a user or CI waits for.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from _measure import best_of

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpus"

CASES = [
    ("ClrEtwAll.man (384 events)", ["microsoft__perfview__ClrEtwAll.man"], 0.8),
    (
        "Shell-Core.xml (2,380 events)",
        ["repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml"],
        1.5,
    ),
    ("whole corpus, one call", ["."], 6.0),
]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print("../shared/corpus not found; nothing to measure")
        return 0
    baseline, base_mem = best_of([sys.executable, "-c", "pass"], args.repeat, CORPUS)
    print(f"{'case':34} {'seconds':>8} {'target':>7} {'ratio':>6} {'peak MiB':>9}")
    print(f"{'python -c pass (start-up floor)':34} {baseline:8.3f} {'':7} {'':6} {base_mem:9.1f}")
    for label, paths, target in CASES:
        cmd = [sys.executable, "-m", "etwmc", "lint", "-q", *paths]
        t, mem = best_of(cmd, args.repeat, CORPUS)
        print(f"{label:34} {t:8.3f} {target:7.2f} {t / target:6.2f} {mem:9.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
