"""Synthetic manifests of any size, shaped like the large real ones, for the scale benchmarks.

Run: ``.venv/bin/python bench/synthetic.py EVENTS OUT.man`` writes one (the benchmarks
generate theirs at run time in their scratch folder; none is committed).

The mix follows the two largest manifests of the corpus: Shell-Core (2,380 events, a
task for every start/stop pair, few templates) and ClrEtwAll (384 events, versioned
events, task-scoped opcodes, value and bit maps, templates of about five fields with
``<UserData>``, a message for nearly everything).  Per 1,000 events: 250 tasks (one
in five with two opcodes of its own, one in three with an event GUID), 200 templates of
1 to 9 fields (counts and lengths naming an earlier field, a struct in one of twelve,
maps in one field of three, ``<UserData>`` in one of four), 40 maps of 2 to 9 items,
and strings for events, tasks, opcodes, maps and keywords.  Events use 48 keywords,
five levels and three channels; one in three has no template.  The result compiles
without an error and every reference resolves, so every stage does its whole work.
"""

from __future__ import annotations

import itertools
import random
import sys
import uuid
from collections.abc import Iterator
from pathlib import Path

# Types as common as they are in the corpus; (inType, outType or "").
_SCALARS = (
    ("win:UInt32", ""),
    ("win:UInt32", "win:HexInt32"),
    ("win:UInt64", ""),
    ("win:UInt64", "win:HexInt64"),
    ("win:UInt16", ""),
    ("win:UnicodeString", ""),
    ("win:Pointer", ""),
    ("win:Boolean", ""),
    ("win:UInt8", ""),
    ("win:Int32", ""),
    ("win:GUID", ""),
    ("win:Double", ""),
    ("win:AnsiString", ""),
    ("win:FILETIME", ""),
)
_LEVELS = ("win:Critical", "win:Error", "win:Warning", "win:Informational", "win:Verbose")
_OPCODES = ("win:Start", "win:Stop", "win:Info")
_KEYWORDS = 48
_IND = "\n"  # items are written one a line, indented as real manifests are
_CHANNELS = (("Admin", "Admin"), ("Operational", "Operational"), ("Analytic", "Analytic"))


def _field(
    rng: random.Random, t: int, j: int, maps: Iterator[str] | None, counted: bool
) -> tuple[str, str]:
    """(element, kind) of field ``j`` of template ``t``; mapped fields take the maps in
    turn, so that every map is used."""
    name = f"F{j}_{t}"
    roll = rng.random()
    if maps and roll < 0.12:
        return f'<data name="{name}" inType="win:UInt32" map="{next(maps)}"/>', "u32"
    if counted and roll < 0.2:
        return (f'<data name="{name}" inType="win:UInt32" count="F{j - 1}_{t}" '
                'outType="win:HexInt32"/>'), "array"  # fmt: skip
    if counted and roll < 0.26:
        return f'<data name="{name}" inType="win:Binary" length="F{j - 1}_{t}"/>', "binary"
    in_type, out_type = rng.choice(_SCALARS)
    out = f' outType="{out_type}"' if out_type else ""
    return f'<data name="{name}" inType="{in_type}"{out}/>', in_type


def _template(rng: random.Random, t: int, maps: Iterator[str] | None) -> tuple[str, int]:
    """A ``<template>`` and its number of top-level items."""
    fields: list[str] = []
    names: list[str] = []
    size = rng.randint(1, 9)
    last = ""
    for j in range(size):
        element, kind = _field(rng, t, j, maps, counted=last == "win:UInt16")
        fields.append(element)
        names.append(f"F{j}_{t}")
        last = kind
    if t % 12 == 5:
        fields += [
            f'<struct name="S_{t}">',
            '  <data name="Sa" inType="win:UInt32"/>',
            '  <data name="Sb" inType="win:UnicodeString"/>',
            "</struct>",
        ]
        names.append(f"S_{t}")
    if t % 4 == 0:
        fields += ["<UserData>", f'  <T{t} xmlns="urn:bench">']
        fields += [f"    <{n}>%{i}</{n}>" for i, n in enumerate(names, 1)]
        fields += [f"  </T{t}>", "</UserData>"]
    body = _IND.join(f"  {line}" for line in fields)
    return f'<template tid="T{t}">{_IND}{body}{_IND}</template>', len(names)


def _map(rng: random.Random, m: int, strings: list[str]) -> str:
    items = []
    bits = m % 2 == 1
    for k in range(rng.randint(2, 9)):
        value = 1 << k if bits else k
        strings.append(f'<string id="map.{m}.{k}" value="Map {m} item {k}"/>')
        items.append(f'  <map value="0x{value:x}" message="$(string.map.{m}.{k})"/>')
    kind = "bitMap" if bits else "valueMap"
    return f'<{kind} name="Map{m}">{_IND}{_IND.join(items)}{_IND}</{kind}>'


def manifest(events: int, seed: int = 21) -> str:
    """A manifest of ``events`` events (at most 65,535: event values are 16 bits)."""
    if not 1 <= events <= 0xFFFF:
        raise ValueError("events must be 1..65535")
    rng = random.Random(seed)
    strings: list[str] = []
    n_tasks = max(1, events // 4)
    n_templates = max(1, events // 5)
    n_maps = max(1, events // 25)

    channels = [
        f'<channel chid="c{i}" name="Bench-Scale/{name}" type="{kind}" enabled="false"/>'
        for i, (name, kind) in enumerate(_CHANNELS)
    ]
    keywords = []
    for k in range(_KEYWORDS):
        strings.append(f'<string id="kw.{k}" value="Keyword {k}"/>')
        keywords.append(
            f'<keyword name="K{k}" mask="0x{1 << k:x}" symbol="BENCH_K{k}" '
            f'message="$(string.kw.{k})"/>'
        )
    tasks = []
    task_opcodes: dict[int, tuple[str, str]] = {}
    for t in range(n_tasks):
        strings.append(f'<string id="task.{t}" value="Task {t}"/>')
        guid = f' eventGUID="{{{uuid.UUID(int=rng.getrandbits(128))}}}"' if t % 3 == 0 else ""
        opcodes = ""
        if t % 5 == 0:
            strings.append(f'<string id="op.{t}.a" value="Begin"/>')
            strings.append(f'<string id="op.{t}.b" value="End"/>')
            task_opcodes[t] = (f"Op{t}a", f"Op{t}b")
            opcodes = _IND.join(
                (
                    "",
                    "  <opcodes>",
                    f'    <opcode name="Op{t}a" value="11" message="$(string.op.{t}.a)"/>',
                    f'    <opcode name="Op{t}b" value="12" message="$(string.op.{t}.b)"/>',
                    "  </opcodes>",
                    "",
                )
            )
        tasks.append(
            f'<task name="Task{t}" value="{t + 1}" symbol="BENCH_TASK{t}"{guid} '
            f'message="$(string.task.{t})"' + (f">{opcodes}</task>" if opcodes else "/>")
        )
    maps = [_map(rng, m, strings) for m in range(n_maps)]
    templates = []
    arity = []
    map_turn = (f"Map{m % n_maps}" for m in itertools.count())
    for t in range(n_templates):
        text, items = _template(rng, t, map_turn)
        templates.append(text)
        arity.append(items)
    event_elements = []
    for i in range(1, events + 1):
        task = (i - 1) // 4
        task = task if task < n_tasks else n_tasks - 1
        ops = task_opcodes.get(task, _OPCODES)
        opcode = ops[(i - 1) % len(ops)]
        chosen = sorted(rng.sample(range(_KEYWORDS), rng.randint(1, 3)))
        attrs = [
            f'value="{i}"',
            f'version="{i % 3}"',
            f'symbol="Ev{i}"',
            f'level="{_LEVELS[i % 5]}"',
            f'task="Task{task}"',
            f'opcode="{opcode}"',
            f'keywords="{" ".join(f"K{k}" for k in chosen)}"',
        ]
        inserts = ""
        if i % 3:
            t = (i - i // 3) % n_templates  # every template is used
            attrs.append(f'template="T{t}"')
            inserts = " ".join(f"%{n}" for n in range(1, min(arity[t], 3) + 1))
        if i % 7 == 0 and i % 5 != 4:  # not win:Verbose: Admin channels do not take it
            attrs.append(f'channel="c{(i // 7) % len(_CHANNELS)}"')
        strings.append(f'<string id="ev.{i}" value="Event {i} happened: {inserts}"/>')
        attrs.append(f'message="$(string.ev.{i})"')
        event_elements.append(f"<event {' '.join(attrs)}/>")
    provider = "\n".join(
        (
            '<provider name="Etwmc-Bench-Scale" guid="{6C1D2E3F-4A5B-4C6D-8E7F-9A0B1C2D3E4F}"',
            '    symbol="BENCH_SCALE" resourceFileName="scale.dll" messageFileName="scale.dll">',
            _section("channels", channels),
            _section("keywords", keywords),
            _section("tasks", tasks),
            _section("maps", maps),
            _section("templates", templates),
            _section("events", event_elements),
            "</provider>",
        )
    )
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation>
    <events>
{_indent(provider, 6)}
    </events>
  </instrumentation>
  <localization>
    <resources culture="en-US">
{_indent(_section("stringTable", strings), 6)}
    </resources>
  </localization>
</instrumentationManifest>
"""


def _section(tag: str, items: list[str]) -> str:
    return f"  <{tag}>\n{_indent(chr(10).join(items), 4)}\n  </{tag}>"


def _indent(text: str, depth: int) -> str:
    pad = " " * depth
    return pad + text.replace("\n", "\n" + pad)


def write(events: int, path: Path) -> Path:
    path.write_text(manifest(events), encoding="utf-8")
    return path


if __name__ == "__main__":
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    write(int(sys.argv[1]), Path(sys.argv[2]))
