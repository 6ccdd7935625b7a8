"""MESSAGETABLE resources (RT_MESSAGETABLE, type 11): writer and reader.

Layout (MESSAGE_RESOURCE_DATA): u32 block count; per block (u32 low id, u32 high id,
u32 offset of its first entry from the start of the resource); then the entries of all
blocks in id order: u16 length (header and padding included), u16 flags (0 = ANSI, in a
code page; 1 = UTF-16LE; 2 = UTF-8), the text, its NUL terminator (one byte, two for
UTF-16) and zero bytes up to a multiple of 4.  mc writes every manifest string as
UTF-16LE text + ``"\\r\\n"`` + NUL, with each line feed of the string written as CR LF
(:func:`etwmc.msgformat.table_text`); a message text file's texts are stored as written
(:mod:`etwmc.mctext`), in any of the three encodings.  Ids are sorted; a block is a run
of consecutive ids.  :func:`encode_table` writes entries of any encoding;
:func:`encode_messages` is the manifest's case.

Only strings some item refers to get an entry (plus ``<messageTable>`` entries and the
winmeta texts of the predefined items used).  One table per ``<resources culture>``,
with the same ids in every culture.
"""

from __future__ import annotations

import itertools
import struct
from collections.abc import Iterable, Mapping

from ..model import Manifest, Resources
from ..msgformat import table_text
from ..msgids import MessageIds, message_ids
from .crim import utf16
from .xmltext import describe, first_bad_char, utf16_offset

MESSAGE_RESOURCE_ANSI = 0
MESSAGE_RESOURCE_UNICODE = 1
MESSAGE_RESOURCE_UTF8 = 2
_SUFFIX = "\r\n\0"
# The largest entry a u16 length holds, header and padding included.
MAX_ENTRY = 0xFFFC


class MessageTableError(ValueError):
    """A message table that cannot be read; the message says what is wrong and where."""


def _entry_text(text: str) -> bytes:
    data = utf16(text + _SUFFIX)
    return data + b"\0" * (-len(data) % 4)


# Manifest strings this long or shorter always fit: table_text at most doubles a text,
# a character takes at most two UTF-16 code units, and the entry adds its suffix, at
# most 3 bytes of padding and its 4-byte header: 8 * n + 19 <= 0xFFFF.
_ALWAYS_FITS = (0xFFFF - 19) // 8


def fits(text: str) -> bool:
    """Whether manifest string ``text`` fits in one message table entry (u16 length,
    header included)."""
    if len(text) <= _ALWAYS_FITS:
        return True
    return len(_entry_text(table_text(text))) + 4 <= 0xFFFF


# One entry: its flags and its encoded text with the terminator, not yet padded.  A
# plain pair: this module is on the path of every lint, which must stay cheap to start.
TableEntry = tuple[int, bytes]


def entry_size(entry: TableEntry) -> int:
    """An entry's length field: header, text, terminator and padding."""
    return (4 + len(entry[1]) + 3) & ~3


def text_entry(
    text: str, flags: int = MESSAGE_RESOURCE_UNICODE, codec: str = "cp1252"
) -> TableEntry:
    """The entry storing ``text`` exactly (line ends included) in the encoding ``flags``
    names; ``codec`` is the code page of an ANSI entry.  Raises UnicodeEncodeError when
    the code page cannot hold the text."""
    if flags == MESSAGE_RESOURCE_UNICODE:
        return flags, utf16(text + "\0")
    if flags == MESSAGE_RESOURCE_UTF8:
        return flags, (text + "\0").encode("utf-8")
    return flags, text.encode(codec) + b"\0"


_COUNT = struct.Struct("<I")
_BLOCK = struct.Struct("<III")  # low id, high id, offset of its first entry
_ENTRY_HEADER = struct.Struct("<HH")  # length, flags
_PADDING = (b"", b"\0", b"\0\0", b"\0\0\0")


def encode_table(entries: Mapping[int, TableEntry]) -> bytes:
    """A message table holding ``entries`` (id -> entry); raises
    :class:`MessageTableError` for an entry longer than a u16 length allows."""
    ids = sorted(entries)
    return _table(ids, [entries[mid] for mid in ids])


def encode_messages(messages: Mapping[int, str]) -> bytes:
    """A message table holding ``messages`` (id -> text as stored, see
    :func:`culture_messages`)."""
    ids = sorted(messages)
    unicode = MESSAGE_RESOURCE_UNICODE
    return _table(ids, [(unicode, utf16(messages[mid] + _SUFFIX)) for mid in ids])


def _table(ids: list[int], entries: list[TableEntry]) -> bytes:
    """The table of ``entries`` (flags, encoded text with its terminator) for the
    sorted ``ids``."""
    # A block is a run of consecutive ids: counted first, so that every offset is
    # known as its entry is written.
    runs = sum(1 for a, b in itertools.pairwise(ids) if b != a + 1) + 1 if ids else 0
    blocks = [_COUNT.pack(runs)]
    parts: list[bytes] = []
    offset = _COUNT.size + _BLOCK.size * runs
    low = at = 0
    previous = -2  # no id follows it: the first id starts a block
    for mid, entry in zip(ids, entries, strict=True):
        flags, data = entry
        size = entry_size(entry)
        if size > MAX_ENTRY:
            raise MessageTableError(f"message 0x{mid:08X} is too long for a message table entry")
        if mid != previous + 1:
            if previous >= 0:
                blocks.append(_BLOCK.pack(low, previous, at))
            low, at = mid, offset
        previous = mid
        parts += (_ENTRY_HEADER.pack(size, flags), data, _PADDING[size - 4 - len(data)])
        offset += size
    if ids:
        blocks.append(_BLOCK.pack(low, previous, at))
    return b"".join(blocks + parts)


def culture_messages(manifest: Manifest, res: Resources, ids: MessageIds) -> dict[int, str]:
    """Id -> text of every referenced string in one culture, as the table stores it."""
    out: dict[int, str] = {}
    for sid, mid in ids.strings.items():
        s = res.strings.get(sid)
        if s is not None:
            out.setdefault(mid, table_text(s.value))
    for mid, text in ids.winmeta.items():
        out.setdefault(mid, text)
    return out


def build_tables(manifest: Manifest, ids: MessageIds | None = None) -> list[tuple[str, bytes]]:
    """[(culture, message table)] in the manifest's order of ``<resources>``."""
    if ids is None:
        ids = message_ids(manifest)
    return [
        (res.culture, encode_messages(culture_messages(manifest, res, ids)))
        for res in manifest.resources
    ]


# --------------------------------------------------------------------------- reader


def read_message_table(data: bytes, *, xml_text: bool = False) -> dict[int, str]:
    """Decode a message table into id -> text as stored (the trailing ``\r\n`` and NULs
    removed; :func:`etwmc.msgformat.source_text` gives the manifest string).

    Raises :class:`MessageTableError` for anything malformed: truncation, offsets or
    lengths outside the data, blocks with low > high, overlapping ids, entries whose
    length is smaller than their header, text that is not valid for its encoding.
    A message table may hold any text; ``xml_text`` also refuses text that an XML
    document cannot hold (a control character), for a reader that writes XML.
    """
    buf = memoryview(bytes(data))
    size = len(buf)
    if size < 4:
        raise MessageTableError(
            f"message table is {size} bytes long, too short for its header at offset 0"
        )
    (nblocks,) = struct.unpack_from("<I", buf, 0)
    if nblocks > (size - 4) // 12:
        raise MessageTableError(
            f"message table claims {nblocks} blocks (at offset 0) but only {size} bytes are present"
        )
    blocks = [struct.unpack_from("<III", buf, 4 + 12 * b) for b in range(nblocks)]
    # Each entry takes at least 4 bytes: more ids than that cannot be real (and a hostile
    # table could otherwise make us walk billions of ids).
    room = (size - 4 - 12 * nblocks) // 4
    total = 0
    for b, (lo, hi, _) in enumerate(blocks):
        if lo > hi:
            raise MessageTableError(
                f"block {b} at offset {4 + 12 * b}: low id 0x{lo:08X} is above high id 0x{hi:08X}"
            )
        total += hi - lo + 1
        if total > room:
            raise MessageTableError(
                f"the blocks up to block {b} at offset {4 + 12 * b} hold {total} or more ids, "
                f"but {size} bytes have room for {room}"
            )
    out: dict[int, str] = {}
    for lo, hi, off in blocks:
        for mid in range(lo, hi + 1):
            if off + 4 > size:
                raise MessageTableError(
                    f"message 0x{mid:08X}: entry at offset {off} lies outside the table "
                    f"({size} bytes)"
                )
            length, flags = struct.unpack_from("<HH", buf, off)
            if length < 4 or off + length > size:
                raise MessageTableError(
                    f"message 0x{mid:08X}: entry length {length} at offset {off} is invalid"
                )
            raw = bytes(buf[off + 4 : off + length])
            try:
                if flags & MESSAGE_RESOURCE_UNICODE:
                    if len(raw) % 2:
                        raw = raw[:-1]
                    text = raw.decode("utf-16-le")
                elif flags & MESSAGE_RESOURCE_UTF8:
                    text = raw.decode("utf-8")
                else:
                    # ANSI text is in an unknown code page: show what cannot be mapped.
                    text = raw.decode("cp1252", errors="replace")
            except UnicodeDecodeError as exc:
                raise MessageTableError(
                    f"message 0x{mid:08X}: text is not valid {exc.encoding.upper()} ({exc.reason}) "
                    f"at offset {off + 4 + exc.start}"
                ) from None
            bad = first_bad_char(text.rstrip("\0")) if xml_text else None
            if bad is not None:
                at = (
                    off + 4 + (utf16_offset(text, bad) if flags & MESSAGE_RESOURCE_UNICODE else bad)
                )
                raise MessageTableError(
                    f"message 0x{mid:08X}: character {describe(text[bad])} at offset {at} "
                    "is not allowed in XML text"
                )
            if mid in out:
                raise MessageTableError(
                    f"message id 0x{mid:08X} at offset {off} appears in more than one block"
                )
            out[mid] = _strip(text)
            off += length
    return out


def _strip(text: str) -> str:
    text = text.rstrip("\0")
    return text[:-2] if text.endswith("\r\n") else text


def texts(tables: Iterable[tuple[str, bytes]]) -> dict[str, dict[int, str]]:
    """Culture -> decoded table, for a list from :func:`build_tables`."""
    return {culture: read_message_table(data) for culture, data in tables}
