"""The WEVT_TEMPLATE reader against mc.exe's outputs and Microsoft-built blobs."""

from __future__ import annotations

import io
import struct
from pathlib import Path

import pytest

from etwmc.model import Field, Manifest, Provider, Struct
from etwmc.wevt.reader import WevtError, parse_blob, read_wevt

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
GOLDEN = SHARED / "golden"
ETK = GOLDEN / "event-trace-kit"
SAMPLES = GOLDEN / "samples"

pytestmark = pytest.mark.skipif(not GOLDEN.is_dir(), reason="../shared/golden is not available")


def golden_blobs() -> list[Path]:
    return sorted(ETK.glob("*.wevt.*.bin")) if ETK.is_dir() else []


def blob_version(path: Path) -> tuple[int, bool]:
    """(CRIM major version, mc 8.1 legacy template ids) of a golden blob, from its name."""
    return (3 if ".v3" in path.name else 5), "8.1" in path.name


@pytest.mark.parametrize("path", golden_blobs(), ids=lambda p: p.name)
def test_golden_blob_parses(path: Path) -> None:
    blob = path.read_bytes()
    raw = parse_blob(blob)
    assert raw.major == blob_version(path)[0] and raw.minor == 1
    assert raw.size == len(blob) - 2
    read_wevt(blob, path=path.name)


@pytest.mark.parametrize(
    ("name", "providers", "events"),
    [
        ("services.wevt", ["Microsoft-Windows-Services", "Microsoft-Windows-Services-Svchost",
                           "Service Control Manager"], [15, 2, 43]),
        ("mpengine_etw.wevt", ["Microsoft-Antimalware-Engine",
                               "Microsoft-Antimalware-Engine-Instrumentation"], [128, 2]),
        ("libfwevt_manifest.1", ["Hello World Metric Provider"], [1]),
    ],
)  # fmt: skip
def test_microsoft_samples(name: str, providers: list[str], events: list[int]) -> None:
    m = read_wevt((SAMPLES / name).read_bytes(), path=name)
    assert [p.name for p in m.providers] == providers
    assert [len(p.events) for p in m.providers] == events
    for p in m.providers:
        for e in p.events:
            if e.template is not None:
                assert all(i.name for i in e.template.items)


def test_services_first_template_matches_the_documented_bytes() -> None:
    # binary-formats.md section 2 spells out services.wevt's TEMP 1: EventData with one
    # UnicodeString param named GroupName.
    m = read_wevt((SAMPLES / "services.wevt").read_bytes())
    t = m.providers[0].templates[0]
    assert [(i.name, i.in_type.qname if isinstance(i, Field) and i.in_type else None)
            for i in t.items] == [("GroupName", "win:UnicodeString")]  # fmt: skip


# --------------------------------------------------------------------------- vs. lowering


def _lowered(man: Path) -> Manifest:
    from etwmc.validate import check_file

    checked = check_file(man)
    assert checked.manifest is not None
    return checked.manifest


def _extent(v: int | str | None) -> int | str | None:
    # mc stores count="0"/length="0" as "no count/length": the blob cannot tell them apart.
    return None if v == 0 else v


def _field_facts(item: Field | Struct) -> tuple[object, ...]:
    if isinstance(item, Struct):
        members = tuple(map(_field_facts, item.fields))
        return ("struct", item.name, _extent(item.count), _extent(item.length), members)
    it = item.in_type.code if item.in_type else None
    out = item.out_type.code if item.out_type else None
    if out is None and item.in_type is not None:
        from etwmc.winmeta import OUT_TYPES

        out = OUT_TYPES[item.in_type.default_out].code
    return (item.name, it, out, _extent(item.count), _extent(item.length), item.map)


def _provider_facts(p: Provider, *, from_blob: bool) -> dict[str, object]:
    def events() -> list[tuple[object, ...]]:
        out = []
        for e in sorted(p.events, key=lambda e: (e.value, e.version)):
            out.append((
                e.value, e.version,
                (e.level.name, e.level.value) if e.level else None,
                (e.task.name, e.task.value) if e.task else None,
                (e.opcode.name, e.opcode.value) if e.opcode else None,
                sorted(k.name for k in e.keywords),
                e.channel.name if e.channel else None,
                e.name, e.attributes,
                tuple(map(_field_facts, e.template.items)) if e.template else None,
                e.template.name if e.template else None,
            ))  # fmt: skip
        return out

    return {
        "guid": p.guid,
        "name": p.name,
        "control_guid": p.control_guid,
        "group_guid": p.traits.group_guid if p.traits else None,
        "levels": sorted((lv.name, lv.value) for lv in p.levels if not lv.builtin),
        "tasks": sorted(
            # A zero eventGUID is stored like none.
            (
                t.name,
                t.value,
                t.event_guid if t.event_guid and t.event_guid.int else None,
                sorted((o.name, o.value) for o in t.opcodes),
            )
            for t in p.tasks
            if not t.builtin
        ),
        "opcodes": sorted((o.name, o.value) for o in p.opcodes if not o.builtin),
        "keywords": sorted((k.name, k.mask) for k in p.keywords if not k.builtin),
        "maps": [(m.kind, m.name, [i.value for i in m.items]) for m in p.maps],
        "pattern_maps": [
            (q.name, q.format, [(i.name, i.value) for i in q.items]) for q in p.pattern_maps
        ],  # fmt: skip
        "channels": [(c.name, c.imported) for c in p.channels if c.index is not None],
        "templates": [tuple(map(_field_facts, t.items)) for t in p.templates],
        "events": events(),
        "filters": [(f.name, f.value, f.version) for f in p.filters],
    }


# Blobs of mc before PRVA (v3) store no provider name.
def _comparable(facts: dict[str, object], v3: bool) -> dict[str, object]:
    return {k: v for k, v in facts.items() if not (v3 and k == "name")}


@pytest.mark.parametrize("path", golden_blobs(), ids=lambda p: p.name)
def test_blob_model_agrees_with_lowered_manifest(path: Path) -> None:
    man = ETK / (path.name.split(".wevt.")[0] + ".man")
    lowered = _lowered(man)
    read = read_wevt(path.read_bytes())
    v3 = blob_version(path)[0] == 3
    assert len(read.providers) == len(lowered.providers)
    for got, want in zip(read.providers, lowered.providers, strict=True):
        g = _comparable(_provider_facts(got, from_blob=True), v3)
        w = _comparable(_provider_facts(want, from_blob=False), v3)
        # The blob keeps only the levels/opcodes/keywords/tasks events use or the provider
        # declares; it does keep every declared one, so the two lists agree.
        assert g == w


def test_event_references_are_resolved_objects() -> None:
    m = read_wevt((ETK / "Large.wevt.v5.bin").read_bytes())
    p = m.providers[0]
    ev = next(e for e in p.events if e.value == 5)
    assert ev.level is not None and ev.level.name == "ns1:LevelName1" and ev.level.value == 105
    assert ev.task is not None and ev.task.name == "ns1:TaskName1"
    assert ev.opcode is not None and ev.opcode.name == "OpcodeName1"
    assert [k.name for k in ev.keywords] == ["ns1:KeywordName1", "KeywordName2"]
    assert ev.channel is not None and ev.channel.name == "P1/ChannelName2"
    assert ev.template is p.templates[0]
    assert ev.name == "EventName511"
    ev1 = next(e for e in p.events if e.value == 1)
    assert ev1.attributes == 'FILE=source.cpp;MJ="major comp";LINE=6'
    assert p.control_guid is not None and str(p.control_guid).upper().startswith("35919CDE")
    assert p.filters[0].template is p.templates[1]  # tid="Template2", the second template
    assert p.filters[1].template is None


def test_user_data_template() -> None:
    m = read_wevt((ETK / "Large.wevt.v5.bin").read_bytes())
    ud = [t for t in m.providers[0].templates if t.user_data is not None]
    assert len(ud) == 1
    root = ud[0].user_data
    assert root is not None
    assert root.tag == ("urn:uuid:d899d334-4b00-44bd-93db-42f3be07837d", "Root")
    assert [(c.tag[1], c.text) for c in root.children] == [("Field7", "%7"), ("Field6", "%6")]


def test_message_tables_give_texts() -> None:
    from etwmc.wevt.msgtable import read_message_table

    table = read_message_table((ETK / "TaskOpcodes.msg.bin").read_bytes())
    m = read_wevt((ETK / "TaskOpcodes.wevt.v5.bin").read_bytes(), messages=[table])
    p = m.providers[0]
    errors = [lv for lv in p.levels if lv.name == "win:Error"]
    assert errors and m.text(errors[0].message) == "Error"
    # every message id in the blob that the table holds has its text
    assert m.primary is not None
    assert all(m.text(msg.message) == table[msg.value].removesuffix("\r\n")
               for msg in m.messages if msg.value in table)  # fmt: skip


# --------------------------------------------------------------------------- writer agreement


@pytest.mark.parametrize(
    "path",
    golden_blobs() + [SAMPLES / "mpengine_etw.wevt", SAMPLES / "libfwevt_manifest.1"],
    ids=lambda p: p.name,
)
def test_writer_rebuilds_the_blob_from_the_read_model(path: Path) -> None:
    """Everything the blob says is in the model: writing the model gives the blob back."""
    from etwmc.wevt import build_wevt

    blob = path.read_bytes()
    version, legacy = blob_version(path)
    assert build_wevt(read_wevt(blob), version=version, legacy_ids=legacy) == blob


# --------------------------------------------------------------------------- hostile input


def _crim(major: int, providers: list[tuple[bytes, int]], tail: bytes = b"") -> bytes:
    body = b"".join(g + struct.pack("<I", off) for g, off in providers) + tail
    size = 16 + len(body)
    return b"CRIM" + struct.pack("<IHHI", size, major, 1, len(providers)) + body + b"\0\0"


@pytest.mark.parametrize(
    ("blob", "fragment"),
    [
        (b"", "CRIM header at offset 0x0"),
        (b"XXXX" + bytes(14), "expected signature 'CRIM'"),
        (b"CRIM" + struct.pack("<IHHI", 9999, 5, 1, 0) + b"\0\0", "CRIM size 9999"),
        (b"CRIM" + struct.pack("<IHHI", 16, 4, 1, 0) + b"\0\0", "unsupported CRIM version 4.1"),
        (b"CRIM" + struct.pack("<IHHI", 16, 5, 1, 0xFFFFFFFF) + b"\0\0", "provider directory"),
        (_crim(5, [(bytes(16), 0x1000)]), "provider 00000000-0000-0000-0000-000000000000 block"),
        (_crim(5, [(bytes(16), 36)], b"WEVT" + struct.pack("<III", 24, 0xFFFFFFFF, 1)
                                     + struct.pack("<II", 99, 0)), "unknown element kind 99"),
        (_crim(5, [(bytes(16), 36)], b"WEVT" + struct.pack("<III", 24, 0xFFFFFFFF, 0x10000000)),
         "provider element descriptors"),
    ],
)  # fmt: skip
def test_malformed_blobs_raise_wevt_error_with_offset(blob: bytes, fragment: str) -> None:
    with pytest.raises(WevtError) as info:
        read_wevt(blob)
    assert fragment in str(info.value)


def test_element_pointing_outside_the_blob() -> None:
    wevt = b"WEVT" + struct.pack("<III", 24, 0xFFFFFFFF, 1) + struct.pack("<II", 0, 0x7FFFFFF0)
    with pytest.raises(WevtError, match="LEVL block at offset 0x7ffffff0"):
        read_wevt(_crim(5, [(bytes(16), 36)], wevt))


def test_deep_binxml_nesting_is_refused() -> None:
    from etwmc.wevt.reader_binxml import MAX_DEPTH, Buf, parse_fragment

    def name(s: str) -> bytes:
        return struct.pack("<HH", 0, len(s)) + s.encode("utf-16-le") + b"\0\0"

    frag = b"\x0f\x01\x01\x00"
    depth = MAX_DEPTH + 5
    for _ in range(depth):
        frag += b"\x01\xff\xff" + struct.pack("<I", 0) + name("a") + b"\x02"
    frag += b"\x04" * depth + b"\x00"
    # Fix the element sizes: each one spans to the end of the fragment minus the 0x00.
    data = bytearray(frag)
    pos = 4
    for i in range(depth):
        struct.pack_into("<I", data, pos + 3, len(data) - 1 - (pos + 7) - i)
        pos += 7 + len(name("a")) + 1
    with pytest.raises(WevtError, match="nests deeper"):
        parse_fragment(Buf(bytes(data)), 0, len(data))


def _dissect_blocks(prov: object) -> dict[bytes, object]:
    """The blocks dissect.eventlog knows, by signature (it raises on EVTA, FLTR and QTAB)."""
    out = {}
    for t in prov.payload_types:  # type: ignore[attr-defined]
        at = prov._next_type_offset(t.offset)  # type: ignore[attr-defined]
        sig = bytes(prov.data[at : at + 4])  # type: ignore[attr-defined]
        if sig not in (b"EVTA", b"FLTR", b"QTAB"):
            out[sig] = prov._choose_wevt_type(sig)(t.offset, prov.data[at:])  # type: ignore[attr-defined]
    return out


def dissect_check(blob: bytes, label: str) -> None:
    """dissect.eventlog reads the blocks it knows with the same items as etwmc's reader."""
    wevt = pytest.importorskip("dissect.eventlog.wevt")
    crim = wevt.CRIM(io.BytesIO(blob))
    ours = parse_blob(blob)
    provs = list(crim.wevt_headers())
    assert [p.provider_id for p in provs] == [p.guid for p in ours.providers], label
    for theirs, mine in zip(provs, ours.providers, strict=True):
        blocks = _dissect_blocks(theirs)
        named = {b"LEVL": mine.levels, b"OPCO": mine.opcodes, b"TASK": mine.tasks,
                 b"KEYW": mine.keywords, b"CHAN": mine.channels}  # fmt: skip
        for sig, items in named.items():
            if sig in blocks:
                assert [i.name for i in blocks[sig]] == [i.name for i in items], (label, sig)
        if b"EVNT" in blocks:
            assert blocks[b"EVNT"].nr_of_items == len(mine.events), label  # type: ignore[attr-defined]
        if b"TTBL" in blocks:
            templates = list(blocks[b"TTBL"])  # type: ignore[call-overload]
            assert [t.identifier for t in templates] == [t.guid for t in mine.templates], label


def test_dissect_eventlog_reads_the_goldens() -> None:
    for path in golden_blobs() + [SAMPLES / "services.wevt", SAMPLES / "mpengine_etw.wevt"]:
        dissect_check(path.read_bytes(), path.name)


def test_winmeta_channel_named_without_listing() -> None:
    # ImportChannels.man lists five channels and names TraceLogging directly on event 6:
    # mc appends it to CHAN but gives its events no channel keyword bit.
    m = read_wevt((ETK / "ImportChannels.wevt.v5.bin").read_bytes())
    p = m.providers[0]
    listed = [(c.name, c.index, c.imported) for c in p.channels if c.index is not None]
    assert listed == [
        ("P1/MainChannel", 0, False),
        ("Security", 1, True),
        ("Application", 2, True),
        ("System", 3, True),
        ("TraceClassic", 4, True),
    ]
    ev6 = next(e for e in p.events if e.value == 6)
    assert ev6.channel is not None
    assert (ev6.channel.name, ev6.channel.index, ev6.channel.builtin) == (
        "TraceLogging",
        None,
        True,
    )
    assert ev6.channel.value == 11 and ev6.channel.keyword_bit == 0
