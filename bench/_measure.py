"""Timing and peak memory of one whole process, for the whole-process benchmarks."""

from __future__ import annotations

import os
import subprocess
import time
from pathlib import Path


def run_measured(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, int]:
    """Run ``cmd``; return (wall seconds, peak resident set in MiB, exit status).

    The peak comes from the kernel's accounting of that one child (``wait4``), so it
    includes the interpreter and every import, as a user's run would."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    elapsed = time.perf_counter() - start
    proc.returncode = os.waitstatus_to_exitcode(status)
    return elapsed, usage.ru_maxrss / 1024, proc.returncode


def best_of(cmd: list[str], repeat: int, cwd: Path | None = None) -> tuple[float, float]:
    """Best wall time and the largest peak memory over ``repeat`` runs."""
    runs = [run_measured(cmd, cwd) for _ in range(repeat)]
    return min(r[0] for r in runs), max(r[1] for r in runs)


def run_cpu(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, int]:
    """Run ``cmd``; return (CPU seconds (user + system), peak resident MiB, exit status).

    CPU time, unlike wall time, does not grow when other work shares the machine."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode
