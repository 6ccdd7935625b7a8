"""Line breaks in message texts: stored as mc 10 stores them, read back, decompiled and
decoded without loss.

Evidence for the rule (etwmc.msgformat): mc's MSG00001.bin for nuclune/WEC's manifest
holds CR LF where the string has ``&#xA;`` (etwmc wrote a bare LF there, at byte 104);
Windows 10 message tables show mid-text CR LF, Windows 7's a bare LF (libyal/winevt-kb);
``%n`` stays as written (PowerShell.Core.Instrumentation.man next to pwrshmsg.dll's
table).  An existing CR LF and a lone CR are kept: no mc output settles them.
"""

from __future__ import annotations

import struct
import uuid

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.decode import Decoder
from etwmc.decompile import decompile
from etwmc.msgformat import exact_source, source_text, table_text
from etwmc.validate import check_bytes
from etwmc.wevt import build_message_tables, build_wevt
from etwmc.wevt.msgtable import encode_messages, read_message_table
from etwmc.wevt.reader import read_wevt, read_wevt_with_losses

GUID = uuid.UUID("6b1d2f0e-4a93-4c55-8e07-2d9f3a1c5b01")


def _manifest(value: str) -> bytes:
    return f"""<?xml version="1.0" encoding="utf-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Etwmc-Breaks" guid="{{{GUID}}}" symbol="BREAKS"
              resourceFileName="b.dll" messageFileName="b.dll">
      <templates>
        <template tid="T">
          <data name="Name" inType="win:UnicodeString"/>
          <data name="Count" inType="win:UInt32"/>
        </template>
      </templates>
      <events><event value="100" level="win:Informational" template="T"
                     message="$(string.msg)"/></events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="msg" value="{value}"/>
  </stringTable></resources></localization>
</instrumentationManifest>
""".encode()


def _compiled(value: str) -> tuple[bytes, bytes]:
    checked = check_bytes(_manifest(value), "breaks.man")
    assert checked.ok and checked.manifest is not None
    ((_, table),) = build_message_tables(checked.manifest)
    return build_wevt(checked.manifest), table


def _entry(table: bytes, mid: int) -> bytes:
    """The raw text bytes of one entry (after its 4-byte header)."""
    (nblocks,) = struct.unpack_from("<I", table)
    for b in range(nblocks):
        lo, hi, off = struct.unpack_from("<III", table, 4 + 12 * b)
        for m in range(lo, hi + 1):
            length = struct.unpack_from("<H", table, off)[0]
            if m == mid:
                return table[off + 4 : off + length]
            off += length
    raise KeyError(mid)


EVENT_MSG = 0xB0000064


@pytest.mark.parametrize(
    ("value", "stored"),
    [
        # the shape of nuclune/WEC's string: a line feed becomes CR LF
        ("Name=%1;%n&#xA;  Count=%2;%n", "Name=%1;%n\r\n  Count=%2;%n"),
        ("a&#xA;&#xA;b&#xA;", "a\r\n\r\nb\r\n"),
        # CR LF as written stays one line break; a lone CR stays
        ("a&#xD;&#xA;b", "a\r\nb"),
        ("a&#xD;b&#xD;&#xD;&#xA;c", "a\rb\r\r\nc"),
        # FormatMessage escapes are stored as written
        ("%n%r%t%b%%", "%n%r%t%b%%"),
    ],
)
def test_line_breaks_are_stored_as_mc_stores_them(value: str, stored: str) -> None:
    _, table = _compiled(value)
    data = (stored + "\r\n\0").encode("utf-16-le")
    assert _entry(table, EVENT_MSG) == data + b"\0" * (-len(data) % 4)
    assert read_message_table(table)[EVENT_MSG] == stored


def test_template_blob_does_not_change_with_line_breaks() -> None:
    """Message texts live only in the message table: the WEVT_TEMPLATE is the same."""
    assert _compiled("a&#xA;b")[0] == _compiled("a b")[0]


@pytest.mark.parametrize("value", ["a&#xA;b", "x&#xA;", "a&#xD;&#xA;&#xA;b", "a&#xD;b"])
def test_decompile_round_trip_with_line_breaks(value: str) -> None:
    """Manifest with line breaks -> blob + table -> decompiled manifest -> the same bytes."""
    blob, table = _compiled(value)
    model, losses = read_wevt_with_losses(blob, messages=[read_message_table(table)])
    assert losses == []
    text = decompile(model)
    checked = check_bytes(text.encode(), "again.man")
    assert checked.ok and checked.manifest is not None
    ((_, again),) = build_message_tables(checked.manifest)
    assert again == table and build_wevt(checked.manifest) == blob


def test_decompiled_text_has_line_feeds_not_crlf() -> None:
    blob, table = _compiled("a&#xA;b")
    text = decompile(read_wevt(blob, messages=[read_message_table(table)]))
    assert 'value="a&#10;b"' in text and "&#13;" not in text


def test_bare_line_feed_in_a_table_is_a_reported_loss() -> None:
    """Older mc stored a bare LF; compiling writes CR LF, and decompile says so."""
    blob, table = _compiled("a&#xA;b")
    old = {**read_message_table(table), EVENT_MSG: "a\nb"}
    model, losses = read_wevt_with_losses(blob, messages=[old])
    assert [d.code for d in losses] == ["ETW803"]
    assert "0xB0000064" in losses[0].message
    assert model.resources[0].strings["event.100.0"].value == "a\nb"
    assert encode_messages(old) != table


def test_decoder_formats_line_breaks_as_windows_does() -> None:
    """FormatMessage reads the CR LF mc stored; the decoder gives the same text from the
    manifest as from the compiled blob and table."""
    checked = check_bytes(_manifest("Name=%1&#xA;Count=%2%nend"), "breaks.man")
    assert checked.manifest is not None
    blob, table = _compiled("Name=%1&#xA;Count=%2%nend")
    payload = "w".encode("utf-16-le") + b"\0\0" + struct.pack("<I", 7)
    from_man = Decoder(checked.manifest).decode(GUID, 100, 0, payload)
    from_blob = Decoder(read_wevt(blob, messages=[read_message_table(table)])).decode(
        GUID, 100, 0, payload
    )
    assert from_man.message == from_blob.message == "Name=w\r\nCount=7\r\nend"


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="a\r\n%", max_size=12))
def test_source_text_inverts_table_text(text: str) -> None:
    stored = table_text(text)
    assert exact_source(stored)
    assert table_text(source_text(stored)) == stored
