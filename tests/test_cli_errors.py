"""The command line's error paths, as users meet them: each gives one clear message and
the exit code the README documents (2 for usage errors, 130 when interrupted), never an
internal error."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc.cli import main
from etwmc.runtime.eventfile import write_events
from etwmc.validate import check_file
from etwmc.wevt import binary_outputs

ROOT = Path(__file__).resolve().parents[1]


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str]:
    rc = main(args)
    out = capsys.readouterr()
    assert "internal error" not in out.err and "Traceback" not in out.err, out.err
    return rc, out.out + out.err


@pytest.fixture()
def inputs(tmp_path: Path) -> dict[str, Path]:
    """A manifest, its blob and message table, and an event file."""
    manifest = check_file(HELLO).manifest
    assert manifest is not None
    files = binary_outputs(manifest, "hello")
    blob, msg = tmp_path / "helloTEMP.BIN", tmp_path / "hello_MSG00001.bin"
    blob.write_bytes(files["helloTEMP.BIN"])
    msg.write_bytes(files["hello_MSG00001.bin"])
    events = tmp_path / "e.etwmc"
    write_events(events, [])
    return {"man": HELLO, "blob": blob, "msg": msg, "events": events}


def _commands(i: dict[str, Path], missing: Path) -> dict[str, list[str]]:
    """Every command, with one input replaced by ``missing``."""
    m, b, g, e = (str(i[k]) for k in ("man", "blob", "msg", "events"))
    x = str(missing)
    return {
        "lint": ["lint", x],
        "lint-among-others": ["lint", m, x],
        "compile": ["compile", x, "-o", str(missing.parent / "out")],
        "decompile": ["decompile", x],
        "decompile-messages": ["decompile", b, "--messages", x],
        "decode-events": ["decode", x, "--wevt", b],
        "decode-wevt": ["decode", e, "--wevt", x],
        "decode-manifest": ["decode", e, "--manifest", x],
        "decode-messages": ["decode", e, "--wevt", b, "--messages", g, "--messages", x],
        "diff-old": ["diff", x, m],
        "diff-new": ["diff", m, x],
    }


_KINDS = list(_commands({k: Path(k) for k in ("man", "blob", "msg", "events")}, Path("x")))


@pytest.mark.parametrize("command", _KINDS)
def test_a_missing_input_is_a_usage_error(
    command: str, inputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "no-such-file"
    rc, report = _run(_commands(inputs, missing)[command], capsys)
    assert rc == 2, report
    assert "no-such-file" in report
    assert "no such file" in report.lower()


@pytest.mark.parametrize("command", [k for k in _KINDS if not k.startswith("lint")])
def test_a_folder_or_a_fifo_as_input_is_a_usage_error(
    command: str, inputs: dict[str, Path], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = tmp_path / "a-folder"
    folder.mkdir()
    rc, report = _run(_commands(inputs, folder)[command], capsys)
    assert rc == 2 and "a-folder" in report, report
    if command == "compile" or not hasattr(os, "mkfifo"):
        return  # the manifest reader's own handling of FIFOs is tested with it
    fifo = tmp_path / "a-fifo"
    os.mkfifo(fifo)
    rc, report = _run(_commands(inputs, fifo)[command], capsys)  # must not block
    assert rc == 2 and "not a regular file" in report, report


@pytest.mark.parametrize(
    "command",
    [
        ["lint", "{man}", "-o", "{out}"],
        ["decompile", "{blob}", "-o", "{out}"],
        ["decode", "{events}", "--wevt", "{blob}", "-o", "{out}"],
        ["diff", "{man}", "{man}", "-o", "{out}"],
    ],
    ids=lambda c: c[0],
)
def test_output_into_a_missing_folder_is_a_failed_write(
    command: list[str],
    inputs: dict[str, Path],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = tmp_path / "missing" / "report.txt"
    args = [a.format(out=out, **inputs) for a in command]
    rc, report = _run(args, capsys)
    assert rc == 1, report
    assert report.endswith(
        f"etwmc {command[0]}: cannot write {out}: the folder {tmp_path / 'missing'} "
        "does not exist\n"
    )
    assert not (tmp_path / "missing").exists()
    # The same command writes the file once the folder exists, and only that file.
    (tmp_path / "missing").mkdir()
    assert main(args) in (0, 1)
    assert [p.name for p in (tmp_path / "missing").iterdir()] == ["report.txt"]


def test_output_through_a_symbolic_link_writes_the_target(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    target = tmp_path / "real.man"
    target.write_text("old")
    link = tmp_path / "link.man"
    link.symlink_to(target)
    assert main(["decompile", str(inputs["blob"]), "-o", str(link)]) == 0
    assert link.is_symlink() and target.read_text().startswith("<?xml")


# --------------------------------------------------------------------------- compile


@pytest.mark.parametrize(
    "bad",
    [
        ["--module", "class"],
        ["--module", "None"],
        ["--module", "not-an-identifier"],
        ["--module", "con"],
        ["-z", "CON"],
        ["-z", "con.events"],
        ["-z", "Nul"],
        ["-z", "com1"],
        ["-z", "LPT9"],
        ["-z", "aux "],
        ["-z", "CONOUT$"],
        ["-z", "x:y"],
        ["-z", "x."],
    ],
)
def test_unusable_names_are_refused(
    bad: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    rc, report = _run(["compile", str(HELLO), "-o", str(tmp_path / "out"), *bad], capsys)
    assert rc == 2
    assert "error ETW612" in report and repr(bad[1]) in report
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("name", ["CON.man", "lpt1.events.man", 'q"uote.man', "a\nb.man"])
def test_a_base_derived_from_an_unusable_manifest_name_is_refused(
    name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    man = tmp_path / name
    shutil.copy(HELLO, man)
    rc, report = _run(["compile", str(man), "-o", str(tmp_path / "out")], capsys)
    assert rc == 2
    assert "error ETW612" in report and "from the manifest's file name" in report
    assert "-z BASE" in report
    assert not (tmp_path / "out").exists()
    # Naming the base is the way out.
    assert main(["compile", str(man), "-o", str(tmp_path / "out"), "-z", "ok"]) == 0


def test_names_that_look_odd_but_work_everywhere_are_accepted(tmp_path: Path) -> None:
    for base, module in (("Console", "console"), ("com10", "com10"), ("my-events.v2", "lpt")):
        assert (
            main(["compile", str(HELLO), "-o", str(tmp_path), "-z", base, "--module", module]) == 0
        )
        assert (tmp_path / f"{base}TEMP.BIN").is_file() and (tmp_path / f"{module}.py").is_file()


def test_nothing_to_write_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    rc, report = _run(
        ["compile", str(HELLO), "-o", str(tmp_path), "--no-python", "--no-binary"], capsys
    )
    assert rc == 2 and "leave nothing to write" in report
    assert list(tmp_path.iterdir()) == []
    # With the resource DLL there is something to write.
    args = ["compile", str(HELLO), "-o", str(tmp_path), "--no-python", "--no-binary"]
    assert main([*args, "--resource-dll"]) == 0
    assert [p.suffix for p in tmp_path.iterdir()] == [".dll"]


def test_output_folder_that_is_a_file_is_a_failed_write(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "out").write_text("a file")
    rc, report = _run(["compile", str(HELLO), "-o", str(tmp_path / "out")], capsys)
    assert rc == 1 and f"cannot create the output folder {tmp_path / 'out'}: " in report


# --------------------------------------------------------------------------- Ctrl-C


def test_interrupt_in_process(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import etwmc.commands.guid

    def interrupted(args: object) -> int:
        raise KeyboardInterrupt

    monkeypatch.setattr(etwmc.commands.guid, "run", interrupted)
    assert main(["guid", "x"]) == 130
    assert capsys.readouterr().err == "etwmc: interrupted\n"


@pytest.mark.skipif(not hasattr(signal, "SIGINT") or os.name == "nt", reason="POSIX signals")
def test_ctrl_c_exits_130_with_one_line() -> None:
    # A real SIGINT while a command runs (the command waits so the signal lands in it).
    # The child starts as a shell starts a foreground command, SIGINT at its default
    # (which Python turns into KeyboardInterrupt), whatever this process inherited: a
    # run started in the background of a shell without job control ignores SIGINT, and
    # so would every child it starts.
    code = (
        "import signal\n"
        "signal.signal(signal.SIGINT, signal.default_int_handler)\n"
        "import sys, time, etwmc.commands.guid as g\n"
        "def wait(args):\n"
        "    print('ready', flush=True)\n"
        "    time.sleep(60)\n"
        "    return 0\n"
        "g.run = wait\n"
        "from etwmc.cli import main\n"
        "sys.exit(main(['guid', 'x']))\n"
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert proc.stdout is not None and proc.stdout.readline() == "ready\n"
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err == "etwmc: interrupted\n"


@pytest.mark.skipif(os.name == "nt", reason="POSIX pipes")
@pytest.mark.parametrize("args", [["guid", "x"], ["lint", "--list-codes"]])
def test_a_closed_pipe_is_quiet(args: list[str]) -> None:
    # `etwmc ... | head`: the reader is gone before etwmc writes.
    read, write = os.pipe()
    os.close(read)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as in a shell
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", *args],
        stdout=write,
        stderr=subprocess.PIPE,
        env=env,
        timeout=60,
    )
    os.close(write)
    assert proc.returncode == 1  # a failed write, reported by saying nothing
    assert proc.stderr == b""


@pytest.mark.skipif(os.name == "nt", reason="POSIX file names are bytes")
def test_a_file_name_the_locale_cannot_decode(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # Python holds such a name as lone surrogates; a report prints it as its bytes.
    raw = os.fsencode(tmp_path) + b"/no\xffpe.man"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}  # as in a UTF-8 locale
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "lint", raw], capture_output=True, env=env, timeout=60
    )
    assert proc.returncode == 2
    assert raw + b": error ETW012" in proc.stdout
    assert b"internal error" not in proc.stderr
    report = tmp_path / "report.txt"
    rc, _ = _run(["lint", "-o", str(report), os.fsdecode(raw)], capsys)
    assert rc == 2 and raw in report.read_bytes()
    rc, text = _run(["guid", "Good", os.fsdecode(b"B\xffad")], capsys)
    assert rc == 2 and "not valid text" in text


@pytest.mark.skipif(not Path("/proc/self/fd").is_dir(), reason="no /proc/self/fd")
def test_output_through_a_link_to_the_process_own_stdout(
    inputs: dict[str, Path], tmp_path: Path
) -> None:
    # What `-o /dev/stdout` is: a link that only opening through it can follow (its
    # target is no file name), to the process's standard output, here a pipe.
    link = tmp_path / "stdout"
    link.symlink_to("/proc/self/fd/1")
    for args in (
        ["decompile", str(inputs["blob"])],
        ["lint", str(inputs["man"]), "--format", "json"],
    ):
        proc = subprocess.run(
            [sys.executable, "-m", "etwmc", *args, "-o", str(link)],
            capture_output=True,
            timeout=60,
        )
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout.startswith((b"<?xml", b"[")), proc.stdout[:100]
    assert link.is_symlink()


def test_the_console_entry_flushes_output_and_runs_exit_handlers(tmp_path: Path) -> None:
    # `etwmc`'s output (block-buffered on a pipe) arrives whole, exit handlers run, and
    # the command's status is the process's.
    marker = tmp_path / "exit-handler-ran"
    code = (
        "import atexit, sys, etwmc.commands.guid as g\n"
        f"atexit.register(lambda: open({str(marker)!r}, 'w').write('yes'))\n"
        "def lots(args):\n"
        "    for i in range(20000):\n"
        "        print(f'line {i}')\n"
        "    return 3\n"
        "g.run = lots\n"
        "sys.argv = ['etwmc', 'guid', 'x']\n"
        "from etwmc.cli import console\n"
        "console()\n"
        "print('not reached')\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # as in a shell
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60
    )
    assert proc.returncode == 3, proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 20000 and lines[-1] == "line 19999"
    assert marker.read_text() == "yes"


@pytest.mark.parametrize(
    ("command", "collects"),
    [("compile", False), ("lint", False), ("guid", True), ("decode", True), ("lsp", True)],
)
def test_the_console_entry_freezes_start_up_and_collects_as_the_command_needs(
    command: str, collects: bool
) -> None:
    # Start-up's objects are frozen out of the collector; the commands that compile a
    # manifest run without it (etwmc.gcpolicy), decode (whose work grows with the trace)
    # and lsp (as long as the editor) and the rest with it.
    code = (
        f"import gc, sys, etwmc.commands.{command} as m\n"
        "def probe(args):\n"
        "    print(gc.isenabled(), gc.get_freeze_count() > 1000)\n"
        "    return 0\n"
        "m.run = probe\n"
        f"sys.argv = ['etwmc', '{command}'{'' if command == 'lsp' else ', ' + repr('x')}]\n"
        "from etwmc.cli import console\n"
        "console()\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == f"{collects} True\n"


def _collections_in_console(tmp_path: Path, argv: list[str], threshold: int | None) -> str:
    """What a process that runs ``etwmc ARGV`` through the console script prints at its
    exit: the number of collections that started in it (the last line of its output)."""
    code = (
        "import atexit, gc, sys\n"
        "from etwmc.console import console\n"
        + (f"gc.set_threshold({threshold})\n" if threshold is not None else "")
        + "runs = []\n"
        "gc.callbacks.append(lambda phase, info: runs.append(info) if phase == 'start' else None)\n"
        "atexit.register(lambda: print(len(runs)))\n"
        f"sys.argv = {['etwmc', *argv]!r}\n"
        "console()\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    return proc.stdout


def test_no_collection_runs_from_the_console_entry_to_the_end_of_a_lint(tmp_path: Path) -> None:
    # The console script (etwmc.console) turns the collector off before the command
    # line's modules load, so a lint runs start to end without one collection.
    manifest = Path(__file__).resolve().parents[1] / "examples" / "hello.man"
    assert _collections_in_console(tmp_path, ["lint", "-q", str(manifest)], None) == "0\n"


@pytest.mark.parametrize("command", ["compile", "lint"])
def test_no_collection_runs_after_a_compile_returns(tmp_path: Path, command: str) -> None:
    # What a command that compiles a manifest leaves alive (the model) is never walked
    # by the collector: it stays off until the process ends, instead of coming back on
    # as the command returns and walking it all at once.  The threshold of 1 makes any
    # object left alive enough to start a collection wherever the collector is on.
    manifest = Path(__file__).resolve().parents[1] / "examples" / "hello.man"
    printed = _collections_in_console(tmp_path, [command, str(manifest), "-o", "out"], 1)
    assert printed.splitlines()[-1] == "0"


def test_the_console_entry_module_loads_nothing_before_the_collector_is_off() -> None:
    code = (
        "import sys\n"
        "before = set(sys.modules)\n"
        "import etwmc.console\n"
        "print(sorted(set(sys.modules) - before))\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == "['etwmc', 'etwmc.console', 'gc']\n"


def test_the_installed_script_is_the_console_entry() -> None:
    text = (Path(__file__).resolve().parents[1] / "pyproject.toml").read_text(encoding="utf-8")
    assert 'etwmc = "etwmc.console:console"' in text


def test_python_dash_m_etwmc_is_the_console_entry() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "guid", "Etwmc-Test"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout.strip().count("-") == 4
