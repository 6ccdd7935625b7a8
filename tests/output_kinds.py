"""Output paths of every kind, made in a temporary folder, for the writer's tests and the
commands' (tests/test_writer.py, tests/test_output_paths.py).

No real system path is ever an output: devices are made with os.mknod, FIFOs with
os.mkfifo, sockets bound in the folder; a read-only folder and a full disk are small
tmpfs mounts made there (when this system lets the tests mount: as root), else a
read-only folder is a folder without write permission and a full disk an injected
ENOSPC.
"""

from __future__ import annotations

import contextlib
import errno
import os
import select
import shutil
import socket
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

KINDS = (
    "regular",
    "missing",
    "symlink",
    "dangling",
    "chardev",
    "fifo-reader",
    "fifo",
    "socket",
    "readonly",
    "full",
)
OLD = b"old content\n"
NULL_DEVICE = (1, 3)  # Linux's memory devices: null and full
FULL_DEVICE = (1, 7)


@contextlib.contextmanager
def short_folder() -> Iterator[Path]:
    """A fresh temporary folder with a short path: a socket's path must fit in 108 bytes."""
    folder = Path(tempfile.mkdtemp(prefix="etwmc-"))
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _mount(*args: str) -> bool:
    if os.name != "posix" or os.geteuid() != 0 or shutil.which("mount") is None:
        return False
    return subprocess.run(["mount", *args], capture_output=True).returncode == 0


def _unmount(folder: Path) -> None:
    subprocess.run(["umount", "-l", str(folder)], capture_output=True)


def device(path: Path, numbers: tuple[int, int]) -> None:
    if not hasattr(os, "mknod"):
        pytest.skip("no device nodes here")
    try:
        os.mknod(path, stat.S_IFCHR | 0o666, os.makedev(*numbers))
    except PermissionError:
        pytest.skip("device nodes need root")


class FifoReader:
    """A process reading a FIFO to its end: a reader is there from the moment this is
    made (a writer that opens without waiting finds it), and what arrives is kept."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.data = b""
        self._fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self) -> None:
        # poll() waits for a writer's data or its end (Linux reports no hang-up to a
        # reader before a writer has come), and read() then gives b"" at the end.
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        chunks = []
        while True:
            poller.poll()
            try:
                chunk = os.read(self._fd, 65536)
            except BlockingIOError:
                continue
            if not chunk:
                break
            chunks.append(chunk)
        os.close(self._fd)
        self.data = b"".join(chunks)

    def result(self, timeout: float = 30) -> bytes:
        self._thread.join(timeout)
        assert not self._thread.is_alive(), "nothing was written into the FIFO"
        return self.data


class SocketServer:
    """A listening socket that keeps what one client sends."""

    def __init__(self, path: Path) -> None:
        self.data = b""
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.bind(str(path))
        self.sock.listen(1)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        conn, _ = self.sock.accept()
        with conn:
            chunks = []
            while chunk := conn.recv(65536):
                chunks.append(chunk)
        self.data = b"".join(chunks)

    def result(self, timeout: float = 30) -> bytes:
        self._thread.join(timeout)
        self.sock.close()
        assert not self._thread.is_alive(), "nothing connected to the socket"
        return self.data


@dataclass
class Spot:
    """An output path of one kind.  ``received()`` is what reached it; ``intact()``
    says the path is still what it was (a link, a device, a FIFO, a socket, the old
    file after a failure)."""

    kind: str
    path: Path
    received: Callable[[], bytes | None]
    intact: Callable[[], bool]
    fails: bool = False  # a write here must fail (read-only folder, full disk)
    waits: bool = False  # a FIFO nobody reads yet
    cleanups: list[Callable[[], None]] = field(default_factory=list)

    def reader(self) -> FifoReader:
        """For ``fifo``: the reader that comes later."""
        return FifoReader(self.path)


def _file(path: Path) -> bytes | None:
    try:
        return path.read_bytes()
    except OSError:
        return None


@contextlib.contextmanager
def prepared(kind: str, folder: Path, name: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Spot]:
    """``folder/name`` made a path of ``kind`` (see :data:`KINDS`)."""
    path = folder / name
    folder.mkdir(parents=True, exist_ok=True)
    if kind == "regular":
        path.write_bytes(OLD)
        yield Spot(kind, path, lambda: _file(path), lambda: path.is_file())
    elif kind == "missing":
        yield Spot(kind, path, lambda: _file(path), lambda: path.is_file())
    elif kind in ("symlink", "dangling"):
        target = folder / "elsewhere" / "target.out"
        target.parent.mkdir()
        if kind == "symlink":
            target.write_bytes(OLD)
        path.symlink_to(target)
        yield Spot(
            kind,
            path,
            lambda: _file(target),
            lambda: path.is_symlink() and os.readlink(path) == str(target) and target.is_file(),
        )
    elif kind == "chardev":
        device(path, NULL_DEVICE)
        yield Spot(kind, path, lambda: None, lambda: stat.S_ISCHR(os.lstat(path).st_mode))
    elif kind in ("fifo-reader", "fifo"):
        os.mkfifo(path)
        reader = FifoReader(path) if kind == "fifo-reader" else None
        spot = Spot(
            kind,
            path,
            (lambda: reader.result()) if reader else lambda: None,
            lambda: stat.S_ISFIFO(os.lstat(path).st_mode),
            waits=reader is None,
        )
        yield spot
    elif kind == "socket":
        server = SocketServer(path)
        yield Spot(kind, path, server.result, lambda: stat.S_ISSOCK(os.lstat(path).st_mode))
    elif kind == "readonly":
        with _readonly(folder, path):
            yield Spot(kind, path, lambda: _file(path), lambda: _file(path) == OLD, fails=True)
    elif kind == "full":
        with _full(folder, path, monkeypatch):
            yield Spot(kind, path, lambda: _file(path), lambda: _file(path) == OLD, fails=True)
    else:  # pragma: no cover
        raise ValueError(kind)


@contextlib.contextmanager
def _readonly(folder: Path, path: Path) -> Iterator[None]:
    """``folder`` holding ``path`` (the old content), then made read-only."""
    if os.name == "posix" and os.geteuid() != 0:
        path.write_bytes(OLD)
        folder.chmod(0o555)
        try:
            yield
        finally:
            folder.chmod(0o755)
        return
    if not _mount("-t", "tmpfs", "-o", "size=1m", "tmpfs", str(folder)):
        pytest.skip("root ignores folder permissions, and no tmpfs can be mounted here")
    try:
        path.write_bytes(OLD)
        if not _mount("-o", "remount,ro", str(folder)):
            pytest.skip("a tmpfs cannot be made read-only here")
        yield
    finally:
        _unmount(folder)


@contextlib.contextmanager
def _full(folder: Path, path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """``folder`` holding ``path`` (the old content) on a disk with no room left: a
    small tmpfs filled up, or (where nothing can be mounted) every new file's first
    write failing with ENOSPC."""
    if not _mount("-t", "tmpfs", "-o", "size=64k", "tmpfs", str(folder)):
        path.write_bytes(OLD)
        inject_enospc(monkeypatch)
        yield
        return
    try:
        path.write_bytes(OLD)
        fd = os.open(folder / "filler", os.O_WRONLY | os.O_CREAT, 0o644)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0" * 4096)
        os.close(fd)
        yield
    finally:
        _unmount(folder)


def inject_enospc(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every file the writer creates fails as on a full disk."""
    from etwmc import journal, writer

    def full(path: Path, data: bytes) -> None:
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    class FullText:
        def __init__(self, raw: object, errors: str) -> None:
            self.raw = raw

        def write(self, text: str) -> int:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

        def flush(self) -> None:
            pass

        def close(self) -> None:
            self.raw.close()  # type: ignore[attr-defined]

    monkeypatch.setattr(journal, "create_file", full)
    monkeypatch.setattr(writer, "create_file", full)
    monkeypatch.setattr(writer, "_text", FullText)
