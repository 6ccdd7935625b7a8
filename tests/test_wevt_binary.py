"""``<binary>`` template items, compiled and decompiled as mc does.

mc turns ``<binary name="N"/>`` into two properties, ``__binLength`` (win:UInt32) and N
(win:Binary, length ``__binLength``), and the event XML into ``<Binary>%n</Binary>``:
Microsoft's services.wevt has 17 such templates (Service Control Manager).
"""

from __future__ import annotations

import struct
from pathlib import Path

import pytest

from etwmc.decompile import decompile
from etwmc.validate import check_bytes
from etwmc.wevt import build_wevt, output_diagnostics
from etwmc.wevt.reader import read_wevt, read_wevt_with_losses
from etwmc.wevt.reader_binxml import Element, Subst
from etwmc.wevt.reader_raw import RawBlob, RawTemplate, parse_blob

SAMPLES = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "samples"
needs_samples = pytest.mark.skipif(not SAMPLES.is_dir(), reason="../shared/golden is missing")


def _manifest(template_body: str) -> bytes:
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Binary" guid="{{2E7C5A19-0B3D-4F62-A8E4-1C9D7B05F301}}"
              symbol="BINARY" resourceFileName="b.dll" messageFileName="b.dll">
      <templates><template tid="T">{template_body}</template></templates>
      <events><event value="1" level="win:Error" template="T" symbol="Ev"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
""".encode()


SCM_TEMPLATE = """
  <data name="param1" inType="win:UnicodeString"/>
  <data name="param2" inType="win:UnicodeString"/>
  <binary name="BinaryData"/>
"""


def _compile(template_body: str) -> bytes:
    checked = check_bytes(_manifest(template_body), "binary.man")
    assert checked.ok and checked.manifest is not None, checked.diagnostics
    return build_wevt(checked.manifest)


def _binxml(blob: bytes, t: RawTemplate) -> bytes:
    end = struct.unpack_from("<I", blob, t.offset + 16)[0]
    return blob[t.offset + 40 : end]


def _services() -> tuple[bytes, RawBlob]:
    blob = (SAMPLES / "services.wevt").read_bytes()
    return blob, parse_blob(blob)


def test_binary_item_is_two_properties_and_one_binary_element() -> None:
    blob = _compile(SCM_TEMPLATE)
    (t,) = parse_blob(blob).providers[0].templates
    assert t.param_count == 4 and t.flags == 1
    props = [(p.name, p.flags, p.in_type, p.out_type, p.length) for p in t.properties]
    assert props == [
        ("param1", 0, 1, 1, 0),
        ("param2", 0, 1, 1, 0),
        ("__binLength", 0, 8, 8, 0),
        ("BinaryData", 0x4, 14, 15, 2),  # variable length: property 2
    ]
    assert t.root is not None
    assert [c.name for c in t.root.children if isinstance(c, Element)] == ["Data", "Data", "Binary"]
    binary = t.root.children[-1]
    assert isinstance(binary, Element) and binary.attrs == []
    assert binary.children == [Subst(3, 14)]


@needs_samples
def test_binary_template_is_byte_identical_to_services_wevt() -> None:
    """The same template as Service Control Manager's first one in Microsoft's blob: the
    same template id (the SHA-256 over the XML text and types) and the same BinXML."""
    blob = _compile(SCM_TEMPLATE)
    (mine,) = parse_blob(blob).providers[0].templates
    services, raw = _services()
    theirs = raw.providers[2].templates[0]
    assert [p.name for p in theirs.properties] == ["param1", "param2", "__binLength", "BinaryData"]
    assert mine.guid == theirs.guid
    assert _binxml(blob, mine) == _binxml(services, theirs)
    assert mine.properties == theirs.properties


@needs_samples
def test_services_wevt_round_trips_except_what_decompile_reports() -> None:
    """All 17 <Binary> templates come back; the only bytes that differ are the 43 opcode
    values with no OPCO entry, which decompile reports (ETW800)."""
    services, raw = _services()
    model, losses = read_wevt_with_losses(services)
    assert [d.code for d in losses] == ["ETW800"]
    text = decompile(model)
    assert text.count('<binary name="BinaryData"/>') == 17
    checked = check_bytes(text.encode(), "services.man")
    assert checked.ok and checked.manifest is not None
    again = build_wevt(checked.manifest)
    assert len(again) == len(services)
    differ = {i for i, (a, b) in enumerate(zip(again, services, strict=True)) if a != b}
    lost = {
        e.offset + 5  # the opcode byte of the event descriptor
        for p in raw.providers
        for e in p.events
        if e.descriptor.opcode and not e.opcode_offset
    }
    assert len(lost) == 43 and differ == lost


def test_decompiled_binary_compiles_back() -> None:
    blob = _compile(SCM_TEMPLATE)
    text = decompile(read_wevt(blob))
    assert '<binary name="BinaryData"/>' in text and "__binLength" not in text
    checked = check_bytes(text.encode(), "again.man")
    assert checked.ok and checked.manifest is not None
    assert build_wevt(checked.manifest) == blob


def test_a_binary_shape_mc_does_not_write_is_reported() -> None:
    """A <Binary> element whose length field is not mc's (here an outType changed) is not
    read as a <binary> item; the decompiled template then differs, and decompile says so."""
    blob = bytearray(_compile(SCM_TEMPLATE))
    (t,) = parse_blob(bytes(blob)).providers[0].templates
    props_at = struct.unpack_from("<I", blob, t.offset + 16)[0]
    blob[props_at + 2 * 20 + 5] = 20  # __binLength's outType: win:PID
    model, losses = read_wevt_with_losses(bytes(blob))
    assert model.providers[0].templates[0].binary is None
    assert [d.code for d in losses] == ["ETW801"]


def test_binary_field_is_written_and_decoded(tmp_path: Path) -> None:
    """The generated module writes __binLength from the bytes it is given, and the
    decoder reads both fields back."""
    from test_codegen_roundtrip import round_trip

    man = tmp_path / "binary.man"
    man.write_bytes(_manifest(SCM_TEMPLATE))
    assert round_trip(man, tmp_path) == 1


def test_binary_after_userdata_fields() -> None:
    """With UserData the event XML is the user's; the two properties are still added."""
    body = """
      <data name="A" inType="win:UInt32"/>
      <binary name="Raw"/>
      <UserData><Thing xmlns="urn:x"><A>%1</A></Thing></UserData>
    """
    blob = _compile(body)
    (t,) = parse_blob(blob).providers[0].templates
    assert t.flags == 2 and [p.name for p in t.properties] == ["A", "__binLength", "Raw"]
    text = decompile(read_wevt(blob))
    checked = check_bytes(text.encode(), "again.man")
    assert checked.ok and checked.manifest is not None
    assert build_wevt(checked.manifest) == blob


_EMOJI = "\U0001f600"  # outside the BMP: two UTF-16 code units


@pytest.mark.parametrize(
    ("body", "start"),
    [
        (f'<data name="{"d" * 70_000}" inType="win:UInt8"/>', "d" * 24),
        (
            '<data name="a" inType="win:UInt8"/><UserData>'
            f'<Ev xmlns="urn:etwmc:ud"><A v="{"v" * 65_536}">%1</A></Ev></UserData>',
            "v" * 24,
        ),
        (
            '<data name="a" inType="win:UInt8"/><UserData>'
            f'<Ev xmlns="urn:etwmc:{"u" * 66_000}"><A>%1</A></Ev></UserData>',
            "urn:etwmc:" + "u" * 14,
        ),
        # 40,000 characters outside the BMP: 80,000 UTF-16 code units.
        (f'<data name="{_EMOJI * 40_000}" inType="win:UInt8"/>', _EMOJI * 24),
    ],
)
def test_template_texts_too_long_for_binxml_are_reported(body: str, start: str) -> None:
    checked = check_bytes(_manifest(body), "binary.man")
    assert checked.manifest is not None
    found = [d for d in output_diagnostics(checked.manifest) if d.code == "ETW654"]
    assert len(found) == 1, found
    assert repr(start) in found[0].message


def test_template_texts_within_binxml_limits_are_not_reported() -> None:
    # 32,767 characters outside the BMP take 65,534 code units: the most that fits.
    body = f'<data name="{_EMOJI * 32_767}" inType="win:UInt8"/>'
    checked = check_bytes(_manifest(body), "binary.man")
    assert checked.manifest is not None
    assert not [d for d in output_diagnostics(checked.manifest) if d.code == "ETW654"]
