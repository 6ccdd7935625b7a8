"""Rendering every output of a message text file in memory, and encoding text files."""

from __future__ import annotations

from dataclasses import dataclass

from ..wevt.msgtable import encode_table
from .header import HeaderStyle, render_header
from .model import MessageFile
from .options import McTextOptions
from .resources import entries, render_dbg, render_rc, table_file


@dataclass(frozen=True, slots=True)
class McOutputs:
    """Every file mc writes for one message text file, in memory.

    ``tables``: file name -> message table, in the .rc's order; ``languages``: (language
    id, file name) of each table, the same order.
    """

    header: str
    rc: str
    tables: dict[str, bytes]
    languages: tuple[tuple[int, str], ...]
    dbg: str


def build(mf: MessageFile, options: McTextOptions, *, base: str, prefixed: bool) -> McOutputs:
    """The outputs of a file :func:`read` found no error in.  ``base`` names the .dbg's
    array and, with ``prefixed`` (mc's ``-b``), the tables."""
    style = options.table_style
    prefix = base if prefixed else None
    tables: dict[str, bytes] = {}
    languages: list[tuple[int, str]] = []
    for lang in mf.used_languages():
        name = table_file(lang, prefix)
        tables[name] = encode_table(entries(mf, lang, style))
        languages.append((lang.value, name))
    return McOutputs(
        header=render_header(mf, HeaderStyle(options.ole2, options.decimal)),
        rc=render_rc(mf, prefix),
        tables=tables,
        languages=tuple(languages),
        dbg=render_dbg(mf, base),
    )


def encode_text(text: str, encoding: str, codec: str, *, rc: bool = False) -> bytes:
    """A text output as mc's ``-cp`` writes it: ``ansi`` in the ANSI code page
    (characters it lacks become ``?``, as Windows converts them), ``utf-8`` and
    ``utf-16`` with a byte-order mark.  mc 10 writes the .rc in UTF-16 when asked for
    UTF-8, since rc.exe reads no UTF-8 (``rc``)."""
    if encoding == "utf-16" or (rc and encoding == "utf-8"):
        return b"\xff\xfe" + text.encode("utf-16-le", "surrogatepass")
    if encoding == "utf-8":
        return b"\xef\xbb\xbf" + text.encode("utf-8", "surrogatepass")
    return text.encode(codec, "replace")
