"""Damaged WEVT blobs and message tables through the commands that take them.

``decompile``, ``diff``, ``decode --wevt`` and ``--messages`` report a damaged input as a
diagnostic that gives the byte offset of the damage (exit 1), never an internal error.
The four kinds of damage seen in the field each have a blob built from mc's output;
then the commands themselves are fuzzed with mutated goldens.
"""

from __future__ import annotations

import random
import re
import subprocess
import sys
from pathlib import Path

import pytest

from etwmc.cli import main
from etwmc.runtime.eventfile import write_events
from etwmc.validate import check_bytes
from etwmc.wevt import build_wevt
from etwmc.wevt.msgtable import encode_messages

ETK = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "event-trace-kit"
LARGE = ETK / "Large.wevt.v5.bin"

pytestmark = pytest.mark.skipif(not LARGE.is_file(), reason="../shared/golden is not available")


def _utf16(s: str) -> bytes:
    return s.encode("utf-16-le")


def _damage(name: str, at: int, unit: int) -> tuple[bytes, int]:
    """Large.wevt.v5.bin with code unit ``at`` of the first string ``name`` replaced by
    ``unit``; returns the blob and the byte offset of the replaced unit."""
    blob = bytearray(LARGE.read_bytes())
    pos = bytes(blob).find(_utf16(name))
    assert pos > 0
    blob[pos + 2 * at : pos + 2 * at + 2] = unit.to_bytes(2, "little")
    return bytes(blob), pos + 2 * at


def _run(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    rc = main(args)
    out = capsys.readouterr()
    return rc, out.out, out.err


# Damage that makes the blob unreadable, and what the report must say about it.
BAD = {
    "control character in a name": (("LevelName5", 5, 0x0001), "U+0001"),
    "lone surrogate in a name": (("LevelName5", 5, 0xD800), "invalid UTF-16"),
    "invalid prefix": (("ns1:TaskName1", 0, ord("-")), "not an XML qualified name"),
    "control character in a BinXML name": (("EventData", 5, 0x0009), "not an XML name"),
}


@pytest.mark.parametrize("kind", sorted(BAD))
def test_damaged_blob_is_a_diagnostic_with_the_offset(
    kind: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (name, at, unit), says = BAD[kind]
    blob, offset = _damage(name, at, unit)
    path = tmp_path / "xTEMP.BIN"
    path.write_bytes(blob)
    # The string's own offset for a name that is not a name, the character's otherwise.
    where = {f"0x{offset:x}", f"0x{offset - 2 * at - 4:x}", f"0x{offset - 2 * at - 4 - 2:x}"}
    events = tmp_path / "e.etwmc"
    write_events(events, [])
    for args, code in (
        (["decompile", str(path)], "ETW020"),
        (["decode", str(events), "--wevt", str(path)], "ETW852"),
        (["diff", str(path), str(LARGE)], "ETW739"),
    ):
        rc, out, err = _run(args, capsys)
        report = out + err
        assert rc == 1, (args, report)
        assert f"error {code}" in report and says in report, report
        assert any(w in report for w in where), (where, report)
        assert "internal error" not in report


def test_a_prefix_a_uri_cannot_hold_is_escaped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # 'ns1' -> 'n\uad69 1': a valid prefix, but not valid in the URI etwmc declares for it.
    blob, _ = _damage("ns1:TaskName1", 1, 0xAD69)
    path = tmp_path / "xTEMP.BIN"
    path.write_bytes(blob)
    rc, text, err = _run(["decompile", str(path)], capsys)
    assert rc == 0, err
    assert 'xmlns:n\uad691="urn:etwmc:prefix:n%EA%B5%A91"' in text
    checked = check_bytes(text.encode("utf-8"), "decompiled.man")
    assert checked.ok and checked.manifest is not None
    assert build_wevt(checked.manifest) == blob  # still the same blob


def test_diff_of_a_damaged_blob_in_a_real_process(tmp_path: Path) -> None:
    # A lone surrogate once reached standard output, which cannot encode it.
    blob, offset = _damage("LevelName5", 5, 0xDC00)
    path = tmp_path / "xTEMP.BIN"
    path.write_bytes(blob)
    for args in (["diff", str(path), str(LARGE)], ["diff", str(LARGE), str(path)]):
        proc = subprocess.run(
            [sys.executable, "-m", "etwmc", *args], capture_output=True, text=True, timeout=60
        )
        assert proc.returncode == 1, proc.stderr
        assert "ETW739" in proc.stdout and f"0x{offset:x}" in proc.stdout
        assert "internal error" not in proc.stderr and "Traceback" not in proc.stderr


def test_message_table_with_a_control_character(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Any text is a valid message, so decode reads it; a manifest cannot hold it, so
    decompile reports where it is."""
    table = encode_messages({0x90000001: "fine", 0x90000002: "bell\x07"})
    msg = tmp_path / "x_MSG00001.bin"
    msg.write_bytes(table)
    offset = table.find(_utf16("bell")) + 8
    rc, _, err = _run(["decompile", str(LARGE), "--messages", str(msg)], capsys)
    assert rc == 1
    assert "error ETW021" in err and "U+0007" in err and f"offset {offset}" in err
    events = tmp_path / "e.etwmc"
    write_events(events, [])
    rc, _, err = _run(["decode", str(events), "--wevt", str(LARGE), "--messages", str(msg)], capsys)
    assert "ETW021" not in err and "internal error" not in err


# --------------------------------------------------------------------------- fuzzing

_SMALL = ["EventAttributes.wevt.v5.bin", "TaskOpcodes.wevt.v3.bin", "ImportChannels.wevt.v5.bin"]
# Code units that once broke a command: controls, lone surrogates, non-characters,
# ':' and a space in names, and letters a URI cannot hold.
_UNITS = [0x0001, 0x001F, 0xD800, 0xDFFF, 0xFFFE, 0x003A, 0x0020, 0x00E9, 0xAD69, 0x0000]


def _mutants(seed: int, count: int) -> list[tuple[str, bytes]]:
    rnd = random.Random(seed)
    out = []
    for _ in range(count):
        name = rnd.choice(_SMALL)
        data = bytearray((ETK / name).read_bytes())
        for _ in range(rnd.randint(1, 3)):
            pos = rnd.randrange(len(data) - 1)
            if rnd.random() < 0.6:
                data[pos & ~1 : (pos & ~1) + 2] = rnd.choice(_UNITS).to_bytes(2, "little")
            else:
                data[pos] = rnd.randrange(256)
        out.append((name, bytes(data)))
    return out


@pytest.mark.parametrize("command", ["decompile", "diff", "decode"])
def test_commands_survive_mutated_blobs(
    command: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    events = tmp_path / "e.etwmc"
    write_events(events, [])
    path = tmp_path / "mTEMP.BIN"
    outcomes = set()
    for name, data in _mutants(seed=len(command), count=60):
        path.write_bytes(data)
        args = {
            "decompile": ["decompile", str(path)],
            "diff": ["diff", str(ETK / name), str(path)],
            "decode": ["decode", str(events), "--wevt", str(path)],
        }[command]
        rc, out, err = _run(args, capsys)
        assert "internal error" not in err, (name, data.hex(), err)
        assert rc in (0, 1), (name, err)
        if rc == 1 and command != "diff":
            code = "ETW852" if command == "decode" else "ETW020"  # decode: metadata unreadable
            assert f"error {code}" in err and re.search(r"\bat (offset )?0x[0-9a-f]+", err), err
        outcomes.add(rc)
    assert outcomes == {0, 1}  # the mutations both break blobs and leave some readable


def test_commands_survive_mutated_message_tables(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    table = (ETK / "Large.msg.bin").read_bytes()
    rnd = random.Random(7)
    msg = tmp_path / "m.bin"
    for _ in range(40):
        data = bytearray(table)
        pos = rnd.randrange(len(data) - 1) & ~1
        data[pos : pos + 2] = rnd.choice(_UNITS).to_bytes(2, "little")
        msg.write_bytes(data)
        rc, _, err = _run(["decompile", str(LARGE), "--messages", str(msg)], capsys)
        assert "internal error" not in err and rc in (0, 1), err
        if rc == 1:
            assert "error ETW021" in err and re.search(r"\boffset \d+", err), err
