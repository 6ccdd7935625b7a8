"""``etwmc mc`` with message text files: alone, with a manifest, and mc's switches that
only they use; -W and -w for manifests."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from conftest import GOLDEN
from etwmc.cli import main as cli_main
from etwmc.wevt.msgtable import read_message_table

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"
NSSM = GOLDEN / "mc" / "wellbay__nssm"

MC = """\
;// Messages of the example
LanguageNames=(English=0x409:MSG00409)
LanguageNames=(German=0x407:MSG00407)
MessageIdTypedef=DWORD

MessageId=0x100
Severity=Error
SymbolicName=MSG_FAILED
Language=English
Failed: %1
.
Language=German
Fehlgeschlagen: %1
.
"""


def _run(*argv: str | Path) -> int:
    return cli_main(["mc", *map(str, argv)])


def _mc(tmp_path: Path, text: str = MC, name: str = "errors.mc") -> Path:
    path = tmp_path / name
    path.write_text(text)
    return path


def test_a_message_text_file_alone(tmp_path: Path) -> None:
    mc = _mc(tmp_path)
    out = tmp_path / "out"
    assert _run("-h", out, "-r", out, "-x", out, mc) == 0
    assert sorted(p.name for p in out.iterdir()) == [
        "MSG00407.bin", "MSG00409.bin", "errors.dbg", "errors.h", "errors.rc",
    ]  # fmt: skip
    assert read_message_table((out / "MSG00407.bin").read_bytes()) == {
        0xC0000100: "Fehlgeschlagen: %1"
    }
    assert (
        "#define MSG_FAILED                       ((DWORD)0xC0000100L)"
        in (out / "errors.h").read_text()
    )
    assert (out / "errors.rc").read_text() == (  # languages by name, descending
        'LANGUAGE 0x7,0x1\n1 11 "MSG00407.bin"\nLANGUAGE 0x9,0x1\n1 11 "MSG00409.bin"\n'
    )
    assert ' (DWORD) MSG_FAILED, "MSG_FAILED",' in (out / "errors.dbg").read_text()


def test_the_golden_command_line(tmp_path: Path) -> None:
    """wellbay/nssm builds with mc -u -U messages.mc: the same files, byte for byte."""
    if not NSSM.is_dir():
        pytest.skip("../shared/golden is not present next to this checkout")
    shutil.copy(NSSM / "messages.mc", tmp_path)
    assert _run("-u", "-U", "-h", tmp_path, "-r", tmp_path, tmp_path / "messages.mc") == 0
    for name in ("messages.h", "messages.rc", "MSG00409.bin", "MSG0040C.bin", "MSG00410.bin"):
        assert (tmp_path / name).read_bytes() == (NSSM / name).read_bytes(), name


def test_manifest_and_message_text_file_share_one_set_of_resources(tmp_path: Path) -> None:
    """As tpn/perfecthash's mc -v -o -c -b -h include -x . -um Events.man Errors.mc."""
    man = tmp_path / "events.man"
    # hello.man's provider and channel messages (0x9...) would collide with its event
    # messages (0xB...) under -c: drop the events' messages.
    man.write_text(re.sub(r' message="\$\(string\.Event\.\w+\)"', "", HELLO.read_text()))
    mc = _mc(tmp_path)
    inc, res = tmp_path / "include", tmp_path / "res"
    assert _run("-v", "-o", "-c", "-b", "-h", inc, "-r", res, "-x", res, "-um", man, mc) == 0
    assert sorted(p.name for p in inc.iterdir()) == ["errors.h", "events.h"]
    assert sorted(p.name for p in res.iterdir()) == [
        "errors.dbg", "errors.rc", "errorsTEMP.BIN", "errors_MSG00407.bin", "errors_MSG00409.bin",
    ]  # fmt: skip
    assert (res / "errors.rc").read_text() == (
        'LANGUAGE 0x7,0x1\n1 11 "errors_MSG00407.bin"\n'
        'LANGUAGE 0x9,0x1\n1 11 "errors_MSG00409.bin"\n'
        '1 WEVT_TEMPLATE "errorsTEMP.BIN"\n'
    )
    english = read_message_table((res / "errors_MSG00409.bin").read_bytes())
    # The .mc's message (customer bit set by -c) and the manifest's strings, one table.
    assert english[0xE0000100] == "Failed: %1"
    assert english[0xB0000001] == "Etwmc Examples Hello"  # the provider's name, with -c
    assert "_HRESULT_TYPEDEF_" not in (inc / "errors.h").read_text()  # a typedef wins
    assert "#define EventWriteHello(" in (inc / "events.h").read_text()


def test_one_id_in_both_inputs_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # A <messageTable> message of the manifest with the id of the .mc's MSG_FAILED.
    text = HELLO.read_text().replace(
        "      </provider>\n    </events>",
        "      </provider>\n      <messageTable>\n"
        '        <message value="0xC0000100" message="$(string.Provider.Name)"/>\n'
        "      </messageTable>\n    </events>",
    )
    assert "<messageTable>" in text
    man = tmp_path / "events.man"
    man.write_text(text)
    mc = _mc(tmp_path)
    out = tmp_path / "out"
    assert _run("-h", out, "-r", out, man, mc) == 1
    assert f"{mc}:6:1: error ETW940: message id 0xC0000100" in capsys.readouterr().out
    assert not out.exists()
    assert _run("-h", out, "-r", out, man) == 0  # each alone is fine
    assert _run("-h", out, "-r", out, mc) == 0


def test_all_or_nothing_covers_both_inputs(tmp_path: Path) -> None:
    man = tmp_path / "events.man"
    shutil.copy(HELLO, man)
    mc = _mc(tmp_path)
    blocked = tmp_path / "dbg"
    blocked.write_bytes(b"a file where the .dbg folder should be")
    inc, res = tmp_path / "include", tmp_path / "res"
    assert _run("-h", inc, "-r", res, "-x", blocked, man, mc) == 1
    assert not inc.exists() or not list(inc.iterdir())
    assert not res.exists() or not list(res.iterdir())


def test_errors_in_the_message_text_file_write_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mc = _mc(tmp_path, MC.replace("Severity=Error", "Severity=Fatal"))
    out = tmp_path / "out"
    assert _run("-h", out, "-r", out, mc) == 1
    assert f"{mc}:7:10: error ETW912:" in capsys.readouterr().out
    assert not out.exists()


def test_switches_of_the_other_kind_are_noted_with_v(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert _run("-v", "-um", "-p", "Log", "-h", tmp_path, "-r", tmp_path, _mc(tmp_path)) == 0
    out = capsys.readouterr().out
    assert "-um has no effect on a message text file alone" in out
    assert "-p has no effect on a message text file alone" in out
    assert _run("-v", "-d", "-h", tmp_path, "-r", tmp_path, HELLO) == 0
    assert "-d has no effect on a manifest alone" in capsys.readouterr().out


def test_mc_switches_reach_the_outputs(tmp_path: Path) -> None:
    mc = tmp_path / "errors.mc"
    mc.write_bytes(MC.replace("Failed: %1", "Failed: %1 \u00e9").encode("cp1252"))
    out = tmp_path / "out"
    assert _run("-A", "-n", "-d", "-b", "-acp", "1252", "-h", out, "-r", out, mc) == 0
    table = (out / "errors_MSG00409.bin").read_bytes()
    # One ANSI entry (flags 0): no CR LF after the text (-n), one NUL, padding.
    assert table[16:] == b"\x14\x00\x00\x00" + b"Failed: %1 \xe9\0" + b"\0\0\0"
    header = (out / "errors.h").read_text(encoding="cp1252")
    assert "((DWORD)3221225728L)" in header  # -d: decimal ids
    assert "// Failed: %1 \u00e9\n" in header


# ----------------------------------------------------------------------------- -W, -w

WINMETA = """<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <metadata name="test">
    <levels>
      <level name="win:Informational" value="{value}" symbol="WINEVENT_LEVEL_INFO"
             message="$(string.level.Informational)"/>
    </levels>
    <opcodes>
      <opcode name="win:Start" value="1" symbol="WINEVENT_OPCODE_START"
              message="$(string.opcode.Start)"/>
    </opcodes>
  </metadata>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="level.Informational" value="Info (custom winmeta)"/>
        <string id="opcode.Start" value="Start (custom winmeta)"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
"""


def test_w_capital_takes_the_texts_of_a_winmeta_xml(tmp_path: Path) -> None:
    winmeta = tmp_path / "winmeta.xml"
    winmeta.write_text(WINMETA.format(value=4))
    assert _run("-W", winmeta, "-h", tmp_path, "-r", tmp_path, HELLO) == 0
    texts = set(read_message_table((tmp_path / "MSG00001.bin").read_bytes()).values())
    assert {"Info (custom winmeta)", "Start (custom winmeta)"} <= texts
    assert _run("-h", tmp_path, "-r", tmp_path, HELLO) == 0
    plain = set(read_message_table((tmp_path / "MSG00001.bin").read_bytes()).values())
    assert "Information" in plain and "Info (custom winmeta)" not in plain


def test_w_capital_refuses_other_values(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    winmeta = tmp_path / "winmeta.xml"
    winmeta.write_text(WINMETA.format(value=7))
    assert _run("-W", winmeta, "-h", tmp_path, "-r", tmp_path, HELLO) == 1
    out = capsys.readouterr().out
    assert f"{winmeta}:6:7:" in out and "error ETW024:" in out and "Windows gives it 0x4" in out
    not_winmeta = tmp_path / "plain.xml"
    shutil.copy(HELLO, not_winmeta)
    assert _run("-W", not_winmeta, "-h", tmp_path, "-r", tmp_path, HELLO) == 1
    assert "no <metadata> element" in capsys.readouterr().out


SCHEMA = """<?xml version="1.0" encoding="utf-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema"
           targetNamespace="http://schemas.microsoft.com/win/2004/08/events"
           elementFormDefault="qualified">
  <xs:element name="instrumentationManifest">
    <xs:complexType>
      <xs:sequence><xs:any processContents="skip" minOccurs="0" maxOccurs="unbounded"/>
      </xs:sequence>
      <xs:attribute name="required" use="required"/>
    </xs:complexType>
  </xs:element>
</xs:schema>
"""


def test_w_validates_against_the_schema_too(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    xsd = tmp_path / "eventman.xsd"
    xsd.write_text(SCHEMA)
    assert _run("-w", xsd, "-h", tmp_path, "-r", tmp_path, HELLO) == 1
    out = capsys.readouterr().out
    assert f"{HELLO}:6:1:" in out and "error ETW026:" in out and "'required'" in out
    xsd.write_text(SCHEMA.replace('use="required"', 'use="optional"'))
    assert _run("-w", xsd, "-h", tmp_path, "-r", tmp_path, HELLO) == 0
    xsd.write_text("<not a schema")
    assert _run("-w", xsd, "-h", tmp_path, "-r", tmp_path, HELLO) == 1
    assert "error ETW025:" in capsys.readouterr().out


def test_outputs_are_the_same_under_two_hash_seeds(tmp_path: Path) -> None:
    import os
    import subprocess
    import sys

    man = tmp_path / "events.man"
    shutil.copy(HELLO, man)
    mc = _mc(tmp_path)
    results = []
    for seed in ("1", "2"):
        out = tmp_path / f"out{seed}"
        env = {**os.environ, "PYTHONHASHSEED": seed}
        subprocess.run(
            [sys.executable, "-m", "etwmc", "mc", "-um", "-h", out, "-r", out, "-x", out, man, mc],
            env=env, check=True, capture_output=True, timeout=300,
        )  # fmt: skip
        results.append({p.name: p.read_bytes() for p in sorted(out.iterdir())})
    assert results[0] == results[1] and len(results[0]) == 7
