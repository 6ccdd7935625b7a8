"""``mc -W FILE``: the predefined names of a winmeta.xml.

A winmeta.xml is an instrumentation manifest whose ``<metadata>`` element declares the
predefined ``win:`` channels, levels, tasks, opcodes and keywords (name, value or mask,
symbol, ``message="$(string.ID)"``) and whose string table gives their texts.  Build
scripts pass the SDK's own (``mc -W winmeta.xml``, as perfview's does); mc takes the
texts of the predefined items a manifest uses into its message tables from it.

etwmc reads the file with its safe XML parser and checks it against its built-in table
(:mod:`etwmc.winmeta`): a name the file gives another value than Windows' is an error
(ETW024), since every decoder on Windows resolves ``win:`` names with Windows' values;
the texts the file gives are the ones the message tables get (:func:`with_texts`).
A name etwmc's table does not have stays unknown to a manifest: the validation that
refuses it runs before the file is read.
"""

from __future__ import annotations

import re
from pathlib import Path
from types import MappingProxyType

from lxml import etree

from .. import winmeta as wm
from ..codes import E_WINMETA_FILE
from ..diagnostics import Diagnostic, diag
from ..msgids import MessageIds
from ..parse import Document, parse_file
from ..record import Record, replace

_NS = f"{{{wm.EVENTS_NS}}}"
_KINDS = {"level": "levels", "task": "tasks", "opcode": "opcodes", "keyword": "keywords"}
_REF = re.compile(r"\$\([Ss]tring\.(.+)\)\Z")


class WinmetaFile(Record):
    """The predefined items' texts the file gives: ``(kind, "win:Name")`` -> text
    (``kind``: level, task, opcode or keyword; channels as ``("channel", name)``)."""

    path: str
    texts: dict[tuple[str, str], str]


def read_winmeta(path: str | Path) -> tuple[WinmetaFile | None, list[Diagnostic]]:
    doc, diags = parse_file(path)
    if doc is None:
        return None, diags
    name = str(path)
    metadata = doc.root.find(f"{_NS}metadata")
    if metadata is None:
        return None, [
            diag(
                E_WINMETA_FILE,
                doc.span(doc.root),
                "the file has no <metadata> element, so it is no winmeta.xml",
                hint="give -W the winmeta.xml of the Windows SDK (Include\\<version>\\um)",
            )
        ]
    strings = _strings(doc)
    texts: dict[tuple[str, str], str] = {}
    problems: list[Diagnostic] = []
    for kind, group in _KINDS.items():
        table = wm.PREDEFINED[kind]
        for item in metadata.iterfind(f"{_NS}{group}/{_NS}{kind}"):
            qname = item.get("name", "")
            local = qname.partition(":")[2] if qname.startswith("win:") else qname
            known = table.get(local)
            value = _number(item.get("mask" if kind == "keyword" else "value"))
            if known is not None and value is not None and value != known.value:
                problems.append(
                    diag(
                        E_WINMETA_FILE,
                        doc.span(item),
                        f"{name} gives {kind} win:{local} the value 0x{value:X}; Windows "
                        f"gives it 0x{known.value:X}, and decoders use Windows' value",
                        hint="use the winmeta.xml of the Windows SDK, or leave out -W",
                    )
                )
            text = _text(item, strings)
            if known is not None and text is not None:
                texts[(kind, f"win:{local}")] = text
    for item in metadata.iterfind(f"{_NS}channels/{_NS}channel"):
        channel = item.get("name", "").removeprefix("win:")
        text = _text(item, strings)
        if channel in wm.CHANNELS and text is not None:
            texts[("channel", channel)] = text
    return WinmetaFile(name, texts), problems


def with_texts(ids: MessageIds, winmeta: WinmetaFile) -> MessageIds:
    """``ids`` with the texts of the predefined items taken from ``winmeta``."""
    texts = dict(ids.winmeta)
    for key, mid in ids.builtins.items():
        if mid in texts and key in winmeta.texts:
            texts[mid] = winmeta.texts[key]
    for channel, mid in ids.winmeta_channels.items():
        if mid in texts and ("channel", channel) in winmeta.texts:
            texts[mid] = winmeta.texts[("channel", channel)]
    return replace(ids, winmeta=MappingProxyType(texts))


def _strings(doc: Document) -> dict[str, str]:
    """The first culture's string table (winmeta.xml has en-US only)."""
    table = doc.root.find(f"{_NS}localization/{_NS}resources/{_NS}stringTable")
    if table is None:
        return {}
    return {
        s.get("id", ""): s.get("value", "") for s in table.iterfind(f"{_NS}string") if s.get("id")
    }


def _text(item: etree._Element, strings: dict[str, str]) -> str | None:
    m = _REF.match(item.get("message", ""))
    return strings.get(m.group(1)) if m else None


def _number(text: str | None) -> int | None:
    if text is None:
        return None
    try:
        return int(text, 0)
    except ValueError:
        return None
