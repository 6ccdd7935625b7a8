"""LZXpress (MS-XCA "plain LZ77") decompression with a hard output limit.

ETW writes compressed trace buffers in this format.  The decoder here exists beside the
container library's own because a trace is untrusted input: one match token can ask
for gigabytes of output, so every match is checked against ``limit`` (the buffer's
declared uncompressed size) before it is copied.  It also copies runs of literals and
non-overlapping matches as slices, which makes it about twice as fast.

Format: a little-endian u32 of flags, read most significant bit first: 0 is a literal
byte, 1 a match.  A match is a u16: offset - 1 in the high 13 bits, length - 3 in the
low 3; length 7 continues in a shared half byte (two matches use one byte, low nibble
first), 15 there continues in a byte, 255 in a u16, and a u16 of 0 in a u32 (these
hold length - 3 with the 7 + 15 already counted).
"""

from __future__ import annotations

import struct

_U16 = struct.Struct("<H").unpack_from
_U32 = struct.Struct("<I").unpack_from


class LzxpressError(ValueError):
    """The compressed data is malformed; ``offset`` is where in it the problem is."""

    def __init__(self, offset: int, message: str) -> None:
        super().__init__(message)
        self.offset = offset


def decompress(src: bytes, limit: int) -> bytes:
    """Decompress ``src``; raise :class:`LzxpressError` on malformed data or when the
    output would grow beyond ``limit`` bytes."""
    out = bytearray()
    have = 0  # len(out), kept by hand: this loop runs once per match
    n = len(src)
    pos = 0
    flags = 0
    count = 0  # flag bits not yet used
    half = 0  # position of a half-used length byte, 0 when none
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
