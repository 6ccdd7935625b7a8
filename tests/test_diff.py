"""`etwmc diff`: one test per breaking-change kind and per safe-change kind, against a
manifest baseline and against compiled TEMP.BIN baselines."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from etwmc.cli import main
from etwmc.diff import Side, diff_manifests, load

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GOLDEN = SHARED / "golden" / "event-trace-kit"

BASE = """<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation>
    <events>
      <provider name="Acme-Widget" guid="{3f1c2a77-9b1e-4d2a-8c55-e0b7a41d9c3e}"
                symbol="ACME_WIDGET" resourceFileName="widget.dll" messageFileName="widget.dll"
                message="$(string.provider)">
        <channels>
          <channel chid="op" name="Acme-Widget/Operational" type="Operational" enabled="true"/>
          <channel chid="dbg" name="Acme-Widget/Debug" type="Debug"/>
          <channel chid="ana" name="Acme-Widget/Analytic" type="Analytic"/>
        </channels>
        <levels>
          <level name="Chatty" value="16" message="$(string.level.chatty)"/>
          <level name="Spare" value="17"/>
        </levels>
        <tasks>
          <task name="Spin" value="1" message="$(string.task.spin)">
            <opcodes>
              <opcode name="Wobble" value="20" message="$(string.opcode.wobble)"/>
            </opcodes>
          </task>
          <task name="Stop" value="2"/>
        </tasks>
        <opcodes>
          <opcode name="Jolt" value="10"/>
          <opcode name="Idle" value="11"/>
        </opcodes>
        <keywords>
          <keyword name="Io" mask="0x1"/>
          <keyword name="Net" mask="0x2"/>
          <keyword name="Spare" mask="0x4"/>
        </keywords>
        <maps>
          <valueMap name="Color">
            <map value="0" message="$(string.color.red)"/>
            <map value="1" message="$(string.color.green)"/>
          </valueMap>
          <valueMap name="Unused">
            <map value="7" message="$(string.color.red)"/>
          </valueMap>
          <bitMap name="Flags">
            <map value="0x1" message="$(string.flag.a)"/>
            <map value="0x2" message="$(string.flag.b)"/>
          </bitMap>
        </maps>
        <templates>
          <template tid="T_Spin">
            <data name="Speed" inType="win:UInt32"/>
            <data name="Color" inType="win:UInt32" map="Color"/>
            <data name="Name" inType="win:UnicodeString"/>
          </template>
          <template tid="T_Stop">
            <data name="Count" inType="win:UInt16"/>
            <data name="Items" inType="win:UInt32" count="Count" outType="win:HexInt32"/>
            <data name="Mask" inType="win:UInt32" map="Flags"/>
          </template>
        </templates>
        <events>
          <event value="1" version="0" symbol="SpinStart" level="win:Informational" task="Spin"
                 opcode="win:Start" keywords="Io" channel="op" template="T_Spin"
                 message="$(string.event.1)"/>
          <event value="2" version="0" symbol="SpinWobble" level="Chatty" task="Spin"
                 opcode="Wobble" keywords="Io Net" channel="dbg" template="T_Stop"/>
          <event value="3" version="0" symbol="Jolted" level="win:Warning" opcode="Jolt"
                 channel="op"/>
        </events>
      </provider>
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
      <stringTable>
        <string id="provider" value="Acme Widget"/>
        <string id="level.chatty" value="Chatty"/>
        <string id="task.spin" value="Spin"/>
        <string id="opcode.wobble" value="Wobble"/>
        <string id="color.red" value="Red"/>
        <string id="color.green" value="Green"/>
        <string id="flag.a" value="A"/>
        <string id="flag.b" value="B"/>
        <string id="event.1" value="Spinning at %1"/>
      </stringTable>
    </resources>
  </localization>
</instrumentationManifest>
"""

NEW_EVENT = '<event value="3" version="0"'

# (case id, [(old text, new text), ...], codes expected; only these may appear)
CASES: list[tuple[str, list[tuple[str, str]], set[str]]] = [
    # ---- breaking changes: errors
    (
        "provider-removed",
        [('name="Acme-Widget" guid="{3f1c2a77', 'name="Acme-Gadget" guid="{4f1c2a77')],
        {"ETW700", "ETW750"},
    ),
    ("provider-guid", [("{3f1c2a77-", "{4f1c2a77-")], {"ETW701"}),
    ("provider-name", [('name="Acme-Widget" guid', 'name="Acme-Gadget" guid')], {"ETW702"}),
    (
        "event-removed",
        [
            (
                '<event value="3" version="0" symbol="Jolted" level="win:Warning" opcode="Jolt"\n'
                '                 channel="op"/>',
                "",
            )
        ],
        {"ETW710"},
    ),
    (
        "layout-intype",
        [('name="Speed" inType="win:UInt32"', 'name="Speed" inType="win:UInt64"')],
        {"ETW711"},
    ),
    ("layout-name", [('name="Speed"', 'name="Velocity"')], {"ETW711"}),
    (
        "layout-field-added",
        [
            (
                '<data name="Name" inType="win:UnicodeString"/>',
                '<data name="Name" inType="win:UnicodeString"/>'
                '<data name="More" inType="win:UInt8"/>',
            )
        ],
        {"ETW711"},
    ),
    ("layout-count", [('count="Count"', 'count="4"')], {"ETW711"}),
    ("event-level", [('level="win:Informational"', 'level="win:Error"')], {"ETW712"}),
    ("event-opcode", [('opcode="Jolt"', 'opcode="Idle"')], {"ETW713"}),
    ("event-task", [('opcode="Jolt"', 'opcode="Jolt" task="Stop"')], {"ETW714"}),
    ("event-keywords", [('keywords="Io" channel', 'keywords="Net" channel')], {"ETW715"}),
    ("event-keywords-lost", [('keywords="Io Net" channel', 'keywords="Net" channel')], {"ETW715"}),
    (
        "event-channel",
        [
            (
                'opcode="Jolt"\n                 channel="op"',
                'opcode="Jolt"\n                 channel="dbg"',
            )
        ],
        {"ETW716"},
    ),
    ("keyword-removed", [('<keyword name="Spare" mask="0x4"/>', "")], {"ETW720"}),
    ("keyword-mask", [('name="Spare" mask="0x4"', 'name="Spare" mask="0x8"')], {"ETW721"}),
    (
        "channel-removed",
        [('<channel chid="ana" name="Acme-Widget/Analytic" type="Analytic"/>', "")],
        {"ETW722"},
    ),
    ("channel-value", [('type="Analytic"/>', 'type="Analytic" value="40"/>')], {"ETW723"}),
    ("level-removed", [('<level name="Spare" value="17"/>', "")], {"ETW724"}),
    ("level-value", [('name="Spare" value="17"', 'name="Spare" value="18"')], {"ETW725"}),
    ("task-removed", [('<task name="Stop" value="2"/>', "")], {"ETW726"}),
    ("task-value", [('name="Stop" value="2"', 'name="Stop" value="3"')], {"ETW727"}),
    ("opcode-removed", [('<opcode name="Idle" value="11"/>', "")], {"ETW728"}),
    ("opcode-value", [('name="Idle" value="11"', 'name="Idle" value="12"')], {"ETW729"}),
    (
        "map-removed",
        [
            (
                '<valueMap name="Unused">\n'
                '            <map value="7" message="$(string.color.red)"/>\n'
                "          </valueMap>",
                "",
            )
        ],
        {"ETW730"},
    ),
    (
        "map-kind",
        [
            (
                '<valueMap name="Unused">\n'
                '            <map value="7" message="$(string.color.red)"/>\n'
                "          </valueMap>",
                '<bitMap name="Unused">\n'
                '            <map value="0x8" message="$(string.color.red)"/>\n'
                "          </bitMap>",
            )
        ],
        {"ETW731"},
    ),
    ("map-value-removed", [('<map value="1" message="$(string.color.green)"/>', "")], {"ETW732"}),
    # ---- presentation changes: warnings
    ("outtype", [('outType="win:HexInt32"', 'outType="xs:unsignedInt"')], {"ETW740"}),
    (
        "field-map",
        [('name="Color" inType="win:UInt32" map="Color"', 'name="Color" inType="win:UInt32"')],
        {"ETW740"},
    ),
    ("keyword-renamed", [('name="Spare" mask="0x4"', 'name="Extra" mask="0x4"')], {"ETW741"}),
    # ---- safe changes: notes
    (
        "provider-added",
        [
            (
                "      </provider>\n",
                '      </provider>\n      <provider name="Acme-Other" '
                'guid="{0b9d1a3e-55c2-4f6e-9a71-2c8e4d6f1b07}" symbol="ACME_OTHER" '
                'resourceFileName="w.dll" messageFileName="w.dll"/>\n',
            )
        ],
        {"ETW750"},
    ),
    (
        "event-added",
        [
            (
                "        </events>\n      </provider>",
                '          <event value="4" symbol="Fresh" level="win:Verbose"/>\n'
                "        </events>\n      </provider>",
            )
        ],
        {"ETW751"},
    ),
    (
        "event-version",
        [
            (
                "        </events>\n      </provider>",
                '          <event value="1" version="1" symbol="SpinStartV1"'
                ' level="win:Informational"/>\n'
                "        </events>\n      </provider>",
            )
        ],
        {"ETW752"},
    ),
    (
        "item-added",
        [
            (
                '<keyword name="Spare" mask="0x4"/>',
                '<keyword name="Spare" mask="0x4"/><keyword name="Gpu" mask="0x10"/>',
            )
        ],
        {"ETW753"},
    ),
    # More keywords only pass a session's any/all keyword test more often.
    ("event-keywords-gained", [('keywords="Io" channel', 'keywords="Io Net" channel')], {"ETW757"}),
    # An event of a channel carries the channel's keyword bit: sessions took it for that.
    (
        "event-keywords-beside-a-channel",
        [
            (
                'opcode="Jolt"\n                 channel="op"',
                'opcode="Jolt" keywords="Io" channel="op"',
            )
        ],
        {"ETW757"},
    ),
    (
        "map-value-added",
        [
            (
                '<map value="1" message="$(string.color.green)"/>',
                '<map value="1" message="$(string.color.green)"/>'
                '<map value="2" message="$(string.color.blue)"/>',
            ),
            (
                '<string id="color.green" value="Green"/>',
                '<string id="color.green" value="Green"/><string id="color.blue" value="Blue"/>',
            ),
        ],
        {"ETW754", "ETW755"},
    ),
    (
        "string-added",
        [
            (
                '<string id="flag.b" value="B"/>',
                '<string id="flag.b" value="B"/><string id="spare" value="Spare text"/>',
            )
        ],
        {"ETW755"},
    ),
    ("string-changed", [('value="Spinning at %1"', 'value="Spinning at %1 rpm"')], {"ETW756"}),
]

# What a TEMP.BIN baseline cannot show: it holds no strings.
NOT_IN_BLOB = {"ETW755", "ETW756"}


def _mutate(edits: list[tuple[str, str]]) -> str:
    text = BASE
    for old, new in edits:
        assert text.count(old) == 1, f"edit target not unique or missing: {old!r}"
        text = text.replace(old, new)
    return text


def _write(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _codes(old: Path, new: Path) -> set[str]:
    o, _ = load(old)
    n, _ = load(new)
    assert o is not None and n is not None
    return {d.code for d in diff_manifests(o, n)}


def test_base_is_valid_and_equal_to_itself(tmp_path: Path) -> None:
    base = _write(tmp_path, "base.man", BASE)
    side, problems = load(base)
    assert side is not None and problems == []
    assert _codes(base, base) == set()


@pytest.mark.parametrize(("case", "edits", "expected"), CASES, ids=[c[0] for c in CASES])
def test_manifest_baseline(
    tmp_path: Path, case: str, edits: list[tuple[str, str]], expected: set[str]
) -> None:
    old = _write(tmp_path, "old.man", BASE)
    new = _write(tmp_path, "new.man", _mutate(edits))
    assert _codes(old, new) == expected


def _build_blob(manifest_path: Path) -> bytes:
    wevt = pytest.importorskip("etwmc.wevt")
    build = getattr(wevt, "build_wevt", None)
    if build is None:
        pytest.skip("etwmc.wevt.build_wevt is not available")
    from etwmc.validate import check_file

    checked = check_file(manifest_path)
    assert checked.ok and checked.manifest is not None
    blob: bytes = build(checked.manifest, version=5)
    return blob


@pytest.mark.parametrize(("case", "edits", "expected"), CASES, ids=[c[0] for c in CASES])
def test_blob_baseline(
    tmp_path: Path, case: str, edits: list[tuple[str, str]], expected: set[str]
) -> None:
    old_man = _write(tmp_path, "old.man", BASE)
    old = tmp_path / "oldTEMP.BIN"
    old.write_bytes(_build_blob(old_man))
    new = _write(tmp_path, "new.man", _mutate(edits))
    assert _codes(old, new) == expected - NOT_IN_BLOB


# ---- golden mc blobs as baselines (no etwmc writer involved)


def _golden(name: str) -> Path:
    p = GOLDEN / name
    if not p.exists():
        pytest.skip("../shared/golden is absent")
    return p


GOLDEN_STEMS = [
    "Empty", "TaskOpcodes", "ImportChannels", "EventAttributes", "Large", "ProviderTraits",
    "ReferenceChannels", "TypeMangling", "wpf-etw", "ImportChannelFromProvider",
]  # fmt: skip


@pytest.mark.parametrize("stem", GOLDEN_STEMS)
def test_manifest_matches_its_mc_blob(stem: str) -> None:
    man, blob = _golden(f"{stem}.man"), _golden(f"{stem}.wevt.v5.bin")
    both_ways = diff_manifests(*_sides(blob, man)) + diff_manifests(*_sides(man, blob))
    assert [str(d) for d in both_ways] == []


def _sides(a: Path, b: Path) -> tuple[Side, Side]:
    x, _ = load(a)
    y, _ = load(b)
    assert x is not None and y is not None
    return x, y


def test_v3_blob_baseline_has_no_provider_name() -> None:
    man, blob = _golden("TaskOpcodes.man"), _golden("TaskOpcodes.wevt.v3.bin")
    assert diff_manifests(*_sides(blob, man)) == []


GOLDEN_EDITS: list[tuple[str, str, str, set[str]]] = [
    ("TaskOpcodes.man", 'level="win:Error" task="Task1" opcode="Opcode2"',
     'level="win:Warning" task="Task1" opcode="Opcode2"', {"ETW712"}),
    ("TaskOpcodes.man", 'name="Opcode3" value="13"', 'name="Opcode3" value="14"',
     {"ETW729", "ETW713"}),
    ("TaskOpcodes.man", '<event value="2" channel="Channel" level="win:Error" task="Task1" '
     'opcode="Opcode3"/>', "", {"ETW710"}),
    ("Large.man", '<keyword name="KeywordName0000000000000001" mask="0x0000000000000001" '
     'message="$(string.keyword.1.0000000000000001)"/>', "", {"ETW720"}),
    ("Large.man", '<level name="LevelName3" value="103" symbol',
     '<level name="LevelName3" value="109" symbol', {"ETW725", "ETW712"}),
]  # fmt: skip


@pytest.mark.parametrize(("name", "old", "new", "expected"), GOLDEN_EDITS)
def test_mc_blob_baseline_catches_edits(
    tmp_path: Path, name: str, old: str, new: str, expected: set[str]
) -> None:
    man = _golden(name)
    blob = _golden(name.replace(".man", ".wevt.v5.bin"))
    text = man.read_text(encoding="utf-8")
    assert text.count(old) == 1
    edited = _write(tmp_path, name, text.replace(old, new))
    assert _codes(blob, edited) == expected


# ---- the command


def test_cli_exit_codes_and_text(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _write(tmp_path, "old.man", BASE)
    same = _write(tmp_path, "same.man", BASE)
    assert main(["diff", str(old), str(same)]) == 0
    capsys.readouterr()
    noted = _write(tmp_path, "noted.man", _mutate(CASES[-1][1]))
    assert main(["diff", str(old), str(noted)]) == 0
    assert "note ETW756" in capsys.readouterr().out
    broken = _write(
        tmp_path, "broken.man", _mutate([('level="win:Informational"', 'level="win:Error"')])
    )
    assert main(["diff", str(old), str(broken)]) == 1
    captured = capsys.readouterr()
    assert "error ETW712" in captured.out and "broken.man:" in captured.out
    assert "1 error" in captured.err


def test_cli_werror_promotes_warnings(tmp_path: Path) -> None:
    old = _write(tmp_path, "old.man", BASE)
    new = _write(tmp_path, "new.man", _mutate([('outType="win:HexInt32"', "")]))
    assert main(["diff", "-q", str(old), str(new)]) == 0
    assert main(["diff", "-q", "--werror", str(old), str(new)]) == 1


def test_cli_json_and_sarif(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old = _write(tmp_path, "old.man", BASE)
    new = _write(tmp_path, "new.man", _mutate([("{3f1c2a77-", "{4f1c2a77-")]))
    assert main(["diff", "--format", "json", str(old), str(new)]) == 1
    items = json.loads(capsys.readouterr().out)
    assert [(i["code"], i["severity"]) for i in items] == [("ETW701", "error")]
    out = tmp_path / "r.sarif"
    assert main(["diff", "--format", "sarif", "-o", str(out), str(old), str(new)]) == 1
    sarif = json.loads(out.read_text())
    assert sarif["runs"][0]["results"][0]["ruleId"] == "ETW701"


def test_cli_bad_inputs_are_diagnostics(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    good = _write(tmp_path, "good.man", BASE)
    bad_blob = tmp_path / "badTEMP.BIN"
    bad_blob.write_bytes(b"CRIM" + b"\xff" * 10)
    assert main(["diff", str(bad_blob), str(good)]) == 1
    assert "ETW739" in capsys.readouterr().out
    broken = _write(tmp_path, "broken.man", BASE.replace("</instrumentationManifest>", ""))
    assert main(["diff", str(good), str(broken)]) == 1
    assert "error ETW0" in capsys.readouterr().out
    # A missing input is a usage error (exit 2), as in every command.
    assert main(["diff", str(tmp_path / "missing.man"), str(good)]) == 2
    out = capsys.readouterr()
    assert "cannot read" in out.err and "missing.man" in out.err
    assert "Traceback" not in out.out + out.err


STRUCT_BASE = BASE.replace(
    '<data name="Mask" inType="win:UInt32" map="Flags"/>',
    '<data name="Mask" inType="win:UInt32" map="Flags"/>'
    '<struct name="Pair"><data name="A" inType="win:UInt8"/>'
    '<data name="B" inType="win:UInt16"/></struct>',
)


def test_layout_message_names_the_struct_member(tmp_path: Path) -> None:
    old = _write(tmp_path, "old.man", STRUCT_BASE)
    new = _write(
        tmp_path,
        "new.man",
        STRUCT_BASE.replace('name="B" inType="win:UInt16"', 'name="B" inType="win:UInt32"'),
    )
    o, _ = load(old)
    n, _ = load(new)
    assert o is not None and n is not None
    diags = diff_manifests(o, n)
    assert [d.code for d in diags] == ["ETW711"]
    assert "struct 'Pair' member 2 was 'B' win:UInt16, is now 'B' win:UInt32" in diags[0].message


def test_resource_dll_baseline(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from etwmc.pe import resource_dll
    from etwmc.validate import check_file

    old_man = _write(tmp_path, "old.man", BASE)
    checked = check_file(old_man)
    assert checked.manifest is not None
    dll = tmp_path / "widget.dll"
    dll.write_bytes(resource_dll(checked.manifest))
    same = _write(tmp_path, "same.man", BASE)
    assert _codes(dll, same) == set()
    new = _write(tmp_path, "new.man", _mutate([('level="win:Informational"', 'level="win:Error"')]))
    assert _codes(dll, new) == {"ETW712"}
    not_events = tmp_path / "other.dll"
    from etwmc.pe import build_resource_dll

    not_events.write_bytes(build_resource_dll({(16, 1, 0x409): b"version"}))
    assert main(["diff", str(not_events), str(same)]) == 1
    assert "no WEVT_TEMPLATE resource" in capsys.readouterr().out


# ---- keywords: what a session's any/all keyword test lets through


DIFF_FIXTURES = Path(__file__).resolve().parent / "manifests" / "diff"


def test_msquic_keyword_history(capsys: pytest.CaptureFixture[str]) -> None:
    """msquic's Microsoft-Quic event whose keywords went from 0x2120 to 0x80002120
    (ut:LowVolume added): not breaking; the way back is."""
    old = DIFF_FIXTURES / "msquic-keywords-0x2120.man"
    new = DIFF_FIXTURES / "msquic-keywords-0x80002120.man"
    assert main(["diff", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "note ETW757" in out and "gained keywords 0x80000000 (from 0x2120 to 0x80002120)" in out
    assert "ETW715" not in out
    assert main(["diff", str(new), str(old)]) == 1
    out = capsys.readouterr().out
    assert "error ETW715" in out and "losing 0x80000000" in out


def test_keywords_given_to_an_event_that_had_none(tmp_path: Path) -> None:
    """An event without keywords (and without a channel's bit) reaches every session;
    with keywords, only those that enable one of them."""
    unchanneled = ('opcode="Jolt"\n                 channel="op"', 'opcode="Jolt"')
    old = _write(tmp_path, "old.man", _mutate([unchanneled]))
    new = _write(
        tmp_path,
        "new.man",
        _mutate([unchanneled, ('opcode="Jolt"/>', 'opcode="Jolt" keywords="Io"/>')]),
    )
    assert _codes(old, new) == {"ETW715"}
    assert _codes(new, old) == {"ETW715"}  # and back: a bit removed


def test_a_channel_change_is_not_also_a_keyword_change(tmp_path: Path) -> None:
    old = _write(tmp_path, "old.man", BASE)
    edit = ('keywords="Io" channel="op"', 'keywords="Io" channel="dbg"')
    new = _write(tmp_path, "new.man", _mutate([edit]))
    assert _codes(old, new) == {"ETW716"}
