"""Run one command and report its CPU time, peak memory and exit status.

Linux starts a new process's peak resident memory (``ru_maxrss``) at the peak of the
process it was forked from.  The benchmarks run their commands from a process that
grows as it works (a generated 50,000-event manifest, a trace four times as long), so
every command run after that would report at least that much.  This launcher is a
fresh, small interpreter (started with ``-S``): the command is spawned from it, and its
own figures are written to the file descriptor given as the first argument, as
``cpu_seconds peak_kib exit_status``.  Its standard output and error go nowhere.
"""

import os
import sys


def main() -> None:
    report, cmd = int(sys.argv[1]), sys.argv[2:]
    quiet = [(os.POSIX_SPAWN_OPEN, fd, os.devnull, os.O_WRONLY, 0) for fd in (1, 2)]
    pid = os.posix_spawnp(cmd[0], cmd, os.environ, file_actions=quiet)
    _, status, usage = os.wait4(pid, 0)
    cpu = usage.ru_utime + usage.ru_stime
    os.write(report, f"{cpu!r} {usage.ru_maxrss} {os.waitstatus_to_exitcode(status)}".encode())
    os.close(report)


if __name__ == "__main__":
    main()
