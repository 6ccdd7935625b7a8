"""Reading C headers back: the constants and macros mc's headers and etwmc's define."""

from __future__ import annotations

import re
import uuid
from dataclasses import dataclass
from pathlib import Path

from conftest import CORPUS, GOLDEN

# Object-like #defines with a number: channel, level, opcode, task and keyword values,
# <event>_value, MSG_* ids, McTemplate*_ARGCOUNT.
_DEFINE = re.compile(r"^#define (\w+) +(0x[0-9A-Fa-f]+|\d+)L?[ \t]*$", re.M)
_GUID = re.compile(
    r"\bGUID (\w+) = \{0x([0-9a-fA-F]+), 0x([0-9a-fA-F]+), 0x([0-9a-fA-F]+), \{([^}]*)\}\};"
)
_DESCRIPTOR = re.compile(r"\bEVENT_DESCRIPTOR (\w+) = \{([^}]*)\};")
_MACRO = re.compile(r"^#define (Event(?:Write|Enabled|Register|Unregister)\w*)\(([^)]*)\)", re.M)
_TRAITS = re.compile(r"^#define (\w+)_Traits \( \\\n(.*?)\n    \)", re.M | re.S)
_LITERAL = re.compile(r'"((?:[^"\\]|\\.)*)"')
_ESCAPE = re.compile(r"\\(x[0-9A-Fa-f]{2}|[0-7]{3})")


@dataclass(frozen=True)
class HeaderFacts:
    defines: frozenset[tuple[str, int]]
    guids: frozenset[tuple[str, uuid.UUID]]
    descriptors: frozenset[tuple[str, tuple[int, ...]]]
    macros: frozenset[tuple[str, int]]  # (name, number of parameters)


def facts(text: str) -> HeaderFacts:
    guids = set()
    for m in _GUID.finditer(text):
        tail = "".join(b.strip()[2:].zfill(2) for b in m.group(5).split(","))
        hexa = m.group(2).zfill(8) + m.group(3).zfill(4) + m.group(4).zfill(4) + tail
        guids.add((m.group(1), uuid.UUID(hexa)))
    return HeaderFacts(
        defines=frozenset((m.group(1), int(m.group(2), 0)) for m in _DEFINE.finditer(text)),
        guids=frozenset(guids),
        descriptors=frozenset(
            (m.group(1), tuple(int(v, 16) for v in m.group(2).split(",")))
            for m in _DESCRIPTOR.finditer(text)
        ),
        macros=frozenset(
            (m.group(1), len([a for a in m.group(2).split(",") if a.strip()]))
            for m in _MACRO.finditer(text)
        ),
    )


def c_literal_bytes(literals: str) -> bytes:
    """The bytes of adjacent C string literals using \\xNN and \\ooo escapes."""
    out = b""
    for lit in _LITERAL.findall(literals):
        pos = 0
        for m in _ESCAPE.finditer(lit):
            out += lit[pos : m.start()].encode("ascii")
            e = m.group(1)
            out += bytes([int(e[1:], 16) if e[0] == "x" else int(e, 8)])
            pos = m.end()
        assert "\\" not in lit[pos:], lit
        out += lit[pos:].encode("ascii")
    return out


def traits(text: str) -> dict[str, bytes]:
    """Provider symbol -> the bytes of its traits macro (providers that have traits)."""
    return {m.group(1): c_literal_bytes(m.group(2)) for m in _TRAITS.finditer(text)}


def golden_cases() -> list[tuple[Path, Path]]:
    """(mc's header, the manifest it was made from) for every header in ../shared/golden."""
    out: list[tuple[Path, Path]] = []
    etk = GOLDEN / "event-trace-kit"
    if etk.is_dir():
        for h in sorted(etk.glob("*.h")):
            stem = h.name.split(".", 1)[0]
            out.append((h, etk / f"{stem}.man"))
    for h, man in (
        (GOLDEN / "dotnet-wpf" / "wpf-etw.h", CORPUS / "dotnet__wpf__wpf-etw.man"),
        (
            GOLDEN / "perfview" / "ETWClrProfiler.h",
            CORPUS / "microsoft__perfview__ETWClrProfiler.man",
        ),
    ):
        if h.is_file():
            out.append((h, man))
    return out


def current_layout(text: str) -> bool:
    """mc 10.0.18362's layout (every write macro has an _AssumeEnabled twin)."""
    return "_AssumeEnabled(" in text or "MCGEN_USE_KERNEL_MODE_APIS" in text


_FOR_CONTEXT = re.compile(r".*_ForContext(AssumeEnabled)?\Z")


def channel_keywords(f: HeaderFacts) -> dict[str, int]:
    """Channel symbol -> the value of its ``<channel>_KEYWORD`` define."""
    names = {name for name, _ in f.defines}
    return {
        name[: -len("_KEYWORD")]: value
        for name, value in f.defines
        if name.endswith("_KEYWORD") and name[: -len("_KEYWORD")] in names
    }


def predating(f: HeaderFacts) -> HeaderFacts:
    """The facts without what current mc writes and mc 10.0.18362 did not: the channel
    keyword defines and the _ForContext macros."""
    keywords = {f"{channel}_KEYWORD" for channel in channel_keywords(f)}
    return HeaderFacts(
        defines=frozenset(d for d in f.defines if d[0] not in keywords),
        guids=f.guids,
        descriptors=f.descriptors,
        macros=frozenset(m for m in f.macros if not _FOR_CONTEXT.match(m[0])),
    )
