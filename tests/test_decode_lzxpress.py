"""LZXpress on long streams: the token forms, the errors at their exact offsets, and the
real trace's compressed buffers against the container library's own decompressor.

The streams are built by a small encoder here, from a list of operations whose output
is known by construction; they are long enough for the decoder's bulk loop (the unit
tests in test_decode_etl_parts.py use short streams, which only its careful loop sees).
"""

from __future__ import annotations

import random
import struct
from dataclasses import dataclass, field

import pytest
from etl_helpers import trace
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc.decode.lzxpress import LzxpressError, decompress

Op = int | tuple[int, int]  # a literal byte, or a match (distance, length)


@dataclass
class Stream:
    """A compressed stream, what it decompresses to, and where each operation ends."""

    data: bytearray = field(default_factory=bytearray)
    out: bytearray = field(default_factory=bytearray)
    ends: list[int] = field(default_factory=list)  # stream offset after each operation
    sizes: list[int] = field(default_factory=list)  # output size after each operation
    half: int = -1  # offset of a length byte whose high nibble is still free


def compress(ops: list[Op]) -> Stream:
    """Encode ``ops``; a match that reaches before the output or asks for more than
    1 MiB is encoded but not expanded (the streams with one are for error tests)."""
    s = Stream()
    word_at = 0
    bits = 0
    used = 32
    for op in ops:
        if used == 32:
            word_at, bits, used = len(s.data), 0, 0
            s.data += bytes(4)
        if isinstance(op, int):
            s.data.append(op)
            s.out.append(op)
        else:
            distance, length = op
            bits |= 1 << (31 - used)
            extra = length - 3
            s.data += struct.pack("<H", (distance - 1) << 3 | min(extra, 7))
            if extra >= 7:
                nibble = min(extra - 7, 15)
                if s.half < 0:
                    s.half = len(s.data)
                    s.data.append(nibble)
                else:
                    s.data[s.half] |= nibble << 4
                    s.half = -1
                if extra >= 7 + 15:
                    rest = extra - 7 - 15
                    if rest < 255:
                        s.data.append(rest)
                    elif extra <= 0xFFFF:
                        s.data += bytes([255]) + struct.pack("<H", extra)
                    else:
                        s.data += bytes([255]) + struct.pack("<HI", 0, extra)
            if distance <= len(s.out) and length <= 1 << 20:
                for _ in range(length):
                    s.out.append(s.out[-distance])
        used += 1
        s.data[word_at : word_at + 4] = struct.pack("<I", bits)
        s.ends.append(len(s.data))
        s.sizes.append(len(s.out))
    return s


def random_ops(rng: random.Random, count: int, *, u16: bool = True) -> list[Op]:
    """Literals and matches of every length form (``u16``: the longest form too),
    overlapping ones included."""
    ops: list[Op] = []
    size = 0
    for _ in range(count):
        if size == 0 or rng.random() < 0.4:
            ops.append(rng.randrange(256))
            size += 1
            continue
        kind = rng.random()
        if kind < 0.6:
            length = rng.randint(3, 9)  # in the token
        elif kind < 0.8:
            length = rng.randint(10, 24)  # in a half byte
        elif kind < 0.95 or not u16:
            length = rng.randint(25, 279)  # in a byte
        else:
            length = rng.randint(280, 3000)  # in a u16
        distance = rng.randint(1, min(size, 8192))
        ops.append((distance, length))
        size += length
    return ops


def test_long_stream_of_every_token_form() -> None:
    ops = random_ops(random.Random(7), 5000)
    ops.append((1, 70_000))  # a length that needs the u32 form
    s = compress(ops)
    assert decompress(bytes(s.data), len(s.out)) == bytes(s.out)
    assert decompress(bytes(s.data), len(s.out) + 1) == bytes(s.out)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 600))
def test_random_streams_decode_to_what_was_encoded(seed: int, count: int) -> None:
    s = compress(random_ops(random.Random(seed), count))
    assert decompress(bytes(s.data), len(s.out)) == bytes(s.out)


def test_output_limit_is_exact_deep_in_a_stream() -> None:
    # no match long enough to be checked on its own before it is copied
    ops = random_ops(random.Random(11), 3000, u16=False)
    s = compress(ops)
    # the limit is crossed by a match in the middle of the stream
    i = next(i for i in range(1500, len(ops)) if isinstance(ops[i], tuple))
    limit = s.sizes[i - 1] + 1
    with pytest.raises(LzxpressError, match=f"the output grows beyond {limit} bytes") as e:
        decompress(bytes(s.data), limit)
    assert e.value.offset == s.ends[i]
    with pytest.raises(LzxpressError, match=f"beyond {len(s.out) - 1} bytes"):
        decompress(bytes(s.data), len(s.out) - 1)


def test_a_huge_length_deep_in_a_stream_is_refused_before_it_is_copied() -> None:
    ops = [*random_ops(random.Random(3), 2000), (1, 0xFFFFFFF0), *random_ops(random.Random(4), 500)]
    s = compress(ops)
    with pytest.raises(LzxpressError, match="beyond 1000000 bytes") as e:
        decompress(bytes(s.data), 1_000_000)
    assert e.value.offset == s.ends[2000]


def test_a_match_before_its_data_deep_in_a_stream() -> None:
    ops = random_ops(random.Random(5), 2000)
    s = compress(ops)
    reach = s.sizes[99] + 1  # a match after 100 operations, one byte too far back
    assert reach <= 8192
    bad = compress([*ops[:100], (reach, 3), *ops[100:]])
    with pytest.raises(LzxpressError, match=f"reaches {reach} bytes back, {reach - 1} exist") as e:
        decompress(bytes(bad.data), 10**7)
    assert e.value.offset == bad.ends[100]


@pytest.mark.parametrize("written", [8191, 8192])
def test_a_match_as_far_back_as_a_match_reaches_at_a_flag_word(written: int) -> None:
    # A first flag word that writes `written` bytes (a literal, then 31 matches), then a
    # word that opens with a match 8192 bytes back, the farthest a token reaches: one
    # byte before the output when 8191 bytes exist, the first byte when 8192 do.
    fill = [(1, 264)] * 30 + [(1, written - 1 - 30 * 264)]
    ops: list[Op] = [0x41, *fill, (8192, 3), *random_ops(random.Random(8), 600)[1:]]
    s = compress(ops)
    assert s.sizes[31] == written
    assert struct.unpack_from("<I", s.data, s.ends[31])[0] >> 31 == 1  # it opens a flag word
    if written == 8191:
        with pytest.raises(LzxpressError, match="reaches 8192 bytes back, 8191 exist") as e:
            decompress(bytes(s.data), 10**7)
        assert e.value.offset == s.ends[32]
    else:
        assert decompress(bytes(s.data), len(s.out)) == bytes(s.out)


@pytest.mark.parametrize("seed", range(4))
def test_a_length_too_small_for_its_form_deep_in_a_stream(seed: int) -> None:
    s = compress(random_ops(random.Random(seed), 32 * 47))  # whole flag words
    data = bytearray(s.data)
    # a flag word whose first token is a match: low bits 7, nibble 15 (in a new byte or
    # in the free half of an earlier one), byte 255, then a u16 of 5, less than the 22
    # that the 7 + 15 already count
    data += struct.pack("<IH", 1 << 31, 7)
    if s.half < 0:
        data.append(15)
    else:
        data[s.half] |= 15 << 4
    data += bytes([255]) + struct.pack("<H", 5)
    at = len(data)
    data += bytes(400)
    with pytest.raises(LzxpressError, match="match length 5 is too small") as e:
        decompress(bytes(data), 10**7)
    assert e.value.offset == at


def test_cut_streams_fail_or_decode_a_prefix() -> None:
    s = compress(random_ops(random.Random(13), 1200))
    cuts = [*range(len(s.data) - 40, len(s.data)), *random.Random(1).sample(range(len(s.data)), 40)]
    for cut in cuts:
        try:
            got = decompress(bytes(s.data[:cut]), len(s.out))
        except LzxpressError as e:
            assert "cut short" in str(e)
        else:
            assert bytes(s.out).startswith(got)


@slow
def test_the_compressed_trace_agrees_with_the_container_library() -> None:
    """Every compressed buffer of the x86 trace, against dissect.util's decompressor."""
    from dissect.util.compression import lzxpress

    path = trace("perfview_net.4.5.2.x86.etl")
    data = path.read_bytes()
    offset = checked = 0
    while offset + 0x48 <= len(data):
        size, filled = struct.unpack_from("<I44xI", data, offset)
        if struct.unpack_from("<H", data, offset + 0x34)[0] & 0x40:
            body = data[offset + 0x48 : offset + size]
            want = filled - 0x48
            assert decompress(body, want) == lzxpress.decompress(body)[:want]
            checked += 1
        offset += size
    assert checked == 275
