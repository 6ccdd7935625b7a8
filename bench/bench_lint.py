"""Whole-process `etwmc lint` timings on the largest corpus manifests and the whole corpus.

Run: .venv/bin/python bench/bench_lint.py [--repeat N]
Prints the best wall time of N runs of each command and its ratio to the target budget
(ratio <= 1.0 meets the target).  Start-up of the interpreter is included: this is what a
user or CI waits for.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

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


def best_of(cmd: list[str], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=CORPUS, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        best = min(best, time.perf_counter() - t)
    return best


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    if not CORPUS.is_dir():
        print("../shared/corpus not found; nothing to measure")
        return 0
    baseline = best_of([sys.executable, "-c", "pass"], args.repeat)
    print(f"{'case':34} {'seconds':>8} {'target':>7} {'ratio':>6}")
    print(f"{'python -c pass (start-up floor)':34} {baseline:8.3f}")
    for label, paths, target in CASES:
        t = best_of([sys.executable, "-m", "etwmc", "lint", "-q", *paths], args.repeat)
        print(f"{label:34} {t:8.3f} {target:7.2f} {t / target:6.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
