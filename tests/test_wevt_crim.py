"""The CRIM format module: its layouts against the format's documented sizes and mc's
blobs, and the one check of the version etwmc writes."""

from __future__ import annotations

import struct

import pytest

from conftest import GOLDEN
from etwmc.model import Manifest
from etwmc.wevt import binary_outputs, build_wevt, crim
from etwmc.wevt.crim import Entry, Kind

ETK = GOLDEN / "event-trace-kit"

# Sizes as binary-formats.md §1 gives them.
SIZES = {
    "CRIM_HEADER": 16, "DIRECTORY_ENTRY": 20, "WEVT_HEADER": 16, "DESCRIPTOR": 8,
    "LIST_HEADER": 12, "LIST_HEADER_EXTRA": 16, "CHAN_ENTRY": 16, "LEVL_ENTRY": 12,
    "OPCO_ENTRY": 12, "TASK_ENTRY": 28, "KEYW_ENTRY": 16, "EVNT_ENTRY": 48, "KEYWORD_REF": 4,
    "PRVA_ENTRY": 8, "EVTA_ENTRY": 8, "FLTR_ENTRY": 16, "RECORD_REF": 4, "MAP_RECORD": 20,
    "MAP_ITEM": 8, "QUER_RECORD": 20, "QUER_ITEM": 8, "TEMP_HEADER": 40, "PROPERTY": 20,
    "STRUCT_PROPERTY": 20,
}  # fmt: skip


def _entries() -> dict[str, Entry]:
    return {name: v for name, v in vars(crim).items() if isinstance(v, Entry)}


def test_every_layout_has_its_documented_size() -> None:
    assert {name: e.size for name, e in _entries().items()} == SIZES


@pytest.mark.parametrize("name", sorted(SIZES))
def test_every_value_of_a_layout_has_one_name(name: str) -> None:
    entry = _entries()[name]
    values = entry.layout.unpack(bytes(entry.size))
    assert len(values) == len(entry.fields) == len(set(entry.fields))


def test_descriptors_of_mc_blobs_point_at_their_signature() -> None:
    """Every element descriptor in mc's blobs names the block it points at."""
    blobs = sorted(ETK.glob("*.wevt.v*.bin"))
    if not blobs:
        pytest.skip("../shared/golden is missing")
    seen: set[Kind] = set()
    for path in blobs:
        blob = path.read_bytes()
        (count,) = struct.unpack_from("<I", blob, 12)
        for i in range(count):
            (at,) = struct.unpack_from("<I", blob, 16 + 20 * i + 16)
            assert blob[at : at + 4] == crim.WEVT
            (n,) = struct.unpack_from("<I", blob, at + 12)
            for j in range(n):
                kind, off = struct.unpack_from("<II", blob, at + 16 + 8 * j)
                if off:  # v3's unused slots are zero
                    assert blob[off : off + 4] == Kind(kind).signature, (path.name, kind)
                    seen.add(Kind(kind))
    assert seen >= {Kind.CHAN, Kind.LEVL, Kind.TASK, Kind.OPCO, Kind.KEYW, Kind.EVNT, Kind.TTBL}


@pytest.mark.parametrize("version", [4, 0, 6, True])
def test_the_writer_refuses_versions_it_does_not_write(version: int) -> None:
    m = Manifest(path="x.man")
    with pytest.raises(ValueError, match="version must be 3 or 5"):
        build_wevt(m, version=version)
    with pytest.raises(ValueError, match="version must be 3 or 5"):
        binary_outputs(m, "x", version=version)


def test_the_default_version_is_crim_5() -> None:
    blob = build_wevt(Manifest(path="x.man"))
    assert blob == b"CRIM" + struct.pack("<IHHI", 16, 5, 1, 0) + b"\0\0"  # binary-formats.md §1
    assert crim.DEFAULT_WEVT_VERSION == 5
