"""Rendering every output of a message text file in memory, and encoding text files."""

from __future__ import annotations

from ..record import Record
from ..wevt.msgtable import encode_table
from ..wevt.rc import encode_text as encode_text  # one place for mc's -cp encodings
from .header import HeaderStyle, render_header
from .model import MessageFile
from .options import McTextOptions
from .resources import entries, render_dbg, render_rc, table_file


class McOutputs(Record):
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
