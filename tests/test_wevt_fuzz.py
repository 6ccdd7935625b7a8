"""Hostile blobs: truncated, bit-flipped or overwritten WEVT_TEMPLATE data never crashes,
hangs or allocates far beyond its size: it reads, or raises WevtError."""

from __future__ import annotations

import time
import tracemalloc
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc.wevt.reader import WevtError, read_wevt

ETK = Path(__file__).resolve().parents[1].parent / "shared" / "golden" / "event-trace-kit"
NAMES = [
    "Large.wevt.v5.bin", "EventAttributes.wevt.v5.bin", "ProviderTraits.wevt.v5.bin",
    "TaskOpcodes.wevt.v3.bin", "ImportChannels.wevt.v5.bin", "TypeMangling.wevt.v5.bin",
]  # fmt: skip
BLOBS = {n: (ETK / n).read_bytes() for n in NAMES if (ETK / n).is_file()}

pytestmark = pytest.mark.skipif(not BLOBS, reason="../shared/golden is not available")

FUZZ = settings(
    max_examples=150,
    deadline=None,  # _read_safely bounds each read in CPU time
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)

# A malformed blob may take at most this much CPU time (wall time would count what other
# processes on the machine do); real blobs of ~50 KB read in milliseconds.
MAX_SECONDS = 2.0


def _read_safely(blob: bytes) -> None:
    tracemalloc.start()
    start = time.process_time()
    try:
        read_wevt(blob)
    except WevtError as e:
        assert str(e)  # a message that says what and where
    finally:
        _, peak = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    assert time.process_time() - start < MAX_SECONDS
    # The model of a blob is a few dozen objects per entry: allow a generous factor of
    # the input, never an allocation a hostile count could ask for.
    assert peak < 400 * len(blob) + (4 << 20), f"peak {peak} bytes for a {len(blob)}-byte blob"


@FUZZ
@given(name=st.sampled_from(sorted(BLOBS)), cut=st.integers(min_value=0, max_value=1 << 16))
def test_truncated(name: str, cut: int) -> None:
    blob = BLOBS[name]
    _read_safely(blob[: cut % (len(blob) + 1)])


@slow
@FUZZ
@given(
    name=st.sampled_from(sorted(BLOBS)),
    flips=st.lists(st.tuples(st.integers(min_value=0), st.integers(0, 7)), min_size=1, max_size=8),
)
def test_bit_flips(name: str, flips: list[tuple[int, int]]) -> None:
    data = bytearray(BLOBS[name])
    for pos, bit in flips:
        data[pos % len(data)] ^= 1 << bit
    _read_safely(bytes(data))


@slow
@FUZZ
@given(
    name=st.sampled_from(sorted(BLOBS)),
    pos=st.integers(min_value=0),
    word=st.sampled_from([0, 1, 0x7FFF, 0xFFFF, 0x7FFFFFFF, 0xFFFFFFFF, 0x10000, 40, 64]),
)
def test_overwritten_words(name: str, pos: int, word: int) -> None:
    """Counts, sizes and offsets replaced by extreme values (aligned u32 writes)."""
    data = bytearray(BLOBS[name])
    at = (pos % (len(data) // 4)) * 4
    data[at : at + 4] = word.to_bytes(4, "little")
    _read_safely(bytes(data))


@FUZZ
@given(st.binary(max_size=512))
def test_random_bytes_after_a_valid_header(tail: bytes) -> None:
    header = b"CRIM" + (16 + len(tail)).to_bytes(4, "little") + b"\x05\x00\x01\x00"
    _read_safely(header + tail)
