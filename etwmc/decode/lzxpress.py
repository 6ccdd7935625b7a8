"""LZXpress (MS-XCA "plain LZ77") decompression with a hard output limit.

ETW writes compressed trace buffers in this format.  The decoder here exists beside the
container library's own because a trace is untrusted input: one match token can ask
for gigabytes of output, so every match is checked against ``limit`` (the buffer's
declared uncompressed size) before it is copied.  It also copies runs of literals and
non-overlapping matches as slices.

Format: a little-endian u32 of flags, read most significant bit first: 0 is a literal
byte, 1 a match.  A match is a u16: offset - 1 in the high 13 bits, length - 3 in the
low 3; length 7 continues in a shared half byte (two matches use one byte, low nibble
first), 15 there continues in a byte, 255 in a u16, and a u16 of 0 in a u32 (these
hold length - 3 with the 7 + 15 already counted).

Two loops share the work.  :func:`_bulk` takes every flag word whose 32 tokens cannot
reach the end of the data (a token is at most 10 bytes), so it checks no bounds of the
input; it walks a flag word a byte at a time through a table of literal runs, reads
tokens from a table of every u16 of the data, and checks the output limit once per
word (short matches add at most 279 bytes each; longer ones are checked before they
are copied).  It copies a match with negative offsets (from ``distance`` bytes before
the end of the output), so it keeps no count of the output, and checks that a match
reaches no byte before the output only in the words that start with fewer than 8192
bytes written (no match reaches further back).  :func:`_careful` finishes the data from
where it stopped, checking everything at every token.  When the bulk loop meets
anything wrong it gives up, and the careful loop decodes the data again from the
start, so an error is always the careful loop's, at the same offset and with the same
words.
"""

from __future__ import annotations

import struct
import sys

_U16 = struct.Struct("<H").unpack_from
_U32 = struct.Struct("<I").unpack_from
_WINDOW = 8192  # the farthest a match reaches back: 13 bits of distance - 1
_WORD_MAX = 4 + 32 * 10  # a flag word and 32 tokens of 10 bytes (u16, half, byte, u16, u32)


class LzxpressError(ValueError):
    """The compressed data is malformed; ``offset`` is where in it the problem is."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


def _flag_runs(byte: int) -> tuple[tuple[int, ...], int]:
    """The literals before each match of a flag byte (most significant bit first), and
    the literals after its last match."""
    runs = []
    literals = 0
    for bit in range(7, -1, -1):
        if byte >> bit & 1:
            runs.append(literals)
            literals = 0
        else:
            literals += 1
    return tuple(runs), literals


_FLAG_RUNS = [_flag_runs(b) for b in range(256)]


def decompress(src: bytes, limit: int) -> bytes:
    """Decompress ``src``; raise :class:`LzxpressError` on malformed data or when the
    output would grow beyond ``limit`` bytes."""
    out = bytearray()
    state = _bulk(src, limit, out)
    if state is None:  # something is wrong: find it, and say where, the careful way
        out.clear()
        state = (0, 0)
    return _careful(src, limit, out, *state)


def _u16_table(src: bytes) -> memoryview:
    """The little-endian u16 at every offset of ``src`` (0 past the end), in native
    u16s: twice the size of ``src``, at most 32 MiB for the largest buffer ETW writes."""
    pairs = bytearray(2 * len(src))
    low, high = (0, 1) if sys.byteorder == "little" else (1, 0)
    pairs[low::2] = src
    pairs[high : 2 * len(src) - 2 + high : 2] = src[1:]
    return memoryview(pairs).cast("H")


def _bulk(src: bytes, limit: int, out: bytearray) -> tuple[int, int] | None:
    """Decode the flag words that end well before the data does; return the position
    reached and the half-byte position (see :func:`_careful`), or None when the data
    is malformed or the output outgrows ``limit``."""
    last = len(src) - _WORD_MAX  # the last position where a flag word may start here
    if last < 0:
        return 0, 0
    u16 = _u16_table(src)
    runs_of = _FLAG_RUNS
    append = out.append
    pos = half = 0
    while pos <= last:
        near = len(out) < _WINDOW  # a match of this word may reach before the output
        flags = src[pos : pos + 4]  # a little-endian u32, used from its high byte down
        pos += 4
        for byte in reversed(flags):
            runs, tail = runs_of[byte]
            for literals in runs:
                if literals:  # no literals before most matches: one test for them
                    if literals == 1:  # the most common run: an append costs less than a slice
                        append(src[pos])
                        pos += 1
                    else:
                        out += src[pos : pos + literals]
                        pos += literals
                token = u16[pos]
                pos += 2
                back = ~(token >> 3)  # -distance
                if near and len(out) + back < 0:
                    return None
                length = token & 7
                if length == 7:
                    if half:
                        length = src[half] >> 4
                        half = 0
                    else:
                        length = src[pos] & 15
                        half = pos
                        pos += 1
                    if length == 15:
                        length = src[pos]
                        pos += 1
                        if length == 255:
                            length = u16[pos]
                            pos += 2
                            if length == 0:
                                length = u16[pos] | u16[pos + 2] << 16
                                pos += 4
                            if length < 22 or len(out) + length + 3 > limit:
                                return None
                            length -= 22
                        length += 15
                    length += 7
                end = back + length + 3
                if end < 0:
                    out += out[back:end]
                else:  # overlapping: the last `distance` bytes repeat
                    whole, rest = divmod(length + 3, -back)
                    pattern = out[back:]
                    out += pattern * whole + pattern[:rest]
            if tail:
                out += src[pos : pos + tail]
                pos += tail
        if len(out) > limit:
            return None
    return pos, half


def _careful(src: bytes, limit: int, out: bytearray, pos: int, half: int) -> bytes:
    """Decode from ``pos`` (the start of a flag word) to the end, onto ``out``; ``half``
    is the position of a half-used length byte, 0 when none."""
    have = len(out)  # kept by hand: this loop runs once per token
    n = len(src)
    flags = 0
    count = 0  # flag bits not yet used
    while pos < n:
        if count == 0:
            if pos + 4 > n:
                raise LzxpressError(pos, "the flag word is cut short")
            flags = _U32(src, pos)[0]
            pos += 4
            count = 32
        # The leading zero bits are literals: copy them in one slice.
        literals = count - (flags & ((1 << count) - 1)).bit_length()
        if literals:
            end = pos + literals
            if end > n:
                end = n
            out += src[pos:end]
            have += end - pos
            count -= end - pos
            pos = end
            if have > limit:
                raise LzxpressError(pos, f"the output grows beyond {limit} bytes")
            if count == 0 or pos >= n:
                continue
        count -= 1
        if pos + 2 > n:
            if pos == n:
                break  # a final match flag with nothing after it ends the data
            raise LzxpressError(pos, "a match is cut short")
        token = _U16(src, pos)[0]
        pos += 2
        length = token & 7
        distance = (token >> 3) + 1
        if length == 7:
            if half == 0:
                if pos >= n:
                    raise LzxpressError(pos, "a match length is cut short")
                length = src[pos] & 15
                half = pos
                pos += 1
            else:
                length = src[half] >> 4
                half = 0
            if length == 15:
                if pos >= n:
                    raise LzxpressError(pos, "a match length is cut short")
                length = src[pos]
                pos += 1
                if length == 255:
                    if pos + 2 > n:
                        raise LzxpressError(pos, "a match length is cut short")
                    length = _U16(src, pos)[0]
                    pos += 2
                    if length == 0:
                        if pos + 4 > n:
                            raise LzxpressError(pos, "a match length is cut short")
                        length = _U32(src, pos)[0]
                        pos += 4
                    if length < 22:
                        raise LzxpressError(pos, f"match length {length} is too small")
                    length -= 22
                length += 15
            length += 7
        length += 3
        if distance > have:
            raise LzxpressError(pos, f"a match reaches {distance} bytes back, {have} exist")
        start = have - distance
        have += length
        if have > limit:
            raise LzxpressError(pos, f"the output grows beyond {limit} bytes")
        if distance >= length:
            out += out[start : start + length]
        else:  # overlapping: the last `distance` bytes repeat
            pattern = out[start:]
            whole, rest = divmod(length, distance)
            out += pattern * whole + pattern[:rest]
    return bytes(out)
