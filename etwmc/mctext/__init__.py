"""Message text files (``.mc``): what mc.exe reads, and what it writes from them.

Reading with source places, a frozen model, then outputs rendered in memory:

* :func:`read` / :func:`read_file`: bytes -> :class:`~etwmc.mctext.model.MessageFile`
  and diagnostics (ETW9xx; :mod:`.source`, :mod:`.parser`, :mod:`.checks`);
* :func:`build`: the model -> :class:`McOutputs`, every file as text or bytes: the C
  header (:mod:`.header`), the .rc, one message table per language and the .dbg of
  ``-x`` (:mod:`.resources`); :mod:`.combine` joins them with a manifest's when mc
  compiles both in one run;
* :func:`encode_text`: a text output in the encoding of mc's ``-cp``.

The input is untrusted: decoding is strict, work is linear in its size, every problem
is a diagnostic with a place, and no text of it can leave a comment of the header, a
quoted name of the .rc or a line of a report (see each module).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import Diagnostic, has_errors
from ..parse import read_bytes
from ..wevt.msgtable import (
    MESSAGE_RESOURCE_ANSI,
    MESSAGE_RESOURCE_UNICODE,
    MESSAGE_RESOURCE_UTF8,
    encode_table,
)
from .checks import check
from .header import HeaderStyle, render_header
from .model import MessageFile
from .parser import ParseOptions, parse
from .resources import TableStyle, entries, render_dbg, render_rc, table_file
from .source import DEFAULT_CODE_PAGE, codec_for, decode

__all__ = [
    "MESSAGE_RESOURCE_ANSI",
    "MESSAGE_RESOURCE_UNICODE",
    "MESSAGE_RESOURCE_UTF8",
    "McOutputs",
    "McTextOptions",
    "MessageFile",
    "build",
    "codec_for",
    "encode_text",
    "read",
    "read_file",
]


@dataclass(frozen=True, slots=True)
class McTextOptions:
    """mc's switches that change what a message text file gives.

    ``unicode_input``: ``-u`` (UTF-16LE without a byte-order mark).  ``code_page``:
    the ANSI code page of the build machine, for ANSI input and ``-A`` tables (a
    codec name, :func:`codec_for`).  ``customer_bit``: ``-c``.  ``decimal``: ``-d``
    (decimal severity and facility values, and message ids until an OutputBase).
    ``ole2``: ``-o``.  ``table_flags``: ``-A`` / ``-U`` / ``-U8``.
    ``final_line_end``: False with ``-n``.  ``max_length``: ``-m``.
    """

    unicode_input: bool = False
    code_page: str = DEFAULT_CODE_PAGE
    customer_bit: bool = False
    decimal: bool = False
    ole2: bool = False
    table_flags: int = MESSAGE_RESOURCE_UNICODE
    final_line_end: bool = True
    max_length: int | None = None

    @property
    def table_style(self) -> TableStyle:
        return TableStyle(self.table_flags, self.code_page, self.final_line_end)


def read(
    data: bytes, path: str, options: McTextOptions | None = None
) -> tuple[MessageFile | None, list[Diagnostic]]:
    """The model of a message text file and its diagnostics (the model is None when
    the file cannot be decoded)."""
    options = options or McTextOptions()
    source, diags = decode(data, path, unicode=options.unicode_input, code_page=options.code_page)
    if source is None:
        return None, diags
    model, problems = parse(source, ParseOptions(options.customer_bit, options.decimal))
    diags += problems
    diags += check(model, options.table_style, options.max_length)
    return model, diags


def read_file(
    path: str | Path, options: McTextOptions | None = None
) -> tuple[MessageFile | None, list[Diagnostic]]:
    data, diags = read_bytes(path)
    if data is None:
        return None, diags
    return read(data, str(path), options)


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


def usable(diags: list[Diagnostic]) -> bool:
    """Whether outputs may be built."""
    return not has_errors(diags)
