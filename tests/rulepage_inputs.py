"""The inputs of rule-page examples that cannot be shown as text: damaged blobs, tables,
event files and traces, a file too large to show, a pipe.  Each maker writes, into the
folder a page's commands run in, the input the page describes (``damaged``) or the one
its fix names (not ``damaged``); files the page shows are already there."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

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


def elided_fields(folder: Path, damaged: bool) -> None:
    """The page lists F1, F2 and F100 with a comment for the rest: write them all."""
    page = folder / "example.man"
    lines = []
    for line in page.read_text(encoding="utf-8").splitlines(keepends=True):
        if "<!-- F3 to F99 -->" in line and damaged:
            indent = line[: len(line) - len(line.lstrip())]
            lines += [f'{indent}<data name="F{n}" inType="win:UInt8"/>\n' for n in range(3, 100)]
        else:
            lines.append(line)
    page.write_text("".join(lines), encoding="utf-8")


GENERATED: dict[str, Maker] = {
    "ETW001": pipe,
    "ETW002": empty,
    "ETW003": huge,
    "ETW020": cut_blob,
    "ETW021": cut_table,
    "ETW022": cut_event_file,
    "ETW507": elided_fields,
}
