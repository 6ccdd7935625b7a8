"""The fuzz campaign: mutated manifests, WEVT blobs, message tables and event files
through etwmc's public commands, counting internal errors, hangs and memory blow-ups.

Run (one command; not part of the test suite; give it both cores, politely):

    nice -n 19 .venv/bin/python bench/fuzz.py --count 100000 --jobs 2 --out /tmp/etwmc-fuzz

Each input is made from (kind, index, --seed) alone (bench/_fuzz_inputs.py), then run
in a worker process through ``etwmc.cli.main`` (in-process, for throughput):

- manifests: ``lint``, ``compile -o <temp>``, ``diff <seed> <mutant>``;
- WEVT blobs: ``decompile [--messages]``, ``diff <seed> <mutant>``, ``decode --wevt``;
- message tables: ``decompile <blob> --messages``, ``decode --wevt <blob> --messages``;
- event files: ``decode --manifest``, ``decode --wevt --messages``.

One input in ``--subprocess-every`` is also run as ``python -m etwmc ...`` (a real
process, its real standard streams) and must give the same exit status.

What counts as a failure:

- **internal error**: the command printed "internal error" or a traceback, raised out
  of ``main``, or exited with a status other than 0, 1, 2;
- **hang**: the input used more than 5 s of CPU (the watchdog reads the worker's CPU
  time, so a busy machine does not make a slow input a hang), or 60 s of wall time;
- **memory**: the worker's peak resident set passed 500 MB (workers are recycled every
  ``--recycle`` inputs so that peak belongs to recent inputs; an address-space limit
  turns a runaway allocation into a MemoryError, counted here too).

Each failing input is saved under ``--out/failures/<kind>-<index>/`` with the command
that reproduces it.  The counts per kind and command are printed at the end and saved
as ``--out/summary.json``.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import multiprocessing as mp
import os
import random
import resource
import shutil
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter, defaultdict
from dataclasses import dataclass
from multiprocessing.connection import Connection, wait
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import _fuzz_inputs as fi  # noqa: E402

CPU_LIMIT = 5.0
WALL_LIMIT = 60.0
MEMORY_LIMIT_MB = 500
SHARES = {"manifest": 0.40, "blob": 0.25, "msgtable": 0.10, "events": 0.25}


@dataclass(frozen=True)
class Case:
    """One input: the files to write (name -> bytes) and the etwmc arguments, where
    ``{dir}`` stands for the folder the files are written to."""

    kind: str
    index: int
    command: str
    files: dict[str, bytes]
    args: list[str]


class Inputs:
    """The seeds, loaded once per process, and the deterministic case maker."""

    def __init__(self, seed: int, work: Path) -> None:
        from lxml import etree

        self.seed = seed
        self.manifests = fi.manifest_seeds()
        self.trees: dict[int, object] = {}
        self.etree = etree
        self.blobs, self.tables = fi.blob_seeds()
        rnd = random.Random(f"{seed}:event-seeds")
        event_manifests = [ROOT / "examples" / "hello.man"]
        event_manifests += sorted((ROOT / "tests" / "manifests" / "valid").glob("*.man"))
        large = fi.SHARED / "corpus" / "gix__event-trace-kit__Large.man"
        if large.is_file():
            event_manifests.append(large)
        self.events = fi.write_event_seeds(work / "seeds", event_manifests, rnd)
        self.guids = [uuid.UUID(int=rnd.getrandbits(128))]
        from etwmc.runtime.eventfile import read_events

        for path, *_ in self.events:
            self.guids += sorted({r.provider_id for r in read_events(path)})
        # Blobs and tables compiled from the event seeds come with events they describe,
        # so that decoding with a mutant reaches the payload decoder and the messages.
        self.paired: dict[Path, Path] = {}
        for events, _, _, blob, table in self.events:
            self.blobs.append((blob, blob.read_bytes(), table))
            self.tables.append((table, table.read_bytes(), blob))
            self.paired[blob] = self.paired[table] = events
        # Big seeds cost seconds per run: the smaller ones are picked more often; valid
        # seeds more often than the invalid ones (whose mutants stop at the first stages).
        from etwmc.validate import check_bytes

        self.weights = [
            (4.0 if check_bytes(data, str(path)).ok else 1.0) / max(1.0, len(data) / 50_000)
            for path, data in self.manifests
        ]

    def case(self, kind: str, index: int) -> Case:
        rnd = random.Random(f"{self.seed}:{kind}:{index}")
        return getattr(self, f"_{kind}")(rnd, index)

    def _tree(self, i: int) -> object:
        if i not in self.trees:
            parser = self.etree.XMLParser(resolve_entities=False, no_network=True, load_dtd=False)
            try:
                self.trees[i] = self.etree.fromstring(self.manifests[i][1], parser)
            except self.etree.XMLSyntaxError:
                self.trees[i] = None
        return self.trees[i]

    def _manifest(self, rnd: random.Random, index: int) -> Case:
        i = rnd.choices(range(len(self.manifests)), self.weights)[0]
        seed_path, data = self.manifests[i]
        tree = self._tree(i)
        if tree is not None and rnd.random() < 0.75:
            mutant = fi.serialize(rnd, fi.mutate_xml(rnd, tree))  # type: ignore[arg-type]
        else:
            mutant = fi.mutate_bytes(rnd, data, [d for _, d in rnd.sample(self.manifests, 2)])
        files = {"m.man": mutant}
        command = rnd.choices(["lint", "compile", "diff"], [5, 3, 2])[0]
        if command == "lint":
            args = ["lint", "{dir}/m.man"]
        elif command == "compile":
            args = ["compile", "{dir}/m.man", "-o", "{dir}/out", "-z", "m"]
            args += rnd.choice([[], ["--wevt-version", "3"], ["--resource-dll"], ["--verify"]])
        else:
            args = ["diff", str(seed_path), "{dir}/m.man"]
        return Case("manifest", index, command, files, args)

    def _blob(self, rnd: random.Random, index: int) -> Case:
        path, data, msg = rnd.choice(self.blobs)
        gentle = rnd.random() < 0.5
        mutant = fi.mutate_bytes(rnd, data, [d for _, d, _ in self.blobs], gentle=gentle)
        command = rnd.choice(["decompile", "diff", "decode"])
        if command == "decompile":
            args = ["decompile", "{dir}/TEMP.BIN", "-o", "{dir}/out.man"]
            if msg is not None and rnd.random() < 0.5:
                args += ["--messages", str(msg)]
        elif command == "diff":
            sides = [str(path), "{dir}/TEMP.BIN"]
            args = ["diff", *(sides if rnd.random() < 0.5 else sides[::-1])]
        else:
            events = self._events_for(rnd, path)
            args = ["decode", str(events), "--wevt", "{dir}/TEMP.BIN", "-o", "{dir}/out.json"]
        return Case("blob", index, command, {"TEMP.BIN": mutant}, args)

    def _events_for(self, rnd: random.Random, path: Path) -> Path:
        """The events a seed blob or table describes, else any seed's events."""
        return self.paired.get(path) or rnd.choice(self.events)[0]

    def _msgtable(self, rnd: random.Random, index: int) -> Case:
        path, data, blob = rnd.choice(self.tables)
        gentle = rnd.random() < 0.5
        mutant = fi.mutate_bytes(rnd, data, [d for _, d, _ in self.tables], gentle=gentle)
        if rnd.random() < 0.5:
            command = "decompile"
            args = ["decompile", str(blob), "--messages", "{dir}/MSG.bin", "-o", "{dir}/out.man"]
        else:
            command = "decode"
            events = self._events_for(rnd, path)
            args = ["decode", str(events), "--wevt", str(blob), "--messages", "{dir}/MSG.bin"]
            args += ["-o", "{dir}/out.json"]
        return Case("msgtable", index, command, {"MSG.bin": mutant}, args)

    def _events(self, rnd: random.Random, index: int) -> Case:
        path, data, man, blob, table = rnd.choice(self.events)
        mutant = fi.mutate_events(rnd, data, self.guids)
        if rnd.random() < 0.5:
            command = "decode-manifest"
            args = ["decode", "{dir}/e.etwmc", "--manifest", str(man), "-o", "{dir}/out.json"]
        else:
            command = "decode-wevt"
            args = ["decode", "{dir}/e.etwmc", "--wevt", str(blob), "--messages", str(table)]
            args += ["-o", "{dir}/out.json"]
        return Case("events", index, command, {"e.etwmc": mutant}, args)


# --------------------------------------------------------------------------- worker


def _run_in_process(args: list[str]) -> tuple[int, str]:
    from etwmc.cli import main

    out, err = io.StringIO(), io.StringIO()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = main(args)
    except BaseException as e:  # noqa: BLE001 - what escapes main is the finding
        return -1, f"raised out of main: {type(e).__name__}: {e}"
    return rc, err.getvalue()


def _classify(rc: int, err: str) -> str:
    if "MemoryError" in err:
        return "memory"
    if rc not in (0, 1, 2) or "internal error" in err or "Traceback" in err:
        return "internal"
    return "ok"


def _subprocess(args: list[str], folder: Path) -> tuple[int, str, float]:
    """Exit status, standard error and peak resident set (MB) of ``python -m etwmc``."""
    cmd = [sys.executable, "-m", "etwmc", *args]
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    with open(folder / "stderr.txt", "w+b") as err:
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=err, env=env)
        deadline = time.monotonic() + WALL_LIMIT
        while True:
            pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            if time.monotonic() > deadline:
                proc.kill()
                os.wait4(proc.pid, 0)
                return -9, "timed out", 0.0
            time.sleep(0.01)
        proc.returncode = os.waitstatus_to_exitcode(status)
        err.seek(0)
        text = err.read().decode("utf-8", "replace")
    return proc.returncode, text, usage.ru_maxrss / 1024


def worker(conn: Connection, inputs: Inputs, work: str, subprocess_every: int) -> None:
    """Run the inputs the parent sends, one at a time (``inputs`` is the parent's,
    inherited by fork: every process makes the same cases)."""
    base = Path(work) / f"run{os.getpid()}"
    # An address-space limit well above what etwmc needs turns a runaway allocation
    # into a MemoryError instead of a machine that swaps.
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    limit = _vm_size() + (MEMORY_LIMIT_MB + 700) * 2**20
    if hard == resource.RLIM_INFINITY or hard > limit:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    conn.send(("ready", None))
    while True:
        job = conn.recv()
        if job is None:
            return
        kind, index = job
        case = inputs.case(kind, index)
        folder = base / str(index)
        folder.mkdir(parents=True)
        for name, data in case.files.items():
            (folder / name).write_bytes(data)
        args = [a.replace("{dir}", str(folder)) for a in case.args]
        start = time.process_time()
        rc, err = _run_in_process(args)
        cpu = time.process_time() - start
        status = _classify(rc, err)
        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        if status == "ok" and peak > MEMORY_LIMIT_MB:
            status = "memory"
        result = {"status": status, "rc": rc, "cpu": cpu, "err": err[-2000:], "peak": peak}
        if subprocess_every and index % subprocess_every == 0:
            src, serr, speak = _subprocess(args, folder)
            result["sub"] = src
            if _classify(src, serr) != "ok" or src != rc:
                result["status"] = "internal" if src != -9 else "hang"
                result["err"] = f"subprocess exit {src} (in-process {rc}): {serr[-2000:]}"
            elif speak > MEMORY_LIMIT_MB:
                result["status"] = "memory"
        shutil.rmtree(folder, ignore_errors=True)
        conn.send(("done", result))


def _vm_size() -> int:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith("VmSize:"):
                return int(line.split()[1]) * 1024
    except OSError:
        pass
    return 2**30


def _cpu_seconds(pid: int) -> float | None:
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return None


# --------------------------------------------------------------------------- parent


class Slot:
    """One worker process and the input it is running."""

    def __init__(self, args: argparse.Namespace, inputs: Inputs, work: Path) -> None:
        ctx = mp.get_context("fork")
        self.conn, child = ctx.Pipe()
        self.proc = ctx.Process(
            target=worker, args=(child, inputs, str(work), args.subprocess_every), daemon=True
        )
        self.proc.start()
        child.close()
        self.done = 0
        self.job: tuple[str, int] | None = None
        self.started = 0.0
        self.cpu0: float | None = None
        assert self.conn.recv()[0] == "ready"

    def give(self, job: tuple[str, int]) -> None:
        self.job = job
        self.started = time.monotonic()
        self.cpu0 = _cpu_seconds(self.proc.pid)
        self.conn.send(job)

    def overdue(self) -> bool:
        wall = time.monotonic() - self.started
        cpu = _cpu_seconds(self.proc.pid)
        if cpu is not None and self.cpu0 is not None:
            return cpu - self.cpu0 > CPU_LIMIT or wall > WALL_LIMIT
        return wall > CPU_LIMIT

    def stop(self) -> None:
        with contextlib.suppress(OSError, ValueError):
            self.conn.send(None)
        self.proc.join(timeout=5)
        if self.proc.is_alive():
            self.proc.kill()
            self.proc.join()


def _schedule(count: int) -> list[tuple[str, int]]:
    jobs: list[tuple[str, int]] = []
    for kind, share in SHARES.items():
        jobs += [(kind, i) for i in range(round(count * share))]
    random.Random(0).shuffle(jobs)  # mix the kinds, so a partial run is still a sample
    return jobs


def _save(out: Path, inputs: Inputs, job: tuple[str, int], result: dict[str, object]) -> None:
    case = inputs.case(*job)
    folder = out / "failures" / f"{case.kind}-{case.index}"
    folder.mkdir(parents=True, exist_ok=True)
    for name, data in case.files.items():
        (folder / name).write_bytes(data)
    args = [a.replace("{dir}", str(folder)) for a in case.args]
    (folder / "command.txt").write_text(
        "python -m etwmc " + " ".join(subprocess.list2cmdline([a]) for a in args) + "\n"
    )
    (folder / "result.json").write_text(json.dumps(result, indent=2, default=str) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--count", type=int, default=100_000)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--out", type=Path, default=Path("fuzz-out"))
    ap.add_argument("--recycle", type=int, default=1500, help="inputs per worker process")
    ap.add_argument("--subprocess-every", type=int, default=400)
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="etwmc-fuzz-"))
    jobs = _schedule(args.count)
    todo = list(reversed(jobs))
    counts: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    worst: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)  # slowest, largest
    inputs = Inputs(args.seed, work / "seeds")
    slots = [Slot(args, inputs, work) for _ in range(args.jobs)]
    start = time.monotonic()
    finished = 0
    try:
        while todo or any(s.job for s in slots):
            for slot in slots:
                if slot.job is None and todo:
                    slot.give(todo.pop())
            busy = [s for s in slots if s.job is not None]
            ready = wait([s.conn for s in busy], timeout=0.25)
            for n, slot in enumerate(slots):
                if slot.job is None:
                    continue
                if slot.conn in ready:
                    try:
                        _, result = slot.conn.recv()
                    except EOFError:
                        result = {"status": "internal", "rc": None, "err": "the worker died"}
                        slot.done = args.recycle
                elif slot.overdue() or not slot.proc.is_alive():
                    gone = not slot.proc.is_alive()
                    result = {"status": "internal" if gone else "hang", "rc": None}
                    result["err"] = "the worker died" if gone else "over the time limit"
                    slot.proc.kill()
                    slot.proc.join()
                    slot.done = args.recycle  # replaced below
                else:
                    continue
                job, slot.job = slot.job, None
                slot.done += 1
                command = inputs.case(*job).command
                counts[(job[0], command)][str(result["status"])] += 1
                counts[(job[0], command)]["total"] += 1
                counts[(job[0], command)][f"exit {result['rc']}"] += 1
                top = worst[(job[0], command)]
                top["cpu"] = max(top.get("cpu", 0.0), float(result.get("cpu") or 0.0))
                top["peak"] = max(top.get("peak", 0.0), float(result.get("peak") or 0.0))
                if result["status"] != "ok":
                    _save(args.out, inputs, job, result)
                    print(f"{result['status']}: {job[0]}-{job[1]} ({command})", flush=True)
                finished += 1
                if finished % 2000 == 0:
                    rate = finished / (time.monotonic() - start)
                    print(f"{finished}/{len(jobs)} inputs, {rate:.1f}/s", flush=True)
                if slot.done >= args.recycle or result["status"] == "memory":
                    slot.stop()
                    slots[n] = Slot(args, inputs, work)
    finally:
        for slot in slots:
            slot.stop()
        shutil.rmtree(work, ignore_errors=True)
    _report(args, counts, worst, time.monotonic() - start)
    return 0


_COLUMNS = {
    "inputs": "total",
    "ok": "ok",
    "internal errors": "internal",
    "hangs > 5 s": "hang",
    "memory > 500 MB": "memory",
    "exit 0": "exit 0",
    "exit 1": "exit 1",
    "exit 2": "exit 2",
}


def _report(
    args: argparse.Namespace,
    counts: dict[tuple[str, str], Counter[str]],
    worst: dict[tuple[str, str], dict[str, float]],
    elapsed: float,
) -> None:
    rows: list[tuple[str, str, Counter[str], dict[str, float]]] = []
    total = Counter[str]()
    everywhere: dict[str, float] = {}
    for kind in SHARES:
        keys = sorted(k for k in counts if k[0] == kind)
        rows += [(kind, key[1], counts[key], worst[key]) for key in keys]
        both = Counter[str]()
        top: dict[str, float] = {}
        for key in keys:
            both.update(counts[key])
            for k, v in worst[key].items():
                top[k] = max(top.get(k, 0.0), v)
                everywhere[k] = max(everywhere.get(k, 0.0), v)
        rows.append((kind, "(all)", both, top))
        total.update(both)
    rows.append(("all", "", total, everywhere))
    head = ["kind", "command", *_COLUMNS, "max CPU s", "max worker RSS MB"]
    table = [
        [kind, cmd, *(str(c[k]) for k in _COLUMNS.values())]
        + [f"{w.get('cpu', 0.0):.2f}", f"{w.get('peak', 0.0):.0f}"]
        for kind, cmd, c, w in rows
    ]
    print()
    for line in [head, *table]:
        print(" | ".join(line))
    print(
        f"\n{total['total']} inputs in {elapsed:.0f} s with {args.jobs} workers (seed {args.seed})"
    )
    summary = {
        "seed": args.seed,
        "seconds": round(elapsed),
        "rows": [dict(zip(head, line, strict=True)) for line in table],
    }
    (args.out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")


if __name__ == "__main__":
    sys.exit(main())
