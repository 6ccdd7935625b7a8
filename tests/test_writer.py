"""The writer (etwmc/writer.py): what every kind of output path gets, for a single file,
a stream and a set of files, and the message of every failure."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import threading
import time
from pathlib import Path

import pytest
from output_kinds import (
    FULL_DEVICE,
    KINDS,
    NULL_DEVICE,
    OLD,
    FifoReader,
    device,
    prepared,
    short_folder,
)

from etwmc import journal, writer
from etwmc.writer import WriteError, stale, stream, write_file, write_set, write_sets

NEW = b"new content\n"
pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX file kinds")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _no_temporaries(folder: Path) -> None:
    left = [p.name for p in folder.rglob(".*") if p.is_file() or p.is_symlink()]
    assert left == [], left


def _write(how: str, path: Path) -> None:
    if how == "file":
        write_file(path, NEW)
    elif how == "stream":
        with stream(path) as out:
            out.write(NEW.decode()[:4])
            out.write(NEW.decode()[4:])
    else:
        write_set(path.parent, {path.name: NEW})


@pytest.mark.parametrize("how", ["file", "stream", "set"])
@pytest.mark.parametrize("kind", KINDS)
def test_every_kind_of_path(how: str, kind: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with short_folder() as root, prepared(kind, root / "out", "x.out", monkeypatch) as spot:
        if spot.waits and how == "set":
            # A build never waits for a reader: it says so and writes nothing.
            with pytest.raises(WriteError) as e:
                _write(how, spot.path)
            assert str(e.value) == f"cannot write {spot.path}: no process is reading from the FIFO"
            assert spot.intact()
            return
        if spot.waits:
            # One output waits for its reader, as `cat > fifo` does.
            done = threading.Event()
            worker = threading.Thread(target=lambda: (_write(how, spot.path), done.set()))
            worker.start()
            time.sleep(0.2)
            assert not done.is_set()
            got = spot.reader().result()
            worker.join(30)
            assert done.is_set() and got == NEW and spot.intact()
            return
        if spot.fails:
            with pytest.raises(WriteError) as e:
                _write(how, spot.path)
            message = str(e.value)
            assert message.startswith(f"cannot write {spot.path}") or message.startswith(
                f"cannot write into {spot.path.parent}"
            ), message
            assert ".tmp" not in message and "journal" not in message
            assert spot.intact()
            return
        _write(how, spot.path)
        got = spot.received()
        if kind != "chardev":
            assert got == NEW
        assert spot.intact()
        if kind in ("regular", "missing", "symlink", "dangling"):
            written = spot.path.resolve()
            assert written.stat().st_mode & 0o777 == 0o666 & ~_umask()
        _no_temporaries(root)
        assert not (root / "out" / journal.LOCK_NAME).exists()


def test_a_replaced_file_takes_the_mode_a_new_file_gets(tmp_path: Path) -> None:
    path = tmp_path / "report.txt"
    path.write_bytes(OLD)
    path.chmod(0o600)
    write_file(path, NEW)
    assert path.stat().st_mode & 0o777 == 0o666 & ~_umask()


@pytest.mark.parametrize("how", ["file", "stream"])
def test_an_output_in_a_missing_folder(how: str, tmp_path: Path) -> None:
    path = tmp_path / "missing" / "report.txt"
    with pytest.raises(WriteError) as e:
        _write(how, path)
    assert str(e.value) == f"cannot write {path}: the folder {tmp_path / 'missing'} does not exist"
    assert not (tmp_path / "missing").exists()


def test_a_set_creates_its_folders(tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir"
    written = write_set(out, {"b.bin": b"\x00\x01", "a.py": b"x = 1\n"})
    assert written == [out / "a.py", out / "b.bin"]
    assert sorted(p.name for p in out.iterdir()) == ["a.py", "b.bin"]


@pytest.mark.parametrize("how", ["file", "stream", "set"])
def test_a_folder_in_the_way(how: str, tmp_path: Path) -> None:
    (tmp_path / "x.out").mkdir()
    with pytest.raises(WriteError, match=r"x\.out: it is a folder$"):
        _write(how, tmp_path / "x.out")


def test_a_symbolic_link_loop(tmp_path: Path) -> None:
    (tmp_path / "a").symlink_to(tmp_path / "b")
    (tmp_path / "b").symlink_to(tmp_path / "a")
    with pytest.raises(WriteError, match="symbolic links"):
        write_file(tmp_path / "a", NEW)


def test_a_full_device(tmp_path: Path) -> None:
    device(tmp_path / "full", FULL_DEVICE)
    for how in ("file", "stream", "set"):
        with pytest.raises(WriteError) as e:
            _write(how, tmp_path / "full")
        assert str(e.value) == f"cannot write {tmp_path / 'full'}: No space left on device"
    assert stat.S_ISCHR((tmp_path / "full").lstat().st_mode)


def test_a_socket_nobody_listens_on() -> None:
    import socket

    with short_folder() as folder:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.bind(str(folder / "s"))
        sock.close()  # the file stays, nothing listens
        with pytest.raises(WriteError, match="nothing takes a stream on the socket"):
            write_file(folder / "s", NEW)
        assert stat.S_ISSOCK((folder / "s").lstat().st_mode)


def test_a_failing_stream_leaves_the_old_file(tmp_path: Path) -> None:
    path = tmp_path / "events.jsonl"
    path.write_bytes(OLD)
    with pytest.raises(KeyboardInterrupt), stream(path) as out:
        out.write("half")
        raise KeyboardInterrupt
    assert path.read_bytes() == OLD
    _no_temporaries(tmp_path)


def test_a_stream_into_a_fifo_comes_as_it_is_written(tmp_path: Path) -> None:
    fifo = tmp_path / "events"
    os.mkfifo(fifo)
    reader = FifoReader(fifo)
    with stream(fifo) as out:
        for i in range(1000):
            out.write(f"{i}\n")
    assert reader.result() == "".join(f"{i}\n" for i in range(1000)).encode()


def test_standard_output_closed_or_full(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr("sys.stdout", None)
    with pytest.raises(WriteError, match="^cannot write standard output: it is closed$"):
        writer.write_text(None, "x")
    device(tmp_path / "full", FULL_DEVICE)
    full = open(tmp_path / "full", "w")  # noqa: SIM115 - its last flush fails too
    monkeypatch.setattr("sys.stdout", full)
    with pytest.raises(WriteError, match="^cannot write standard output: No space left"):
        writer.write_text(None, "x")
    with contextlib.suppress(OSError):
        full.close()


def test_a_report_with_an_undecodable_name_keeps_its_bytes(tmp_path: Path) -> None:
    writer.write_text(tmp_path / "r.txt", "bad\udcffname\n")
    assert (tmp_path / "r.txt").read_bytes() == b"bad\xffname\n"


# --------------------------------------------------------------------------- sets


def test_a_set_is_all_or_nothing(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"old a")
    (tmp_path / "c.rc").mkdir()  # in the way: nothing is written
    with pytest.raises(WriteError, match="c.rc: it is a folder"):
        write_set(tmp_path, {"a.py": b"new a", "b.bin": b"new b", "c.rc": b"new c"})
    assert (tmp_path / "a.py").read_bytes() == b"old a"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "c.rc"]


def test_a_set_over_two_folders_is_rolled_back_together(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    inc, res = tmp_path / "inc", tmp_path / "res"
    write_sets({inc: {"x.h": b"old h"}, res: {"x.rc": b"old rc", "x.bin": b"old bin"}})
    real = os.replace
    calls = {"n": 0}

    def failing(src: str, dst: str) -> None:
        calls["n"] += 1
        if calls["n"] == 5:  # two journals and two outputs have moved
            raise OSError(errno.EIO, "Input/output error", str(dst))
        real(src, dst)

    monkeypatch.setattr(journal.os, "replace", failing)
    with pytest.raises(WriteError) as e:
        write_sets({inc: {"x.h": b"new h"}, res: {"x.rc": b"new rc", "x.bin": b"new bin"}})
    monkeypatch.setattr(journal.os, "replace", real)
    assert str(e.value).endswith(": Input/output error") and ".tmp" not in str(e.value)
    assert (inc / "x.h").read_bytes() == b"old h"
    assert {p.name: p.read_bytes() for p in res.iterdir()} == {
        "x.rc": b"old rc",
        "x.bin": b"old bin",
    }
    _no_temporaries(tmp_path)


def test_a_symbolic_link_in_a_set_writes_its_target(tmp_path: Path) -> None:
    out, src = tmp_path / "out", tmp_path / "src"
    src.mkdir()
    (src / "real.py").write_bytes(b"old")
    out.mkdir()
    (out / "x.py").symlink_to(src / "real.py")
    write_set(out, {"x.py": b"new", "x.rc": b"rc"})
    assert (out / "x.py").is_symlink() and (src / "real.py").read_bytes() == b"new"
    assert stale(out, {"x.py": b"new", "x.rc": b"rc"}) == []
    _no_temporaries(tmp_path)


def test_a_set_with_a_device_and_a_fifo(tmp_path: Path) -> None:
    device(tmp_path / "null.bin", NULL_DEVICE)
    os.mkfifo(tmp_path / "pipe.txt")
    reader = FifoReader(tmp_path / "pipe.txt")
    write_set(tmp_path, {"null.bin": b"gone", "pipe.txt": b"through", "x.py": b"file"})
    assert reader.result() == b"through"
    assert (tmp_path / "x.py").read_bytes() == b"file"
    # Devices and FIFOs are never read back: nothing to compare, never stale.
    assert stale(tmp_path, {"null.bin": b"x", "pipe.txt": b"y", "x.py": b"file"}) == []


def test_a_fifo_nobody_reads_stops_the_whole_set(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "x.h")
    with pytest.raises(WriteError, match="no process is reading"):
        write_set(tmp_path, {"x.h": b"h", "x.py": b"py"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.h"]


def test_skip_unchanged_keeps_time_stamps(tmp_path: Path) -> None:
    write_set(tmp_path, {"a.py": b"a", "b.bin": b"b"})
    os.utime(tmp_path / "a.py", (1_000_000, 1_000_000))
    write_set(tmp_path, {"a.py": b"a", "b.bin": b"changed"}, skip_unchanged=True)
    assert (tmp_path / "a.py").stat().st_mtime == 1_000_000
    assert (tmp_path / "b.bin").read_bytes() == b"changed"


def test_stale(tmp_path: Path) -> None:
    (tmp_path / "same").write_bytes(b"1")
    (tmp_path / "other").write_bytes(b"old")
    (tmp_path / "dir").mkdir()
    plan = {"same": b"1", "other": b"new", "gone": b"x", "dir": b"y"}
    assert stale(tmp_path, plan) == [
        ("dir", "unreadable"),
        ("gone", "missing"),
        ("other", "differs"),
    ]
    assert stale(tmp_path / "nowhere", {"a": b"1"}) == [("a", "missing")]


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "/abs", "n\0ul"])
def test_a_set_names_plain_files_only(name: str, tmp_path: Path) -> None:
    with pytest.raises(WriteError, match="not a plain file name"):
        write_set(tmp_path / "out", {"ok.py": b"1", name: b"2"})
    assert not (tmp_path / "out").exists()


def test_a_second_writer_waits_for_the_first(tmp_path: Path) -> None:
    lock = journal.FolderLock(tmp_path)
    lock.acquire()
    waited: list[str] = []
    done = threading.Event()

    def second() -> None:
        write_set(tmp_path, {"x.py": b"second"}, on_wait=waited.append)
        done.set()

    t = threading.Thread(target=second)
    t.start()
    time.sleep(0.3)
    assert not done.is_set() and waited == [str(tmp_path)]
    assert journal.writing(tmp_path)
    lock.release()
    t.join(30)
    assert done.is_set() and (tmp_path / "x.py").read_bytes() == b"second"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["x.py"]


def test_writers_of_one_folder_never_mix_their_sets(tmp_path: Path) -> None:
    names = [f"f{i}.bin" for i in range(8)]
    plans = [{n: f"{who}:{n}".encode() for n in names} for who in ("A", "B", "C")]
    errors: list[BaseException] = []

    def writes(plan: dict[str, bytes]) -> None:
        try:
            for _ in range(40):
                write_set(tmp_path, plan)
        except BaseException as e:  # noqa: BLE001 - reported by the test
            errors.append(e)

    threads = [threading.Thread(target=writes, args=(p,)) for p in plans]
    for t in threads:
        t.start()
    samples = 0
    while any(t.is_alive() for t in threads):
        # Between two writes (holding the lock, as a writer does) the folder holds
        # one writer's whole set.
        lock = journal.FolderLock(tmp_path)
        lock.acquire()
        try:
            current = {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in names}
        finally:
            lock.release()
        if current:
            samples += 1
            assert current in plans
    for t in threads:
        t.join()
    assert errors == [] and samples > 0
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} in plans


@pytest.mark.parametrize("how", ["file", "stream"])
def test_what_a_killed_write_of_one_file_left_is_removed_by_the_next(
    how: str, tmp_path: Path
) -> None:
    left = tmp_path / ".x.out.0123456789abcdef.tmp"
    left.write_bytes(b"half")
    other = tmp_path / ".y.out.0123456789abcdef.tmp"  # another file's: not touched
    other.write_bytes(b"half")
    _write(how, tmp_path / "x.out")
    assert sorted(p.name for p in tmp_path.iterdir()) == [other.name, "x.out"]
