"""CPU time of ``etwmc mc`` (C header, .rc, TEMP.BIN, message tables) on the largest manifests.

Each round runs, interleaved and each in a fresh interpreter:

* ``etwmc mc -um`` on the manifest (validation, header and binary outputs);
* ``etwmc compile --no-python`` (validation and binary outputs only), so the ratio
  of the two is what the header adds;
* for ClrEtwAll.man, dotnet/runtime's genEventing.py (../shared/anchors/genEventing),
  which writes the runtime's C/C++ event headers from the same manifest without
  validating it: the named baseline for a header generator.

The best CPU time (user + system of the child) over ``--rounds`` is reported with
the ratios.  Target: ``etwmc mc`` within 3x genEventing's CPU time on ClrEtwAll.man.

Run: ``python bench/bench_header.py``.  Needs ``../shared`` next to the checkout.
Exit status 1 when the target is missed, 2 when ../shared is absent.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CORPUS = SHARED / "corpus"
GEN_EVENTING = SHARED / "anchors" / "genEventing" / "genEventing.py"
CLR = "microsoft__perfview__ClrEtwAll.man"
SHELL = "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml"
TARGET = 3.0


def cpu_seconds(cmd: list[str]) -> float:
    """User + system CPU seconds of one child process (imports included)."""
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"failed: {' '.join(cmd)}")
    return usage.ru_utime + usage.ru_stime


def commands(manifest: Path, out: Path) -> dict[str, list[str]]:
    etwmc = [sys.executable, "-m", "etwmc"]
    mc_dir, bin_dir = str(out / "mc"), str(out / "bin")
    cmds = {
        "etwmc mc": [*etwmc, "mc", "-um", "-h", mc_dir, "-r", mc_dir, str(manifest)],
        "compile --no-python": [*etwmc, "compile", str(manifest), "-o", bin_dir, "--no-python"],
    }
    if manifest.name == CLR:
        cmds["genEventing.py"] = [
            sys.executable, str(GEN_EVENTING), "--man", str(manifest),
            "--incdir", str(out / "gen"), "--dummy", str(out / "gen" / "etmdummy.h"),
        ]  # fmt: skip
    return cmds


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    args = parser.parse_args()
    if not (CORPUS.is_dir() and GEN_EVENTING.is_file()):
        print(f"no corpus or genEventing anchor under {SHARED}", file=sys.stderr)
        return 2
    missed = False
    for name in (CLR, SHELL):
        with tempfile.TemporaryDirectory(prefix="etwmc-bench-") as tmp:
            cmds = commands(CORPUS / name, Path(tmp))
            best = {k: float("inf") for k in cmds}
            for _ in range(args.rounds):
                for key, cmd in cmds.items():  # interleaved: load drifts hit all alike
                    best[key] = min(best[key], cpu_seconds(cmd))
        print(name)
        for key, t in best.items():
            print(f"  {key:22s} {t:6.2f} s CPU")
        print(f"  header share: etwmc mc / compile --no-python = "
              f"{best['etwmc mc'] / best['compile --no-python']:.2f}")  # fmt: skip
        if "genEventing.py" in best:
            ratio = best["etwmc mc"] / best["genEventing.py"]
            ok = ratio <= TARGET
            missed |= not ok
            print(f"  etwmc mc / genEventing.py = {ratio:.2f} (target <= {TARGET:.0f})  "
                  f"{'ok' if ok else 'MISSED'}")  # fmt: skip
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
