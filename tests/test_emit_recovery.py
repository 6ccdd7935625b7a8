"""A write of the outputs that is killed part-way never leaves a mixed set that a reader
takes for current, and the next write of the same outputs cleans up after it.

The recovery logic is tested by stopping a write after each of its steps (the state a
``kill -9`` leaves); where strace is installed, real ``etwmc compile`` processes are
also killed at each of their renames.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from etwmc import emit
from etwmc.cli import main
from etwmc.compile import compile_manifest
from etwmc.emit import recover, stale, write_all

OLD = {"a.py": b"old a", "b.bin": b"old b", "c.rc": b"old c", "keep.txt": b"kept"}
NEW = {"a.py": b"new a", "b.bin": b"new b", "c.rc": b"new c", "d_MSG00002.bin": b"new d"}


def _files(folder: Path) -> dict[str, bytes]:
    """The folder's files (not its subfolders: the build plugins' __pycache__)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.is_dir()}


def _interrupted(folder: Path, stop: int) -> None:
    """Write NEW over OLD and stop after ``stop`` steps, as a killed process would."""
    t = emit._Transaction(folder, NEW)
    steps = [t._write_journal, t._write_temporaries, t._back_up]
    steps += [lambda n=n: t._move(_entry(t, n)) for n in sorted(NEW)]
    steps += [t._drop_backups, t._commit]
    for step in steps[:stop]:
        step()


def _entry(t: emit._Transaction, name: str) -> emit._Entry:
    return next(e for e in t.entries if e.name == name)


MOVED = 3 + len(NEW)  # the step after which every new file is in place
STEPS = MOVED + 2


def _current(folder: Path, plan: dict[str, bytes]) -> bool:
    return stale(folder, plan) == []


@pytest.mark.parametrize("stop", range(STEPS + 1))
def test_no_reader_takes_a_mixed_set_for_current(tmp_path: Path, stop: int) -> None:
    write_all(tmp_path, OLD)
    _interrupted(tmp_path, stop)
    outputs = {n: d for n, d in _files(tmp_path).items() if not n.startswith(".")}
    for plan in (OLD, NEW):
        if _current(tmp_path, plan):
            assert {n: outputs[n] for n in plan} == plan
    moved = max(0, stop - 3)
    if 0 < moved <= len(NEW):  # a mix on disk: neither version may look current
        assert not _current(tmp_path, OLD) and not _current(tmp_path, NEW)
        assert ("a.py", "interrupted") in stale(tmp_path, NEW)


@pytest.mark.parametrize("stop", range(STEPS + 1))
@pytest.mark.parametrize("then", ["NEW", "OLD"])
def test_the_next_write_cleans_up(tmp_path: Path, stop: int, then: str) -> None:
    write_all(tmp_path, OLD)
    _interrupted(tmp_path, stop)
    plan = NEW if then == "NEW" else OLD
    write_all(tmp_path, plan)
    expected = {**OLD, **plan}
    if stop >= MOVED:  # the interrupted write had only its clean-up left: it is kept
        expected = {**OLD, **NEW, **plan}
    assert _files(tmp_path) == expected  # nothing else: no temporary, backup or journal
    assert _current(tmp_path, plan)


@pytest.mark.parametrize("stop", range(STEPS + 1))
def test_recovery_alone_restores_one_whole_version(tmp_path: Path, stop: int) -> None:
    write_all(tmp_path, OLD)
    _interrupted(tmp_path, stop)
    recover(tmp_path, NEW)
    files = _files(tmp_path)
    assert files in ({**OLD}, {**OLD, **NEW}), files
    assert files == ({**OLD, **NEW} if stop >= MOVED else OLD)


def test_a_write_of_other_files_leaves_an_interrupted_write_alone(tmp_path: Path) -> None:
    write_all(tmp_path, OLD)
    _interrupted(tmp_path, 5)
    write_all(tmp_path, {"other.py": b"x"})
    assert ("a.py", "interrupted") in stale(tmp_path, NEW)
    write_all(tmp_path, NEW)
    assert _current(tmp_path, NEW)


def test_a_changed_backup_is_not_restored(tmp_path: Path) -> None:
    # Only a backup whose hash the journal recorded is put back.
    write_all(tmp_path, OLD)
    _interrupted(tmp_path, 4)
    (bak,) = tmp_path.glob(".a.py.*.bak")
    bak.write_bytes(b"someone else's bytes")
    recover(tmp_path, NEW)
    assert (tmp_path / "a.py").read_bytes() == b"new a"
    assert not bak.exists()


def test_a_journal_cannot_name_files_outside_its_folder(tmp_path: Path) -> None:
    inner = tmp_path / "out"
    write_all(inner, {"a.py": b"1"})
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    sha = emit._sha(b"precious")
    journal = inner / ".etwmc-journal-0123456789abcdef"
    entries = [{"name": "../victim.txt", "old": None, "new": sha}]
    entries.append({"name": "a.py", "old": None, "new": "x"})
    journal.write_text(json.dumps({"etwmc-journal": 1, "files": entries}))
    write_all(inner, {"a.py": b"2"})
    assert victim.read_bytes() == b"precious"
    assert stale(inner, {"a.py": b"2"}) == []


def test_ctrl_c_during_the_renames_puts_the_folder_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_all(tmp_path, OLD)
    real = os.replace
    calls = {"n": 0}

    def interrupted_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the journal and one output have moved
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(emit.os, "replace", interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        write_all(tmp_path, NEW)
    monkeypatch.setattr(emit.os, "replace", real)
    assert _files(tmp_path) == OLD


def test_unchanged_files_keep_their_time_stamp(tmp_path: Path) -> None:
    write_all(tmp_path, OLD)
    os.utime(tmp_path / "a.py", (1_000_000, 1_000_000))
    write_all(tmp_path, {**OLD, "b.bin": b"changed"}, skip_unchanged=True)
    assert (tmp_path / "a.py").stat().st_mtime == 1_000_000
    assert (tmp_path / "b.bin").read_bytes() == b"changed"


# --------------------------------------------------------------------------- real kills


def _strace() -> str:
    path = shutil.which("strace")
    if path is None:
        pytest.skip("strace is not installed")
    probe = subprocess.run([path, "-qq", "-o", os.devnull, "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace')[:200]}")
    return path


_RENAMES = "rename,renameat,renameat2"


def _compile_killed_at(strace: str, man: Path, out: Path, n: int) -> int:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    cmd = [
        strace, "-f", "-qq", "-o", os.devnull, "-e", f"trace={_RENAMES}",
        "-e", f"inject={_RENAMES}:signal=SIGKILL:when={n}",
        sys.executable, "-m", "etwmc", "compile", str(man), "-o", str(out),
    ]  # fmt: skip
    return subprocess.run(cmd, env=env, capture_output=True, timeout=120).returncode


def test_compile_killed_at_each_rename(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    strace = _strace()
    old_man = tmp_path / "hello.man"
    shutil.copy(HELLO, old_man)
    new_man = tmp_path / "new" / "hello.man"
    new_man.parent.mkdir()
    new_man.write_text(HELLO.read_text().replace('value="3"', 'value="4"'))
    old = compile_manifest(old_man).files
    new = compile_manifest(new_man).files
    assert set(old) == set(new) and all(old[n] != new[n] for n in ("hello.py", "helloTEMP.BIN"))
    renames = 1 + len(new)  # the journal, then every output
    for n in range(1, renames + 1):
        out = tmp_path / f"out{n}"
        write_all(out, old)
        assert _compile_killed_at(strace, new_man, out, n) == -9
        left = {p.name for p in out.iterdir()}
        assert any(name.startswith(".") for name in left)  # killed mid-write
        for man, plan in ((old_man, old), (new_man, new)):
            check = main(["compile", str(man), "-o", str(out), "--check"])
            if check == 0:
                assert {name: (out / name).read_bytes() for name in plan} == plan
        if n > 1:  # a mix of two versions is on disk: neither is current
            assert main(["compile", str(old_man), "-o", str(out), "--check"]) == 1
            assert main(["compile", str(new_man), "-o", str(out), "--check"]) == 1
            assert "interrupted" in capsys.readouterr().err
        # The next compile cleans up and writes a whole set.
        assert main(["compile", str(new_man), "-o", str(out)]) == 0
        assert _files(out) == new
        assert main(["compile", str(new_man), "-o", str(out), "--check"]) == 0
    # One more rename than there are: the compile runs to its end.
    out = tmp_path / "out-last"
    write_all(out, old)
    assert _compile_killed_at(strace, new_man, out, renames + 1) == 0
    assert _files(out) == new


def test_the_build_plugins_settle_an_interrupted_write(tmp_path: Path) -> None:
    """An editable build generates in place: a killed write there is settled first."""
    from etwmc.buildhooks import Options, generate

    shutil.copy(HELLO, tmp_path / "hello.man")
    opts = Options(manifests=("hello.man",), package="pkg")
    first = generate(tmp_path, opts, out_dir=None)
    folder = tmp_path / "pkg"
    before = _files(folder)
    bytecode = _files(folder / "__pycache__")
    new = {n: d + b"\n# changed\n" if n.endswith(".py") else d[::-1] for n, d in before.items()}
    t = emit._Transaction(folder, new)
    t._write_journal()
    t._write_temporaries()
    t._back_up()
    t._move(_entry(t, "hello.py"))  # killed here: a mix of two versions
    assert any(p.name.startswith(".") for p in folder.iterdir())
    again = generate(tmp_path, opts, out_dir=None)
    assert set(again.files) == set(first.files) - {"pkg/__init__.py"}  # that one exists
    assert _files(folder) == before  # the whole set as the manifest gives it, nothing else
    assert {p.name for p in folder.iterdir() if p.is_dir()} == {"__pycache__"}
    assert _files(folder / "__pycache__") == bytecode
