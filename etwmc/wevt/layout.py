"""Where an offset lies in a CRIM blob: for reports that compare two blobs.

:func:`block_at` walks the CRIM header, the provider directory, each WEVT block and its
element descriptors, and names the innermost part holding an offset, e.g.
``"provider 1 (WEVT @0x390) / EVNT @0x510"``.  It never raises: a damaged blob gives
the best answer it can (``"CRIM header"``, ``"outside the CRIM blob"``...).
"""

from __future__ import annotations

import struct

KIND_NAMES = {
    0: "LEVL", 1: "TASK", 2: "OPCO", 3: "KEYW", 4: "EVNT", 5: "CHAN", 6: "MAPS", 7: "TTBL",
    8: "QTAB", 9: "FLTR", 10: "CTRT", 11: "EVTF", 12: "EVTA", 13: "PRVA",
}  # fmt: skip


def _u32(b: bytes, off: int) -> int | None:
    if off < 0 or off + 4 > len(b):
        return None
    return int(struct.unpack_from("<I", b, off)[0])


def block_at(blob: bytes, offset: int) -> str:
    """A short description of the part of ``blob`` that holds byte ``offset``."""
    size = _u32(blob, 4)
    count = _u32(blob, 12)
    if blob[:4] != b"CRIM" or size is None or count is None:
        return "not a CRIM blob"
    if offset >= size:
        return "after the CRIM block (trailing bytes)"
    if offset < 16:
        return "CRIM header"
    if offset < 16 + 20 * count:
        return f"provider directory entry {(offset - 16) // 20}"
    for i in range(min(count, 4096)):
        start = _u32(blob, 16 + 20 * i + 16)
        if start is None:
            break
        wsize = _u32(blob, start + 4)
        n = _u32(blob, start + 12)
        if wsize is None or n is None or not start <= offset < start + wsize:
            continue
        where = f"provider {i} (WEVT @0x{start:x})"
        if offset < start + 16:
            return where + " / WEVT header"
        spans: list[tuple[int, str]] = []
        for j in range(min(n, 64)):
            kind = _u32(blob, start + 16 + 8 * j)
            at = _u32(blob, start + 16 + 8 * j + 4)
            if kind is not None and at is not None:
                spans.append((at, KIND_NAMES.get(kind, f"kind {kind}")))
        spans.sort()
        best = None
        for at, name in spans:
            if at <= offset:
                best = (at, name)
        if best is None:
            return where + " / element descriptors"
        return where + f" / {best[1]} @0x{best[0]:x}"
    return "between provider blocks"


def first_difference(got: bytes, expected: bytes) -> int | None:
    """The first offset where the two differ (the shorter length if one is a prefix)."""
    n = min(len(got), len(expected))
    for i in range(n):
        if got[i] != expected[i]:
            return i
    return None if len(got) == len(expected) else n


def explain_difference(got: bytes, expected: bytes, *, context: int = 16) -> str:
    """A report of the first differing byte of two CRIM blobs: offset, block, both byte runs."""
    i = first_difference(got, expected)
    if i is None:
        return "identical"
    lo = max(0, i - context)
    return (
        f"first difference at offset 0x{i:x} ({i}) in {block_at(expected, i)}; "
        f"lengths {len(got)} (got) vs {len(expected)} (expected)\n"
        f"  got      @0x{lo:x}: {got[lo : i + context].hex(' ')}\n"
        f"  expected @0x{lo:x}: {expected[lo : i + context].hex(' ')}"
    )
