"""A write of a set that is killed part-way never leaves a mixed set that a reader takes
for current, and the next write of the same outputs settles it (etwmc/journal.py).

The recovery logic is tested by stopping a write after each of its steps (the state a
``kill -9`` leaves), in one folder and across two.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import BinaryIO

import pytest
from codegen_helpers import HELLO

from conftest import slow
from etwmc import journal
from etwmc.cli import main
from etwmc.compile import compile_manifest
from etwmc.digest import sha256_hex
from etwmc.writer import WriteError, stale, write_set, write_sets

OLD = {"a.py": b"old a", "b.bin": b"old b", "c.rc": b"old c", "keep.txt": b"kept"}
NEW = {"a.py": b"new a", "b.bin": b"new b", "c.rc": b"new c", "d_MSG00002.bin": b"new d"}


def _files(folder: Path) -> dict[str, bytes]:
    """The folder's files (not its subfolders: the build plugins' __pycache__)."""
    return {p.name: p.read_bytes() for p in sorted(folder.iterdir()) if not p.is_dir()}


def _interrupted(folders: dict[Path, dict[str, bytes]], stop: int) -> None:
    """Write ``folders`` and stop after ``stop`` steps, as a killed process would: the
    journals, the temporaries, the backups, each move, the backups' removal, the end."""
    t = journal.Transaction(folders)
    moves = sum(len(p.files) for p in t.parts)
    for k in range(stop):
        if k < 3:
            (t.write_journals, t.write_temporaries, t.back_up)[k]()
        elif k < 3 + moves:
            t.move(*_move(t, k - 3))
        elif k == 3 + moves:
            t.drop_backups()
        else:
            t.commit()


def _move(t: journal.Transaction, k: int) -> tuple[journal._Part, journal.Entry]:
    for part in t.parts:
        if k < len(part.entries):
            return part, part.entries[k]
        k -= len(part.entries)
    raise IndexError(k)


MOVED = 3 + len(NEW)  # the step after which every new file is in place
STEPS = MOVED + 2


def _current(folder: Path, plan: dict[str, bytes]) -> bool:
    return stale(folder, plan) == []


@pytest.mark.parametrize("stop", range(STEPS + 1))
def test_no_reader_takes_a_mixed_set_for_current(tmp_path: Path, stop: int) -> None:
    write_set(tmp_path, OLD)
    _interrupted({tmp_path: NEW}, stop)
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
    write_set(tmp_path, OLD)
    _interrupted({tmp_path: NEW}, stop)
    plan = NEW if then == "NEW" else OLD
    write_set(tmp_path, plan)
    expected = {**OLD, **plan}
    if stop >= MOVED:  # the interrupted write had only its clean-up left: it is kept
        expected = {**OLD, **NEW, **plan}
    assert _files(tmp_path) == expected  # nothing else: no temporary, backup or journal
    assert _current(tmp_path, plan)


@pytest.mark.parametrize("stop", range(STEPS + 1))
def test_recovery_alone_restores_one_whole_version(tmp_path: Path, stop: int) -> None:
    write_set(tmp_path, OLD)
    _interrupted({tmp_path: NEW}, stop)
    journal.recover(tmp_path, NEW)
    assert _files(tmp_path) == ({**OLD, **NEW} if stop >= MOVED else OLD)


INC_OLD, RES_OLD = {"x.h": b"old h"}, {"x.rc": b"old rc", "xTEMP.BIN": b"old bin"}
INC_NEW, RES_NEW = {"x.h": b"new h"}, {"x.rc": b"new rc", "xTEMP.BIN": b"new bin"}
TWO_MOVED = 3 + 3
TWO_STEPS = TWO_MOVED + 2


@pytest.mark.parametrize("stop", range(TWO_STEPS + 1))
@pytest.mark.parametrize("first", ["inc", "res"])
def test_folders_of_one_write_end_all_old_or_all_new(tmp_path: Path, stop: int, first: str) -> None:
    inc, res = tmp_path / "inc", tmp_path / "res"
    write_sets({inc: INC_OLD, res: RES_OLD})
    _interrupted({inc: INC_NEW, res: RES_NEW}, stop)
    order = [(inc, INC_NEW), (res, RES_NEW)]
    for folder, plan in order if first == "inc" else order[::-1]:
        journal.recover(folder, plan)
    if stop >= TWO_MOVED:
        assert (_files(inc), _files(res)) == (INC_NEW, RES_NEW)
    else:
        assert (_files(inc), _files(res)) == (INC_OLD, RES_OLD)


def test_a_write_of_other_files_leaves_an_interrupted_write_alone(tmp_path: Path) -> None:
    write_set(tmp_path, OLD)
    _interrupted({tmp_path: NEW}, 5)
    write_set(tmp_path, {"other.py": b"x"})
    assert ("a.py", "interrupted") in stale(tmp_path, NEW)
    write_set(tmp_path, NEW)
    assert _current(tmp_path, NEW)


def test_a_changed_backup_is_not_restored(tmp_path: Path) -> None:
    # Only a backup whose hash the journal recorded is put back.
    write_set(tmp_path, OLD)
    _interrupted({tmp_path: NEW}, 4)
    (bak,) = tmp_path.glob(".a.py.*.bak")
    bak.write_bytes(b"someone else's bytes")
    journal.recover(tmp_path, NEW)
    assert (tmp_path / "a.py").read_bytes() == b"new a"
    assert not bak.exists()


def test_a_journal_cannot_name_files_outside_its_folder(tmp_path: Path) -> None:
    inner = tmp_path / "out"
    write_set(inner, {"a.py": b"1"})
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious")
    sha = sha256_hex(b"precious")
    entries = [{"name": "../victim.txt", "old": None, "new": sha}]
    entries.append({"name": "a.py", "old": None, "new": "x"})
    doc = {"etwmc-journal": 1, "files": entries}
    (inner / ".etwmc-journal-0123456789abcdef").write_text(json.dumps(doc))
    write_set(inner, {"a.py": b"2"})
    assert victim.read_bytes() == b"precious"
    assert stale(inner, {"a.py": b"2"}) == []


def test_a_journal_is_json_with_plain_names(tmp_path: Path) -> None:
    names = ['we"ird\\name', "tab\there", "é.py", "\u2028.rc"]
    t = journal.Transaction({tmp_path: {n: n.encode() for n in names}})
    t.write_journals()
    (path,) = tmp_path.glob(".etwmc-journal-*")
    doc = json.loads(path.read_text(encoding="utf-8"))
    assert [f["name"] for f in doc["files"]] == sorted(names)
    assert journal.read_journal(path) is not None


def test_a_journal_never_reads_a_device_or_a_fifo(tmp_path: Path) -> None:
    # A journal, a backup or an output that is a FIFO (or a device) is not read: it
    # could block or never end.
    os.mkfifo(tmp_path / ".etwmc-journal-0123456789abcdef")
    os.mkfifo(tmp_path / "a.py")
    assert journal.journals(tmp_path) == {}
    assert journal.hash_regular(tmp_path / "a.py") is None
    assert journal.read_regular(tmp_path / "a.py") is None


def test_a_file_is_hashed_and_compared_in_one_reading(tmp_path: Path) -> None:
    path = tmp_path / "a.py"
    data = bytes(range(256)) * 9000  # more than one piece
    path.write_bytes(data)
    changed = data[:-1] + b"x"
    assert journal.check_regular(path, data) == (True, None)
    assert journal.check_regular(path, changed) == (False, sha256_hex(data))
    assert journal.check_regular(path, data + b"x") == (False, sha256_hex(data))
    assert journal.check_regular(path, b"x" + data[1:]) == (False, sha256_hex(data))
    assert journal.holds(path, data)
    assert not journal.holds(path, changed)
    assert not journal.holds(path, data[:-1])
    assert journal.check_regular(tmp_path / "missing", b"") is None
    assert not journal.holds(tmp_path / "missing", b"")
    os.mkfifo(tmp_path / "fifo")  # never opened: it could block
    assert journal.check_regular(tmp_path / "fifo", b"") is None
    assert not journal.holds(tmp_path / "fifo", b"")


def test_a_journal_records_the_old_content_of_unchanged_and_changed_files(
    tmp_path: Path,
) -> None:
    # An unchanged file is only compared (its old hash is its new one); a changed one
    # is hashed in the same reading; either way a roll-back finds its backup.
    write_set(tmp_path, OLD)
    plan = {"a.py": OLD["a.py"], "b.bin": b"new b", "new.h": b"h"}
    t = journal.Transaction({tmp_path: plan})
    t.write_journals()
    entries = {e.name: (e.old, e.new) for e in t.parts[0].entries}
    assert entries == {
        "a.py": (sha256_hex(OLD["a.py"]), sha256_hex(OLD["a.py"])),
        "b.bin": (sha256_hex(OLD["b.bin"]), sha256_hex(b"new b")),
        "new.h": (None, sha256_hex(b"h")),
    }
    t.write_temporaries()
    t.back_up()
    for e in t.parts[0].entries:
        t.move(t.parts[0], e)
    journal.recover(tmp_path, plan)  # every file is new: only the clean-up was left
    assert _files(tmp_path) == {**OLD, **plan}
    write_set(tmp_path, OLD)
    (tmp_path / "new.h").unlink()
    t = journal.Transaction({tmp_path: plan})
    t.write_journals()
    t.write_temporaries()
    t.back_up()
    t.move(t.parts[0], t.parts[0].entries[1])  # b.bin only: a killed write
    journal.recover(tmp_path, plan)
    assert _files(tmp_path) == OLD


def test_leaving_unchanged_files_reads_each_old_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The reading that finds a file changed also gives the hash its journal records,
    # and that hash is the one a roll-back checks the backup against.
    write_set(tmp_path, OLD)
    opened: list[str] = []
    real_open = journal.open_regular

    def counted(path: str | os.PathLike[str]) -> BinaryIO:
        f = real_open(path)
        opened.append(Path(path).name)
        return f

    monkeypatch.setattr(journal, "open_regular", counted)
    real_replace = os.replace
    calls = {"n": 0}

    def failing_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the journal and one output have moved
            raise OSError(28, "No space left on device")
        real_replace(src, dst)

    monkeypatch.setattr(journal.os, "replace", failing_replace)
    with pytest.raises(WriteError, match="No space left"):
        write_set(tmp_path, {**NEW, "keep.txt": b"kept"}, skip_unchanged=True)
    monkeypatch.setattr(journal.os, "replace", real_replace)
    assert _files(tmp_path) == OLD  # every backup matched its recorded hash
    assert sorted(n for n in opened if not n.startswith(".")) == [
        "a.py",
        "b.bin",
        "c.rc",
        "keep.txt",
    ]
    opened.clear()
    write_set(tmp_path, {**NEW, "keep.txt": b"kept"}, skip_unchanged=True)
    assert _files(tmp_path) == {**NEW, "keep.txt": b"kept"}
    assert sorted(n for n in opened if not n.startswith(".")) == [
        "a.py",
        "b.bin",
        "c.rc",
        "keep.txt",
    ]


def test_ctrl_c_during_the_renames_puts_the_folder_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_set(tmp_path, OLD)
    real = os.replace
    calls = {"n": 0}

    def interrupted_replace(src: str | os.PathLike[str], dst: str | os.PathLike[str]) -> None:
        calls["n"] += 1
        if calls["n"] == 3:  # the journal and one output have moved
            raise KeyboardInterrupt
        real(src, dst)

    monkeypatch.setattr(journal.os, "replace", interrupted_replace)
    with pytest.raises(KeyboardInterrupt):
        write_set(tmp_path, NEW)
    monkeypatch.setattr(journal.os, "replace", real)
    assert _files(tmp_path) == OLD


def test_a_lock_left_by_a_dead_process_does_not_stop_the_next_write(tmp_path: Path) -> None:
    # flock locks die with their process: a lock file left behind is just a file.
    (tmp_path / journal.LOCK_NAME).write_bytes(b"")
    assert not journal.writing(tmp_path)
    write_set(tmp_path, {"a.py": b"1"})
    assert _files(tmp_path) == {"a.py": b"1"}


# --------------------------------------------------------------------------- real kills


def _strace(log: Path) -> str:
    path = shutil.which("strace")
    if path is None:
        pytest.skip("strace is not installed")
    probe = subprocess.run([path, "-qq", "-o", str(log), "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip(f"strace cannot trace here: {probe.stderr.decode(errors='replace')[:200]}")
    return path


_RENAMES = "rename,renameat,renameat2"


def _compile_killed_at(strace: str, man: Path, out: Path, n: int) -> int:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    log = out.parent / f"strace-{out.name}.log"  # strace's own output, beside the outputs
    cmd = [
        strace, "-f", "-qq", "-o", str(log), "-e", f"trace={_RENAMES}",
        "-e", f"inject={_RENAMES}:signal=SIGKILL:when={n}",
        sys.executable, "-m", "etwmc", "compile", str(man), "-o", str(out),
    ]  # fmt: skip
    return subprocess.run(cmd, env=env, capture_output=True, timeout=120).returncode


@slow
def test_compile_killed_at_each_rename(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    strace = _strace(tmp_path / "strace-probe.log")
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
        write_set(out, old)
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
    write_set(out, old)
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
    t = journal.Transaction({folder: new})
    t.write_journals()
    t.write_temporaries()
    t.back_up()
    (part,) = t.parts
    t.move(part, next(e for e in part.entries if e.name == "hello.py"))  # killed here
    assert any(p.name.startswith(".") for p in folder.iterdir())
    again = generate(tmp_path, opts, out_dir=None)
    assert set(again.files) == set(first.files) - {"pkg/__init__.py"}  # that one exists
    assert _files(folder) == before  # the whole set as the manifest gives it, nothing else
    assert {p.name for p in folder.iterdir() if p.is_dir()} == {"__pycache__"}
    assert _files(folder / "__pycache__") == bytecode
