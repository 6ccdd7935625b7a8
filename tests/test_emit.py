"""All-or-nothing output writing and the --check comparison."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from etwmc import emit
from etwmc.emit import EmitError, check_name, stale, write_all


@pytest.mark.parametrize("name", ["", ".", "..", "a/b", "a\\b", "/abs", "C:x", "n\0ul"])
def test_names_must_be_plain(name: str) -> None:
    with pytest.raises(EmitError):
        check_name(name)


def test_write_all_writes_every_file_with_normal_permissions(tmp_path: Path) -> None:
    out = tmp_path / "new" / "dir"
    written = write_all(out, {"b.bin": b"\x00\x01", "a.py": b"x = 1\n"})
    assert [p.name for p in written] == ["a.py", "b.bin"]
    assert (out / "a.py").read_bytes() == b"x = 1\n"
    assert (out / "b.bin").read_bytes() == b"\x00\x01"
    mask = os.umask(0)
    os.umask(mask)
    assert (out / "a.py").stat().st_mode & 0o777 == 0o666 & ~mask
    assert sorted(p.name for p in out.iterdir()) == ["a.py", "b.bin"]  # no temporaries


def test_a_bad_name_writes_nothing(tmp_path: Path) -> None:
    with pytest.raises(EmitError):
        write_all(tmp_path, {"ok.py": b"1", "../evil.py": b"2"})
    assert list(tmp_path.iterdir()) == []


def test_a_failed_move_restores_the_folder(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_bytes(b"old a")
    (tmp_path / "c.rc").mkdir()  # os.replace onto a directory fails
    with pytest.raises(EmitError):
        write_all(tmp_path, {"a.py": b"new a", "b.bin": b"new b", "c.rc": b"new c"})
    assert (tmp_path / "a.py").read_bytes() == b"old a"
    assert not (tmp_path / "b.bin").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.py", "c.rc"]


def test_a_failed_temporary_write_leaves_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    calls = {"n": 0}
    real = emit.os.fdopen

    def flaky(fd: int, mode: str):  # type: ignore[no-untyped-def]
        calls["n"] += 1
        if calls["n"] == 2:
            os.close(fd)
            raise OSError(28, "No space left on device")
        return real(fd, mode)

    monkeypatch.setattr(emit.os, "fdopen", flaky)
    with pytest.raises(EmitError, match="No space left"):
        write_all(tmp_path, {"a": b"1", "b": b"2", "c": b"3"})
    assert list(tmp_path.iterdir()) == []


def test_stale(tmp_path: Path) -> None:
    (tmp_path / "same").write_bytes(b"1")
    (tmp_path / "other").write_bytes(b"old")
    plan = {"same": b"1", "other": b"new", "gone": b"x"}
    assert stale(tmp_path, plan) == [("gone", "missing"), ("other", "differs")]
    write_all(tmp_path, plan)
    assert stale(tmp_path, plan) == []


@pytest.mark.parametrize(
    "names", [["a.py", "aTEMP.BIN"], ['we"ird\\name', "tab\there", "é.py", "\u2028.rc"]]
)
def test_the_journal_is_what_json_dumps_writes(names: list[str]) -> None:
    import json

    from etwmc.emit import _Entry, _journal_json

    entries = [_Entry(n, None if i else "ab" * 32, "cd" * 32) for i, n in enumerate(names)]
    files = [{"name": e.name, "old": e.old, "new": e.new} for e in entries]
    text = _journal_json(entries)
    assert text == json.dumps({"etwmc-journal": 1, "files": files})
    assert json.loads(text)["files"] == files
