"""A folder search that meets what it cannot read reports that entry (ETW014) and
checks every other file: symbolic-link loops, folders it may not enter, FIFOs and
devices named like manifests, entries that vanish while it runs.  Never an internal
error, never a wait on a FIFO."""

from __future__ import annotations

import os
import shutil
import stat
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from etwmc.cli import main
from etwmc.discover import discover

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"
TYPO = ROOT / "examples" / "lint-demo" / "src" / "acme" / "events.man"  # ETW401 at line 41


def _tree(folder: Path) -> Path:
    """A good manifest and one with an error, in two folders."""
    (folder / "a").mkdir(parents=True)
    (folder / "b").mkdir()
    shutil.copy(HELLO, folder / "a" / "hello.man")
    shutil.copy(TYPO, folder / "b" / "events.man")
    return folder


def _lint(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    status = main(["lint", *map(str, args)])
    out, err = capsys.readouterr()
    return status, out, err


def _reported(out: str) -> dict[str, set[str]]:
    """File -> codes of the text report's diagnostic lines."""
    found: dict[str, set[str]] = {}
    for line in out.splitlines():
        place, _, rest = line.partition(": ")
        if rest.startswith(("error ", "warning ")):
            found.setdefault(place.split(":")[0], set()).add(rest.split()[1].rstrip(":"))
    return found


def _assert_others_checked(out: str, err: str, folder: Path) -> None:
    assert "internal error" not in err and "Traceback" not in err
    assert _reported(out).get(str(folder / "b" / "events.man")) == {"ETW401"}
    assert err.strip().endswith("in 2 files"), err


def test_symbolic_link_loops_are_reported_and_the_rest_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _tree(tmp_path / "repo")
    (folder / "self").symlink_to("self")  # a loop without a manifest's name
    (folder / "a" / "ping.man").symlink_to("pong.man")  # a loop of two
    (folder / "a" / "pong.man").symlink_to("ping.man")
    (folder / "b" / "up").symlink_to("..")  # a link to a folder: not followed, no loop
    status, out, err = _lint(capsys, folder)
    assert status == 2  # as for any path that cannot be read (README, exit codes)
    _assert_others_checked(out, err, folder)
    reported = _reported(out)
    for loop in ("self", "a/ping.man", "a/pong.man"):
        assert reported[str(folder / loop)] == {"ETW014"}
    assert "Too many levels of symbolic links" in out or "loop" in out.lower()
    assert str(folder / "b" / "up") not in reported


def test_a_folder_it_may_not_enter_is_reported(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The permission error injected where the walk lists a folder (the tests run as
    root, whom no mode bit stops; the next test drops privileges for real)."""
    folder = _tree(tmp_path / "repo")
    (folder / "closed").mkdir()
    shutil.copy(TYPO, folder / "closed" / "secret.man")
    listing = os.scandir

    def scandir(path: str | os.PathLike[str]) -> object:
        if Path(path).name == "closed":
            raise PermissionError(13, "Permission denied", str(path))
        return listing(path)

    monkeypatch.setattr(os, "scandir", scandir)
    status, out, err = _lint(capsys, folder)
    assert status == 2
    _assert_others_checked(out, err, folder)
    assert _reported(out)[str(folder / "closed")] == {"ETW014"}
    assert "Permission denied" in out


@pytest.fixture
def shared_tmp() -> Iterator[Path]:
    """A temporary folder another user can reach (pytest's own is private to root)."""
    folder = Path(tempfile.mkdtemp(prefix="etwmc-walk-"))
    folder.chmod(0o755)
    yield folder
    shutil.rmtree(folder)


NOBODY = 65534


def _unprivileged_python() -> tuple[list[str], dict[str, str]] | None:
    """A command line and environment that run this checkout's etwmc as ``nobody``:
    this interpreter when that user may run it, else the system's of the same version
    with this environment's packages on its path."""
    env = {
        "PATH": "/usr/bin:/bin",
        "NO_COLOR": "1",
        "PYTHONDONTWRITEBYTECODE": "1",
        "PYTHONPATH": os.pathsep.join([str(ROOT), sysconfig.get_paths()["purelib"]]),
    }
    version = f"import sys; assert sys.version_info[:2] == {tuple(sys.version_info[:2])}"
    for python in (sys.executable, shutil.which("python3", path="/usr/bin:/bin")):
        if python is None:
            continue
        try:
            probe = subprocess.run(
                [python, "-c", f"{version}; import etwmc.cli, lxml.etree"],
                user=NOBODY,
                env=env,
                capture_output=True,
                timeout=60,
                cwd="/",
            )
        except OSError:
            continue
        if probe.returncode == 0:
            return [python, "-m", "etwmc"], env
    return None


def test_a_folder_it_may_not_enter_as_an_unprivileged_user(shared_tmp: Path) -> None:
    if not hasattr(os, "geteuid") or os.geteuid() != 0:
        pytest.skip("needs root to drop privileges in a subprocess")
    runner = _unprivileged_python()
    if runner is None:
        pytest.skip("no interpreter an unprivileged user may run imports this checkout")
    command, env = runner
    folder = _tree(shared_tmp / "repo")
    for p in (folder, folder / "a", folder / "b"):
        p.chmod(0o755)
    for f in (folder / "a" / "hello.man", folder / "b" / "events.man"):
        f.chmod(0o644)
    closed = folder / "closed"
    closed.mkdir(mode=0o700)
    shutil.copy(TYPO, closed / "secret.man")
    proc = subprocess.run(
        [*command, "lint", str(folder)],
        user=NOBODY,
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
        cwd=shared_tmp,
    )
    assert proc.returncode == 2, proc.stdout + proc.stderr
    _assert_others_checked(proc.stdout, proc.stderr, folder)
    assert _reported(proc.stdout)[str(closed)] == {"ETW014"}
    assert "Permission denied" in proc.stdout


def test_fifos_and_devices_named_like_manifests_are_reported_never_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _tree(tmp_path / "repo")
    os.mkfifo(folder / "a" / "pipe.man")  # no writer: opening it to read would wait
    os.mkfifo(folder / "a" / "pipe.xml")  # other XML: skipped silently, as any .xml
    expected = {str(folder / "a" / "pipe.man"): {"ETW014"}}
    if hasattr(os, "geteuid") and os.geteuid() == 0:
        os.mknod(folder / "null", stat.S_IFCHR | 0o600, os.makedev(1, 3))
        (folder / "a" / "device.man").symlink_to(folder / "null")
        expected[str(folder / "a" / "device.man")] = {"ETW014"}
    status, out, err = _lint(capsys, folder)
    assert status == 2
    _assert_others_checked(out, err, folder)
    reported = _reported(out)
    assert {k: v for k, v in reported.items() if "ETW014" in v} == expected
    assert "named pipe (FIFO), not a regular file" in out


def test_entries_that_vanish_while_the_walk_runs_are_skipped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _tree(tmp_path / "repo")
    (folder / "c").mkdir()
    shutil.copy(TYPO, folder / "c" / "gone.man")
    shutil.copy(TYPO, folder / "a" / "gone.man")
    listing = os.scandir

    def scandir(path: str | os.PathLike[str] | int) -> object:
        if isinstance(path, int):  # shutil.rmtree lists by descriptor
            return listing(path)
        entries = list(listing(path))  # listed, then removed before they are looked at
        if Path(path) == folder:
            shutil.rmtree(folder / "c")
        if Path(path) == folder / "a":
            (folder / "a" / "gone.man").unlink()
        return _Listing(entries)

    monkeypatch.setattr(os, "scandir", scandir)
    status, out, err = _lint(capsys, folder)
    assert status == 1, out + err
    _assert_others_checked(out, err, folder)
    assert "gone.man" not in out


class _Listing(list[os.DirEntry[str]]):
    """A finished listing that still works as ``os.scandir``'s context manager."""

    def __enter__(self) -> _Listing:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


def test_discover_lists_the_problems(tmp_path: Path) -> None:
    folder = _tree(tmp_path / "repo")
    (folder / "loop.man").symlink_to("loop.man")
    found = discover([str(folder)])
    assert [p.relative_to(folder).as_posix() for p in found.files] == [
        "a/hello.man",
        "b/events.man",
    ]
    assert [(d.code, d.span.file) for d in found.problems] == [("ETW014", str(folder / "loop.man"))]
