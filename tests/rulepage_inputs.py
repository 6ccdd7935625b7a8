"""The inputs of rule-page examples that cannot be shown as text: damaged blobs, tables,
event files and traces, a file too large to show, a pipe.  Each maker writes, into the
folder a page's commands run in, the input the page describes (``damaged``) or the one
its fix names (not ``damaged``); files the page shows are already there."""

from __future__ import annotations

import os
import re
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from etwmc.cli import main
from etwmc.runtime.eventfile import MAGIC, EventFileWriter

Maker = Callable[[Path, bool], None]

HELLO = """<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme-Demo" guid="{bf688b01-5137-4e58-b45a-3eac04969709}" symbol="ACME_DEMO"
        resourceFileName="demo.dll" messageFileName="demo.dll">
      <events><event value="1" level="win:Informational" message="$(string.Hello)"/></events>
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="Hello" value="Hello."/>
  </stringTable></resources></localization>
</instrumentationManifest>
"""


def _compiled(folder: Path) -> None:
    (folder / "example.man").write_text(HELLO, encoding="utf-8")
    assert main(["compile", "--no-python", "-o", str(folder), str(folder / "example.man")]) == 0


def pipe(folder: Path, damaged: bool) -> None:
    if damaged:
        os.mkfifo(folder / "pipe.man")


def empty(folder: Path, damaged: bool) -> None:
    if damaged:
        (folder / "example.man").write_bytes(b"")


def huge(folder: Path, damaged: bool) -> None:
    if damaged:
        with open(folder / "huge.man", "wb") as f:
            f.truncate(64 * 1024 * 1024 + 1)  # sparse: no 64 MiB written


def cut_blob(folder: Path, damaged: bool) -> None:
    if damaged:
        _compiled(folder)
        (folder / "damaged.bin").write_bytes((folder / "exampleTEMP.BIN").read_bytes()[:8])


def cut_table(folder: Path, damaged: bool) -> None:
    if damaged:
        _compiled(folder)
        table = (folder / "example_MSG00001.bin").read_bytes()
        (folder / "damaged.bin").write_bytes(table[:6])


def cut_event_file(folder: Path, damaged: bool) -> None:
    if damaged:
        (folder / "events.bin").write_bytes(MAGIC + b"\x01")
    else:
        with EventFileWriter(folder / "events.bin"):
            pass


_RUN = re.compile(r"<!-- ([A-Za-z_]+)(\d+) to \1(\d+) -->")
_SIZED = re.compile(r"\((\d{1,3}(?:,\d{3})*) characters\)")


def expand_listing(folder: Path, damaged: bool) -> None:
    """Pages shorten long inputs: a comment ``<!-- F3 to F99 -->`` stands for the lines
    like the one before it with F3 ... F99 in place of F2 (each with a GUID of its own),
    and ``(32,762 characters)`` in a value for that many characters.  Write them out."""
    for page in folder.glob("*.man"):
        lines: list[str] = []
        for line in page.read_text(encoding="utf-8").splitlines(keepends=True):
            m = _RUN.search(line)
            if m is None:
                lines.append(_SIZED.sub(lambda s: "x" * int(s.group(1).replace(",", "")), line))
                continue
            prefix, first, last = m.group(1), int(m.group(2)), int(m.group(3))
            model = lines[-1]
            for n in range(first, last + 1):
                made = model.replace(f'"{prefix}{first - 1}"', f'"{prefix}{n}"')
                own = "{" + str(uuid.uuid5(uuid.NAMESPACE_URL, made)) + "}"
                made = _GUID.sub(own, made)
                lines.append(made)
        page.write_text("".join(lines), encoding="utf-8")


_GUID = re.compile(r"\{[0-9a-fA-F-]{36}\}")


def _edited_blob(edit: Callable[[bytearray, Any], None]) -> Maker:
    """The blob of the page's manifest with ``edit`` applied, as ``edited.bin``."""

    def make(folder: Path, damaged: bool) -> None:
        if not damaged:
            return
        from etwmc.wevt.reader_raw import parse_blob

        assert main(["compile", "--no-python", "-o", str(folder), str(folder / "example.man")]) == 0
        blob = bytearray((folder / "exampleTEMP.BIN").read_bytes())
        edit(blob, parse_blob(bytes(blob)).providers[0])
        (folder / "edited.bin").write_bytes(bytes(blob))
        for f in folder.glob("example?*"):
            f.unlink()

    return make


def _opcode_192(blob: bytearray, provider: Any) -> None:
    blob[provider.events[0].offset + 5] = 192  # the descriptor's opcode byte


def _template_id_flipped(blob: bytearray, provider: Any) -> None:
    blob[provider.templates[0].offset + 24] ^= 0xFF  # the first byte of the template's id


def bare_line_feed(folder: Path, damaged: bool) -> None:
    """The page's manifest compiled, with its message table as older mc wrote it."""
    if not damaged:
        return
    from etwmc.wevt.msgtable import encode_messages, read_message_table

    assert main(["compile", "--no-python", "-o", str(folder), str(folder / "example.man")]) == 0
    table = read_message_table((folder / "example_MSG00001.bin").read_bytes())
    old = {mid: text.replace("Hello, world.", "Hello,\nworld.") for mid, text in table.items()}
    assert old != table
    (folder / "old_MSG00001.bin").write_bytes(encode_messages(old))


TRACES = Path(__file__).resolve().parents[2] / "shared" / "traces"


def _trace(folder: Path) -> bytes:
    source = TRACES / "krabsetw_powershell.etl"
    if not source.is_file():
        pytest.skip("../shared/traces is not present next to this checkout")
    data = source.read_bytes()
    (folder / "trace.etl").write_bytes(data)
    return data


def cut_trace(folder: Path, damaged: bool) -> None:
    data = _trace(folder)
    if damaged:
        (folder / "cut.etl").write_bytes(data[:4096])


def trace_and_cut_blob(folder: Path, damaged: bool) -> None:
    _trace(folder)
    if damaged:
        (folder / "damaged.bin").write_bytes(b"CRIM" + (304).to_bytes(4, "little"))


def trace(folder: Path, damaged: bool) -> None:
    _trace(folder)


def looping_links(folder: Path, damaged: bool) -> None:
    """``repo``: the page's manifest and two links that point at each other."""
    repo = folder / "repo"
    repo.mkdir()
    (repo / "example.man").write_bytes((folder / "example.man").read_bytes())
    (repo / "ping.man").symlink_to("pong.man")
    (repo / "pong.man").symlink_to("ping.man")


_HELLO_MC = "MessageId=1\nSymbolicName=MSG_HELLO\nLanguage=English\nHello, world.\n.\n"


def big_endian_mc(folder: Path, damaged: bool) -> None:
    if damaged:
        (folder / "messages.mc").write_bytes(b"\xfe\xff" + _HELLO_MC.encode("utf-16-be"))


def lone_cr_mc(folder: Path, damaged: bool) -> None:
    if damaged:
        (folder / "messages.mc").write_bytes(_HELLO_MC.replace("Hello, ", "Hello,\r").encode())


def sized_mc(folder: Path, damaged: bool) -> None:
    """``(40,000 characters)`` in a message text file: a line of that many characters."""
    for path in folder.glob("*.mc"):
        text = path.read_text(encoding="utf-8")
        path.write_text(_SIZED.sub(lambda s: "x" * int(s.group(1).replace(",", "")), text))


def utf8_bom_mc(folder: Path, damaged: bool) -> None:
    path = folder / "messages.mc"
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())


GENERATED: dict[str, Maker] = {
    "ETW001": pipe,
    "ETW002": empty,
    "ETW003": huge,
    "ETW014": looping_links,
    "ETW020": cut_blob,
    "ETW021": cut_table,
    "ETW022": cut_event_file,
    "ETW507": expand_listing,
    "ETW739": cut_blob,
    "ETW800": _edited_blob(_opcode_192),
    "ETW801": _edited_blob(_template_id_flipped),
    "ETW803": bare_line_feed,
    "ETW851": cut_trace,
    "ETW852": trace_and_cut_blob,
    "ETW853": trace,
    "ETW855": trace,
    "ETW858": trace,
    "ETW900": big_endian_mc,
    "ETW901": lone_cr_mc,
    "ETW919": sized_mc,
    "ETW920": utf8_bom_mc,
    "ETW622": expand_listing,
    "ETW650": expand_listing,
    "ETW653": expand_listing,
    "ETW654": expand_listing,
}
