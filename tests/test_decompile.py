"""Decompiling: blob -> manifest -> compile gives the same blob, for mc's goldens and the corpus."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import sized_cases
from etwmc.decompile import decompile
from etwmc.validate import check_bytes, check_file
from etwmc.wevt import build_wevt
from etwmc.wevt.reader import parse_blob, read_wevt

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared"
ETK = SHARED / "golden" / "event-trace-kit"
CORPUS = SHARED / "corpus"

needs_golden = pytest.mark.skipif(not ETK.is_dir(), reason="../shared/golden is not available")
needs_corpus = pytest.mark.skipif(not CORPUS.is_dir(), reason="../shared/corpus is not available")


def recompile(blob: bytes, version: int = 5, legacy: bool = False) -> tuple[str, bytes]:
    text = decompile(read_wevt(blob))
    checked = check_bytes(text.encode("utf-8"), "decompiled.man")
    errors = [str(d) for d in checked.diagnostics if d.severity >= 2]
    assert checked.ok and checked.manifest is not None, errors
    return text, build_wevt(checked.manifest, version=version, legacy_ids=legacy)


def golden_blobs() -> list[Path]:
    return sorted(ETK.glob("*.wevt.*.bin")) if ETK.is_dir() else []


@needs_golden
@pytest.mark.parametrize("path", golden_blobs(), ids=lambda p: p.name)
def test_golden_round_trip(path: Path) -> None:
    blob = path.read_bytes()
    _, again = recompile(blob, 3 if ".v3" in path.name else 5, "8.1" in path.name)
    assert again == blob


def _corpus() -> list[Path]:
    if not CORPUS.is_dir():
        return []
    bad = set((CORPUS / "expected-failures.txt").read_text(encoding="utf-8").split())
    return sorted(
        p for p in CORPUS.iterdir()
        if p.suffix in (".man", ".xml", ".manifest") and p.name not in bad
    )  # fmt: skip


# Templates whose UserData text has irregular spaces around %n (" %3" next to " %1 "): the
# stored template id hashes them, but BinXML does not keep them, so the id of such a
# template cannot be reproduced.  Everything else in the blob must be.
IRREGULAR_USERDATA = {"microsoft__perfview__ClrEtwAll.man"}


def _without_userdata_ids(blob: bytes) -> bytes:
    raw = parse_blob(blob)
    data = bytearray(blob)
    for p in raw.providers:
        for t in p.templates:
            if t.flags & 2:
                data[t.offset + 24 : t.offset + 40] = bytes(16)
    return bytes(data)


@needs_corpus
@pytest.mark.parametrize("path", sized_cases(_corpus()))
def test_corpus_round_trip(path: Path) -> None:
    checked = check_file(path)
    if not checked.ok or checked.manifest is None:
        codes = sorted({d.code for d in checked.diagnostics if d.severity >= 2})
        pytest.skip(f"{path.name} does not validate yet: {'; '.join(codes)}")
    blob = build_wevt(checked.manifest)
    _, again = recompile(blob)
    from etwmc.wevt.reader import read_wevt_with_losses

    codes = {d.code for d in read_wevt_with_losses(blob)[1]}
    if path.name in IRREGULAR_USERDATA:
        assert again != blob  # remove from IRREGULAR_USERDATA if this starts to pass
        assert _without_userdata_ids(again) == _without_userdata_ids(blob)
        assert codes == {"ETW801"}  # and the decompiler says so
    else:
        assert again == blob
        assert codes == set()
    from test_wevt_reader import dissect_check

    dissect_check(blob, path.name)


@needs_golden
def test_decompiled_manifest_reads_well() -> None:
    from etwmc.wevt.msgtable import read_message_table

    blob = (ETK / "Large.wevt.v5.bin").read_bytes()
    table = read_message_table((ETK / "Large.msg.bin").read_bytes())
    text = decompile(read_wevt(blob, messages=[table]))
    assert 'xmlns:ns1="urn:etwmc:prefix:ns1"' in text
    assert (
        '<level name="ns1:LevelName1" value="105" message="$(string.level.ns1_LevelName1)"/>'
        in text
    )
    assert '<string id="level.ns1_LevelName1" value="Level.1.1"/>' in text
    # the ids mc would give anyway are not pinned
    assert "<messageTable>" not in text
    # the text is stable
    assert decompile(read_wevt(blob, messages=[table])) == text


@needs_golden
def test_ids_mc_would_not_assign_are_pinned() -> None:
    from etwmc.model import Manifest, Message

    m = read_wevt((ETK / "TaskOpcodes.wevt.v5.bin").read_bytes())
    moved = tuple(
        Message(value=0x00ABCDEF, message=x.message) if x.message == "task.Task1" else x
        for x in m.messages
    )
    first = next(x for x in moved if x.value == 0x00ABCDEF)
    text = decompile(Manifest(path=m.path, providers=m.providers, messages=moved))
    assert f'<message value="0x00ABCDEF" message="$(string.{first.message})"/>' in text
    checked = check_bytes(text.encode(), "pinned.man")
    assert checked.ok and checked.manifest is not None
    from etwmc.msgids import assign_message_ids

    assert first.message is not None
    assert assign_message_ids(checked.manifest).strings[first.message] == 0x00ABCDEF


@needs_golden
def test_decompile_cli_is_deterministic_across_hash_seeds(tmp_path: Path) -> None:
    outs = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}.man"
        env = {**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)}
        proc = subprocess.run(
            [sys.executable, "-m", "etwmc", "decompile", str(ETK / "wpf-etw.wevt.v5.bin"),
             "--messages", str(ETK / "wpf-etw.msg.bin"), "-o", str(out)],
            env=env, capture_output=True, text=True, check=False,
        )  # fmt: skip
        assert proc.returncode == 0, proc.stderr
        outs.append(out.read_bytes())
    assert outs[0] == outs[1]
    assert b"\r\n" not in outs[0]
    assert b'name="Microsoft-Windows-WPF"' in outs[0]


def test_decompile_cli_reports_bad_blob(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from etwmc.cli import main

    bad = tmp_path / "bad.bin"
    bad.write_bytes(b"CRIM\x10\x00\x00\x00\x05\x00\x01\x00\x05\x00\x00\x00")
    assert main(["decompile", str(bad)]) == 1
    err = capsys.readouterr().err
    assert "provider directory at offset 0x10" in err
    assert "Traceback" not in err


def _msg_goldens() -> list[Path]:
    return sorted(ETK.glob("*.msg.bin")) if ETK.is_dir() else []


@needs_golden
@pytest.mark.parametrize("msg", _msg_goldens(), ids=lambda p: p.name)
def test_message_table_round_trip(msg: Path) -> None:
    """Blob + mc's message table -> manifest -> etwmc's message table is mc's, byte for byte."""
    from etwmc.wevt import build_message_tables
    from etwmc.wevt.msgtable import read_message_table

    base = msg.name.split(".msg")[0]
    blob_name = f"{base}.wevt.v3-8.1-compat.bin" if "compat" in msg.name else f"{base}.wevt.v5.bin"
    table = msg.read_bytes()
    m = read_wevt((ETK / blob_name).read_bytes(), messages=[read_message_table(table)])
    checked = check_bytes(decompile(m).encode("utf-8"), "decompiled.man")
    assert checked.ok and checked.manifest is not None
    ((culture, rebuilt),) = build_message_tables(checked.manifest)
    assert culture == "en-US"
    assert rebuilt == table


@needs_golden
def test_decompile_cli_cultures(tmp_path: Path) -> None:
    from etwmc.cli import main

    msg = str(ETK / "TaskOpcodes.msg.bin")
    out = tmp_path / "o.man"
    argv = ["decompile", str(ETK / "TaskOpcodes.wevt.v5.bin"), "--messages", msg, "--messages"]
    argv += [msg, "--culture", "en-US", "--culture", "de-DE", "-o", str(out)]
    assert main(argv) == 0
    checked = check_file(out)
    assert checked.ok and checked.manifest is not None
    assert [r.culture for r in checked.manifest.resources] == ["en-US", "de-DE"]


# --------------------------------------------------------------------------- losses


LOSSY = b"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Lossy" guid="{3C1F0B52-7A44-4E9B-9D2E-5B8A0C6F1E01}" symbol="LOSSY"
              resourceFileName="l.dll" messageFileName="l.dll">
      <templates>
        <template tid="T"><data name="A" inType="win:UInt32"/></template>
      </templates>
      <events>
        <event value="1" level="win:Informational" template="T"/>
        <event value="2" level="win:Informational"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def _lossy_blob() -> bytes:
    from etwmc.wevt.reader_raw import parse_blob

    checked = check_bytes(LOSSY, "lossy.man")
    assert checked.ok and checked.manifest is not None
    blob = bytearray(build_wevt(checked.manifest))
    p = parse_blob(bytes(blob)).providers[0]
    blob[p.events[1].offset + 5] = 192  # opcode byte of event 2, with no OPCO entry
    blob[p.templates[0].offset + 24] ^= 0xFF  # the template id
    return bytes(blob)


def test_losses_are_reported_not_dropped(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An opcode value no entry gives and a template id compiling cannot rebuild: the
    manifest is still written, and each difference is a warning naming where it is."""
    from etwmc.cli import main
    from etwmc.wevt.reader import read_wevt_with_losses

    blob = _lossy_blob()
    _, losses = read_wevt_with_losses(blob, path="lossy.bin")
    assert sorted(d.code for d in losses) == ["ETW800", "ETW801"]
    from etwmc.wevt.reader_raw import parse_blob

    p = parse_blob(blob).providers[0]
    (opcode,) = (d for d in losses if d.code == "ETW800")
    assert "opcode value 192" in opcode.message and f"0x{p.events[1].offset:x}" in opcode.message
    (template,) = (d for d in losses if d.code == "ETW801")
    assert f"0x{p.templates[0].offset:x}" in template.message and "id" in template.message

    path = tmp_path / "lossy.bin"
    path.write_bytes(blob)
    out = tmp_path / "lossy.man"
    assert main(["decompile", str(path), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "warning ETW800" in err and "warning ETW801" in err
    assert check_file(out).ok


@needs_golden
@pytest.mark.parametrize("path", golden_blobs(), ids=lambda p: p.name)
def test_mc_goldens_lose_nothing(path: Path) -> None:
    from etwmc.wevt.reader import read_wevt_with_losses

    _, losses = read_wevt_with_losses(path.read_bytes())
    expected = ["ETW802"] if "8.1" in path.name else []
    assert [d.code for d in losses] == expected


@needs_golden
def test_decompile_names_the_flag_for_mc_8_1_ids(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from etwmc.cli import main

    blob = ETK / "wpf-etw.wevt.v3-8.1-compat.bin"
    out = tmp_path / "wpf.man"
    assert main(["decompile", str(blob), "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "note ETW802" in err and "--legacy-template-ids" in err
    assert (
        main(["compile", str(out), "-o", str(tmp_path), "--no-python", "--legacy-template-ids"])
        == 0
    )
    assert (tmp_path / "wpfTEMP.BIN").read_bytes() == blob.read_bytes()


@pytest.mark.parametrize(
    "user_data",
    [
        "<Thing xmlns='urn:x'><A>%1</A></Thing>",
        "<Thing xmlns='urn:x'><A>%1</A>\n</Thing>",
        "<Thing xmlns='urn:x'><A>%1</A><B><C>%1</C></B></Thing>",
    ],
)
def test_userdata_end_tags_keep_their_line_breaks(user_data: str) -> None:
    """The template id hashes whether a line break precedes an end tag that follows a
    child; indenting the decompiled manifest must not add one the source did not have."""
    man = LOSSY.replace(
        b'<data name="A" inType="win:UInt32"/>',
        b'<data name="A" inType="win:UInt32"/><UserData>' + user_data.encode() + b"</UserData>",
    )
    checked = check_bytes(man, "userdata.man")
    assert checked.ok and checked.manifest is not None
    blob = build_wevt(checked.manifest)
    _, again = recompile(blob)
    assert again == blob
