"""etwmc's benchmarks in one command: ratios against named baselines, run side by side.

Run: ``.venv/bin/python bench/run.py`` (``--quick`` for fewer rounds; ``--only NAME``
for one group).  Needs ../shared beside the checkout for the real inputs.

Whole processes are measured by their CPU time (user + system of the child, from
``wait4``), best of N rounds, with every command of a group run once per round in
turn: wall time swings +-2x on a shared machine, CPU time of interleaved runs much
less.  Peak memory is the child's largest resident set; each command is started
by a small launcher (bench/_launch.py), since Linux starts a child's peak at that of
the process that forks it, and this one grows as it works.  Every command runs once,
unmeasured, before the rounds, with bytecode caching on (``PYTHONDONTWRITEBYTECODE``
is dropped from the children's environment): both sides are measured as installed
programs run, from their ``.pyc`` files, not recompiling their modules each time.
genEventing.py runs from a copy in the scratch folder for that reason (its folder in
../shared is read-only); its main script is compiled at every run, as it is where it
is used.  The baselines:

* ``genEventing.py``: dotnet/runtime's generator (../shared/anchors/genEventing), which
  writes C wrappers from ClrEtwAll.man and validates nothing;
* the floor: ``python -c "import lxml.etree; lxml.etree.parse(M)"``, reading the
  manifest and nothing more; in the scale group, of bench/synthetic.py's 50,000-event
  manifest (written into the scratch folder at run time, with a 10,000-event one), for
  the compile's CPU time and peak memory, beside the CPU time per event at both sizes;
* ``dissect.etl``'s bare iteration over a trace (records found, nothing decoded);
* the decode floor (``decode_floor.py``): reading the trace, decompressing it with
  etwmc's own LZXpress and walking its records with ``struct``, nothing decoded;
* the bare interpreter (``python -c pass``, with the ``sys.path`` change the import
  runs make) for importing generated modules: the module of examples/hello.man (goal:
  at most twice the bare interpreter) and, for information, Shell-Core's (2,380 events)
  with its bytecode and without (``python -B`` from a folder that never holds it: the
  cost of the first import of a module nobody byte-compiled);
* ``etwmc compile`` with the generated module made the plain way (``plain_render.py``),
  of examples/hello.man, ClrEtwAll and Shell-Core: the template rendered by Jinja (the
  ``template`` group), the text formatted by black, or both (``layout``, 3 rounds).  The
  compiled template (etwmc/python/template.py) and the layout functions
  (etwmc/python/layout.py) each stay only while they buy at least 10% of a compile: at
  most 0.9x the plain way.

The decode group's goals: at least 150,000 events per CPU second decoding
perfview_net.4.5.2.x86.etl with both .NET manifests to JSON Lines in a file, and peak
memory flat in trace size: the same trace four times over (made in the scratch
folder) may take at most 1.1x the peak memory of the trace once.

In-process costs of generated event functions come from ``bench_runtime.py`` (run as
a child, its ratios printed as they are); the language server's time from an edit to
its diagnostics from ``bench_lsp.py`` (likewise).  Exit status 1 when a target is
missed.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import synthetic  # bench/synthetic.py: this folder is on sys.path when run.py runs
from _measure import run_cpu

BENCH = Path(__file__).resolve().parent
ROOT = BENCH.parent
SHARED = ROOT.parent / "shared"
CORPUS = SHARED / "corpus"
TRACES = SHARED / "traces"
GEN_EVENTING = SHARED / "anchors" / "genEventing" / "genEventing.py"
CLR = CORPUS / "microsoft__perfview__ClrEtwAll.man"
SHELL = CORPUS / "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Shell-Core.xml"
X86 = TRACES / "perfview_net.4.5.2.x86.etl"
HELLO = ROOT / "examples" / "hello.man"
X86_EVENTS = 168_298
DECODE_GOAL = 150_000  # events per CPU second
FLAT_MEMORY = 1.1  # peak memory of the trace four times over / of the trace once
PY = sys.executable
# The console script users run (``etwmc ...``), when installed beside the interpreter.
_SCRIPT = Path(PY).with_name("etwmc")
ETWMC = [str(_SCRIPT)] if _SCRIPT.exists() else [PY, "-m", "etwmc"]


@dataclass(frozen=True)
class Cmd:
    label: str
    argv: Callable[[Path], list[str]]  # given a fresh scratch folder


@dataclass(frozen=True)
class Ratio:
    label: str
    candidate: str
    baseline: str
    target: float | None  # at most target x the baseline's CPU time; None: for information
    scale: float = 1.0  # times the ratio: per event, when the two handle unequal counts
    memory: bool = False  # compares peak memory rather than CPU time

    def of(self, best: dict[str, tuple[float, float]]) -> float:
        k = 1 if self.memory else 0
        return best[self.candidate][k] / best[self.baseline][k] * self.scale


@dataclass(frozen=True)
class Group:
    name: str
    needs: tuple[Path, ...]
    commands: tuple[Cmd, ...]
    ratios: tuple[Ratio, ...]
    max_rounds: int | None = None  # fewer rounds for commands that take seconds


def _gen_eventing(out: Path) -> list[str]:
    script = out.parent / "genEventing" / GEN_EVENTING.name
    if not script.exists():
        shutil.copytree(GEN_EVENTING.parent, script.parent)
        script.parent.chmod(0o755)  # writable, for its __pycache__
        for f in script.parent.iterdir():
            f.chmod(0o644)
    return [PY, str(script), "--man", str(CLR), "--incdir", str(out / "inc"),
            "--dummy", str(out / "etmdummy.h")]  # fmt: skip


def _floor(manifest: Path) -> Callable[[Path], list[str]]:
    code = "import sys, lxml.etree; lxml.etree.parse(sys.argv[1])"
    return lambda out: [PY, "-c", code, str(manifest)]


def _synthetic(scratch: Path, events: int) -> Path:
    """bench/synthetic.py's manifest of ``events`` events, written into the scratch
    folder the first time a command asks for it (never committed, never kept)."""
    path = scratch / f"synthetic{events}.man"
    if not path.exists():
        synthetic.write(events, path)
    return path


def _decode(trace: Path) -> Callable[[Path], list[str]]:
    dotnet = ("DotNETRuntime", "DotNETRuntimeRundown")
    manifests = [f"--manifest={TRACES / f'Win10-17134_Microsoft-Windows-{m}.xml'}" for m in dotnet]
    return lambda out: [*ETWMC, "decode", str(trace), *manifests, "-o", str(out / "x.jsonl")]


def _importing(
    manifest: Path | None, folder: Path, module: str = "", *, bytecode: bool = True
) -> Cmd:
    """``python -c "import module"``, the module generated from ``manifest`` into
    ``folder`` before the first run; without a manifest, the bare interpreter (with the
    same ``sys.path`` change).  ``bytecode=False`` runs ``python -B`` from a folder of its
    own, which therefore never holds the module's bytecode: the import compiles it."""
    code = f"import sys; sys.path.insert(0, {str(folder)!r})"
    if module:
        code += f"; import {module}"
    flags = [] if bytecode else ["-B"]

    def argv(out: Path) -> list[str]:
        if manifest is not None and not (folder / f"{module}.py").exists():
            folder.mkdir(parents=True, exist_ok=True)
            subprocess.run(
                [*ETWMC, "compile", str(manifest), "-o", str(folder), "-z", module,
                 "--no-binary"],
                check=True,
                capture_output=True,
            )  # fmt: skip
        return [PY, *flags, "-c", code]

    label = f"import {module}" if module else "bare interpreter"
    return Cmd(label + ("" if bytecode else " (no bytecode)"), argv)


def groups(scratch: Path) -> list[Group]:
    if X86.exists():  # the same trace four times over: memory must not grow with it
        # copied a piece at a time: a child's peak memory counts this process's at fork
        with (scratch / "x86x4.etl").open("wb") as out:
            for _ in range(4):
                with X86.open("rb") as trace:
                    shutil.copyfileobj(trace, out)

    def compile_(m: Path) -> Callable[[Path], list[str]]:
        return lambda out: [*ETWMC, "compile", str(m), "-o", str(out)]

    def lint(m: Path) -> Callable[[Path], list[str]]:
        return lambda out: [*ETWMC, "lint", "-q", str(m)]

    def plain(way: str, m: Path) -> Callable[[Path], list[str]]:
        script = str(BENCH / "plain_render.py")
        return lambda out: [PY, script, way, "compile", str(m), "-o", str(out)]

    # The plain ways of making the generated module (plain_render.py): "jinja" measures
    # the compiled template, "black" the layout functions, "jinja+black" both (on
    # ClrEtwAll only: black takes about 30 s of Shell-Core).  A speed trick stays when
    # it buys at least 10% of the command: at most 0.9x the command made the plain way.
    manifests = (("hello", HELLO), ("ClrEtwAll", CLR), ("Shell-Core", SHELL))
    # Jinja's cost is mostly fixed (its import and the template's compilation): it is a
    # tenth or more of compiling hello or ClrEtwAll, 7 to 14% of Shell-Core's longer run,
    # which is shown for information.
    informative = {("template", "Shell-Core")}

    def plain_group(name: str, ways: dict[str, tuple[str, ...]], rounds: int | None) -> Group:
        return Group(
            name,
            (HELLO, CLR, SHELL),
            tuple(
                cmd
                for label, m in manifests
                for cmd in (
                    Cmd(f"etwmc compile {label}", compile_(m)),
                    *(Cmd(f"{way} {label}", plain(way, m)) for way in ways.get(label, ())),
                )
            ),
            tuple(
                Ratio(
                    f"compile {label} / {way}",
                    f"etwmc compile {label}",
                    f"{way} {label}",
                    None if (name, label) in informative else 0.9,
                )
                for label, _ in manifests
                for way in ways.get(label, ())
            ),
            max_rounds=rounds,
        )

    return [
        Group(
            "compile",
            (CLR, SHELL, GEN_EVENTING),
            (
                Cmd("genEventing.py ClrEtwAll", _gen_eventing),
                Cmd("etwmc lint ClrEtwAll", lint(CLR)),
                Cmd("etwmc compile ClrEtwAll", compile_(CLR)),
                Cmd(
                    "etwmc mc -um ClrEtwAll",
                    lambda out: [*ETWMC, "mc", "-um", "-h", str(out), "-r", str(out), str(CLR)],
                ),
                Cmd("floor Shell-Core", _floor(SHELL)),
                Cmd("etwmc lint Shell-Core", lint(SHELL)),
                Cmd("etwmc compile Shell-Core", compile_(SHELL)),
            ),  # fmt: skip
            (
                Ratio(
                    "lint ClrEtwAll / genEventing",
                    "etwmc lint ClrEtwAll",
                    "genEventing.py ClrEtwAll",
                    0.6,
                ),
                Ratio(
                    "compile ClrEtwAll / genEventing",
                    "etwmc compile ClrEtwAll",
                    "genEventing.py ClrEtwAll",
                    0.8,
                ),
                Ratio(
                    "mc -um ClrEtwAll / genEventing",
                    "etwmc mc -um ClrEtwAll",
                    "genEventing.py ClrEtwAll",
                    3.0,
                ),
                Ratio("lint Shell-Core / floor", "etwmc lint Shell-Core", "floor Shell-Core", 4.0),
                Ratio(
                    "compile Shell-Core / floor",
                    "etwmc compile Shell-Core",
                    "floor Shell-Core",
                    6.0,
                ),
            ),  # fmt: skip
        ),
        Group(
            "scale",
            (),
            (
                Cmd("floor 50,000 events", lambda out: _floor(_synthetic(scratch, 50_000))(out)),
                Cmd(
                    "compile 10,000 events", lambda out: compile_(_synthetic(scratch, 10_000))(out)
                ),
                Cmd(
                    "compile 50,000 events", lambda out: compile_(_synthetic(scratch, 50_000))(out)
                ),
            ),
            # Linear to 50,000 events: the CPU time per event does not grow; the compile
            # costs a few times reading the manifest, and holds a few times its tree.
            (
                Ratio(
                    "CPU per event, 50,000 / 10,000 events",
                    "compile 50,000 events",
                    "compile 10,000 events",
                    1.1,
                    scale=10_000 / 50_000,
                ),
                Ratio(
                    "compile 50,000 events / floor",
                    "compile 50,000 events",
                    "floor 50,000 events",
                    8.0,
                ),
                Ratio(
                    "peak memory, compile 50,000 events / floor",
                    "compile 50,000 events",
                    "floor 50,000 events",
                    3.0,
                    memory=True,
                ),
            ),  # fmt: skip
        ),
        plain_group("template", {name: ("jinja",) for name, _ in manifests}, None),
        plain_group(
            "layout",
            {"hello": ("black",), "ClrEtwAll": ("black", "jinja+black"), "Shell-Core": ("black",)},
            3,
        ),
        Group(
            "import",
            (),
            (
                _importing(None, scratch / "hello"),
                _importing(HELLO, scratch / "hello", "hello"),
            ),
            (Ratio("import hello / bare interpreter", "import hello", "bare interpreter", 2.0),),
        ),
        Group(
            "import-large",
            (SHELL,),
            (
                _importing(None, scratch / "shell"),
                _importing(SHELL, scratch / "shell-source", "shell_core", bytecode=False),
                _importing(SHELL, scratch / "shell", "shell_core"),
            ),
            (
                Ratio(
                    "import Shell-Core, no bytecode / bare",
                    "import shell_core (no bytecode)",
                    "bare interpreter",
                    None,
                ),
                Ratio("import Shell-Core / bare", "import shell_core", "bare interpreter", None),
            ),
        ),
        Group(
            "decode",
            (X86, TRACES),
            (
                Cmd(
                    "dissect.etl iteration x86",
                    lambda out: [
                        PY,
                        "-c",
                        "import sys\nfrom dissect.etl.etl import ETL\n"
                        "with open(sys.argv[1], 'rb') as f:\n    sum(1 for _ in ETL(f))",
                        str(X86),
                    ],
                ),
                Cmd("floor walk x86", lambda out: [PY, str(BENCH / "decode_floor.py"), str(X86)]),
                Cmd("etwmc decode x86", _decode(X86)),
                Cmd("etwmc decode x86 x4", _decode(scratch / "x86x4.etl")),
            ),  # fmt: skip
            (
                Ratio(
                    "decode x86 / floor walk",
                    "etwmc decode x86",
                    "floor walk x86",
                    None,
                ),
                Ratio(
                    "decode x86 / dissect.etl iteration",
                    "etwmc decode x86",
                    "dissect.etl iteration x86",
                    None,
                ),
            ),  # fmt: skip
        ),
    ]


_ENV = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


def cpu_run(argv: list[str], scratch: Path) -> tuple[float, float]:
    """(CPU seconds, peak MiB) of one run of ``argv`` in a fresh scratch folder."""
    out = Path(tempfile.mkdtemp(dir=scratch))
    try:
        cpu, mem, _ = run_cpu(argv, out, _ENV)
        return cpu, mem
    finally:
        shutil.rmtree(out, ignore_errors=True)


def measure(group: Group, rounds: int, scratch: Path) -> dict[str, tuple[float, float]]:
    rounds = min(rounds, group.max_rounds or rounds)
    best = {c.label: (float("inf"), 0.0) for c in group.commands}
    for c in group.commands:  # unmeasured: writes the bytecode caches
        cpu_run(c.argv(scratch), scratch)
    for _ in range(rounds):
        for c in group.commands:
            cpu, mem = cpu_run(c.argv(scratch), scratch)
            old_cpu, old_mem = best[c.label]
            best[c.label] = (min(old_cpu, cpu), max(old_mem, mem))
    return best


def _decode_goals(best: dict[str, tuple[float, float]]) -> int:
    """Print the decode goals with their measured ratios; the number missed."""
    rate = X86_EVENTS / best["etwmc decode x86"][0]
    fast = rate >= DECODE_GOAL
    print(
        f"  {'decode x86 events per CPU second':44s} {rate:,.0f} = {rate / DECODE_GOAL:.2f}x "
        f"the goal of {DECODE_GOAL:,}  {'OK' if fast else 'MISSED'}"
    )
    grown = best["etwmc decode x86 x4"][1] / best["etwmc decode x86"][1]
    flat = grown <= FLAT_MEMORY
    print(
        f"  {'decode peak memory, trace x4 / trace x1':44s} {grown:5.2f}x  "
        f"(target <= {FLAT_MEMORY:.2f}x)  {'OK' if flat else 'MISSED'}"
    )
    return (not fast) + (not flat)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("--quick", action="store_true", help="3 rounds instead of 7")
    ap.add_argument(
        "--only",
        choices=(
            "compile",
            "scale",
            "template",
            "layout",
            "import",
            "import-large",
            "decode",
            "runtime",
            "lsp",
        ),
    )
    args = ap.parse_args()
    rounds = 3 if args.quick else 7
    missed = 0
    with tempfile.TemporaryDirectory(prefix="etwmc-bench-") as tmp:
        scratch = Path(tmp)
        for group in groups(scratch):
            if args.only not in (None, group.name):
                continue
            if not all(p.exists() for p in group.needs):
                print(f"[{group.name}] skipped: ../shared is not beside the checkout\n")
                continue
            best = measure(group, rounds, scratch)
            print(f"[{group.name}] best CPU time of {min(rounds, group.max_rounds or rounds)}"
                  " interleaved rounds")  # fmt: skip
            for label, (cpu, mem) in best.items():
                print(f"  {label:34s} {cpu:7.3f} s  {mem:7.1f} MiB peak")
            for r in group.ratios:
                ratio = r.of(best)
                if r.target is None:
                    print(f"  {r.label:44s} {ratio:5.2f}x")
                    continue
                ok = ratio <= r.target
                missed += not ok
                print(f"  {r.label:44s} {ratio:5.2f}x  (target <= {r.target:.2f}x)"
                      f"  {'OK' if ok else 'MISSED'}")  # fmt: skip
            if group.name == "decode":
                missed += _decode_goals(best)
            print()
    if args.only in (None, "runtime"):
        print("[runtime] bench_runtime.py (in-process, interleaved rounds)")
        proc = subprocess.run(
            [PY, str(BENCH / "bench_runtime.py"), *(["--quick"] if args.quick else [])],
            capture_output=True,
            text=True,
        )
        print(re.sub(r"(?m)^", "  ", proc.stdout.rstrip()))
        missed += proc.returncode != 0
    if args.only in (None, "lsp"):
        # A latency an editor's user sees (wall time, the server's CPU shown beside it).
        print("\n[lsp] bench_lsp.py (etwmc lsp over stdio, edits to ClrEtwAll.man)")
        proc = subprocess.run(
            [PY, str(BENCH / "bench_lsp.py"), *(["--edits", "5"] if args.quick else [])],
            capture_output=True,
            text=True,
        )
        print(re.sub(r"(?m)^", "  ", (proc.stdout + proc.stderr).rstrip()))
        missed += proc.returncode != 0
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
