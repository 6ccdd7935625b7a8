"""Timing and peak memory of one whole process, for the whole-process benchmarks."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def run_cpu(cmd: list[str], cwd: Path | None = None) -> tuple[float, float, int]:
    """Run ``cmd``; return (CPU seconds (user + system), peak resident MiB, exit status).

    CPU time, unlike wall time, does not grow when other work shares the machine."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024, proc.returncode
