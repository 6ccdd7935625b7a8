"""Timing and peak memory of one whole process, for the whole-process benchmarks."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

_LAUNCH = Path(__file__).with_name("_launch.py")


def run_cpu(
    cmd: list[str], cwd: Path | None = None, env: Mapping[str, str] | None = None
) -> tuple[float, float, int]:
    """Run ``cmd``; return (CPU seconds (user + system), peak resident MiB, exit status).

    CPU time, unlike wall time, does not grow when other work shares the machine.  The
    command is started by a small launcher (_launch.py), so that its peak memory does
    not start at this process's."""
    r, w = os.pipe()
    try:
        proc = subprocess.Popen(
            [sys.executable, "-S", str(_LAUNCH), str(w), *cmd],
            cwd=cwd,
            env=None if env is None else dict(env),
            pass_fds=(w,),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        os.close(w)
        w = -1
        with os.fdopen(r, "rb") as f:
            r = -1
            text = f.read().decode()
        if proc.wait() != 0 or not text:
            raise RuntimeError(f"the launcher failed for {cmd!r}")
    finally:
        for fd in (r, w):
            if fd >= 0:
                os.close(fd)
    cpu, kib, status = text.split()
    return float(cpu), int(kib) / 1024, int(status)
