"""Whole-process ``etwmc compile`` time for the two largest corpus manifests.

Targets: ClrEtwAll.man (.NET runtime, 4 providers, 384 events) <= 3 s, the goal beyond
being dotnet/runtime's genEventing.py (~0.3 s); Win10 Microsoft-Windows-Shell-Core
(2,380 events) <= 8 s.  Each compile runs in a fresh interpreter (imports included),
writes every output into a temporary folder; the best time of ``--rounds`` and the
largest peak memory are reported.

Run: ``python bench/bench_compile.py``.  Needs ``../shared/corpus`` next to the checkout.
Exit status 1 when a target is missed, 2 when the corpus is absent.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
from pathlib import Path

from _measure import run_measured

CORPUS = Path(__file__).resolve().parents[1].parent / "shared" / "corpus"
CASES = (
    ("microsoft__perfview__ClrEtwAll.man", 3.0),
    ("repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml", 8.0),
)


def compile_once(manifest: Path) -> tuple[float, float]:
    """Wall seconds and peak MiB of one whole-process compile."""
    with tempfile.TemporaryDirectory(prefix="etwmc-bench-") as out:
        cmd = [sys.executable, "-m", "etwmc", "compile", str(manifest), "-o", out]
        elapsed, peak, status = run_measured(cmd)
        if status != 0:
            raise SystemExit(f"etwmc compile {manifest.name} failed (exit {status})")
        return elapsed, peak


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    if not CORPUS.is_dir():
        print(f"no corpus at {CORPUS}", file=sys.stderr)
        return 2
    missed = 0
    for name, target in CASES:
        manifest = CORPUS / name
        runs = [compile_once(manifest) for _ in range(args.rounds)]
        best = min(r[0] for r in runs)
        peak = max(r[1] for r in runs)
        lines = 0
        with tempfile.TemporaryDirectory() as out:
            subprocess.run(
                [sys.executable, "-m", "etwmc", "compile", str(manifest), "-o", out, "--no-binary"],
                capture_output=True,
                check=True,
            )
            lines = sum(p.read_text().count("\n") for p in Path(out).glob("*.py"))
        ok = best <= target
        missed += not ok
        print(
            f"{name[:60]:60s} {best:6.2f} s  ({lines:,} generated lines; "
            f"target <= {target:.0f} s, ratio {best / target:.2f}; peak {peak:.0f} MiB)  "
            f"{'ok' if ok else 'MISSED'}"
        )
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
