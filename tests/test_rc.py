"""The .rc mc writes, and culture names -> LANGIDs."""

from __future__ import annotations

import pytest

from conftest import GOLDEN
from etwmc.model import Manifest
from etwmc.validate import check_bytes
from etwmc.wevt import UnknownCulture, binary_outputs, build_rc, output_diagnostics
from etwmc.wevt.cultures import langid, primary_sub


def _manifest(*cultures: str) -> Manifest:
    res = "".join(
        f'<resources culture="{c}"><stringTable><string id="s" value="{c}"/>'
        "</stringTable></resources>"
        for c in cultures
    )
    xml = (
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">'
        "<instrumentation><events>"
        '<provider name="P" guid="{00000000-0000-0000-0000-000000000001}" symbol="P" '
        'resourceFileName="p.dll" messageFileName="p.dll" message="$(string.s)"/>'
        f"</events></instrumentation><localization>{res}</localization></instrumentationManifest>"
    )
    checked = check_bytes(xml.encode(), "m.man")
    assert checked.manifest is not None
    return checked.manifest


def test_rc_with_base_prefix() -> None:
    rc = build_rc(_manifest("en-US"), "x")
    assert rc == b'LANGUAGE 0x9,0x1\n1 11 "x_MSG00001.bin"\n1 WEVT_TEMPLATE "xTEMP.BIN"\n'


def test_rc_without_prefix_as_mc_without_z() -> None:
    rc = build_rc(_manifest("en-US"), "wpf-etw", prefixed=False)
    assert rc == b'LANGUAGE 0x9,0x1\n1 11 "MSG00001.bin"\n1 WEVT_TEMPLATE "wpf-etwTEMP.BIN"\n'


def test_one_language_line_per_culture_in_manifest_order() -> None:
    rc = build_rc(_manifest("de-DE", "en-US", "zh-CN"), "b").decode()
    assert rc.splitlines() == [
        "LANGUAGE 0x7,0x1",
        '1 11 "b_MSG00001.bin"',
        "LANGUAGE 0x9,0x1",
        '1 11 "b_MSG00002.bin"',
        "LANGUAGE 0x4,0x2",
        '1 11 "b_MSG00003.bin"',
        '1 WEVT_TEMPLATE "bTEMP.BIN"',
    ]


def test_language_ids_are_lower_case_hex_as_mc_writes_them() -> None:
    rc = build_rc(_manifest("es-ES", "ja-JP", "sr-Latn-RS"), "b").decode()
    assert [line for line in rc.splitlines() if line.startswith("LANGUAGE")] == [
        "LANGUAGE 0xa,0x3",
        "LANGUAGE 0x11,0x1",
        "LANGUAGE 0x1a,0x9",
    ]


def test_language_statements_are_mc_s_byte_for_byte() -> None:
    """mc.exe's .rc for Italian, French and English message tables (the only real .rc
    whose language ids have a hex letter: 0xc): the same LANGUAGE lines, byte for byte,
    for a manifest with those cultures in that order."""
    golden = GOLDEN / "mc" / "wellbay__nssm" / "messages.rc"
    if not golden.is_file():
        pytest.skip("../shared/golden/mc is absent")
    theirs = [line for line in golden.read_bytes().splitlines() if line.startswith(b"LANGUAGE")]
    ours = build_rc(_manifest("it-IT", "fr-FR", "en-US"), "x").splitlines()
    assert theirs == [b"LANGUAGE 0x10,0x1", b"LANGUAGE 0xc,0x1", b"LANGUAGE 0x9,0x1"]
    assert [line for line in ours if line.startswith(b"LANGUAGE")] == theirs


def test_binary_outputs_names_match_the_rc() -> None:
    out = binary_outputs(_manifest("en-US", "fr-FR"), "base")
    assert sorted(out) == ["base.rc", "baseTEMP.BIN", "base_MSG00001.bin", "base_MSG00002.bin"]
    rc = out["base.rc"].decode()
    for name in out:
        if name != "base.rc":
            assert f'"{name}"' in rc


def test_no_localization_gives_only_the_template_line() -> None:
    xml = (
        '<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">'
        "<instrumentation><events>"
        '<provider name="P" guid="{00000000-0000-0000-0000-000000000001}" symbol="P" '
        'resourceFileName="p.dll" messageFileName="p.dll"/>'
        "</events></instrumentation></instrumentationManifest>"
    )
    m = check_bytes(xml.encode(), "m.man").manifest
    assert m is not None
    assert build_rc(m, "x") == b'1 WEVT_TEMPLATE "xTEMP.BIN"\n'


@pytest.mark.parametrize(
    ("culture", "expected"),
    [
        ("en-US", (0x09, 0x01)),
        ("EN-us", (0x09, 0x01)),
        ("en_GB", (0x09, 0x02)),
        ("de-DE", (0x07, 0x01)),
        ("de-AT", (0x07, 0x03)),
        ("ja-JP", (0x11, 0x01)),
        ("zh-TW", (0x04, 0x01)),
        ("pt-BR", (0x16, 0x01)),
        ("pt-PT", (0x16, 0x02)),
        ("sr-Latn-RS", (0x1A, 0x09)),
        ("en", (0x09, 0x00)),
        ("fr", (0x0C, 0x00)),
    ],
)
def test_langids(culture: str, expected: tuple[int, int]) -> None:
    assert primary_sub(culture) == expected


def test_unknown_culture_is_a_diagnostic_and_a_clear_error() -> None:
    m = _manifest("xx-YY")
    diags = output_diagnostics(m)
    assert [d.code for d in diags] == ["ETW652"]
    assert "xx-YY" in diags[0].message and diags[0].span.line > 0
    with pytest.raises(UnknownCulture, match="xx-YY"):
        build_rc(m, "x")
    with pytest.raises(UnknownCulture):
        langid("klingon")
