"""Reading a message text file: bytes -> source lines, as mc reads them.

A byte-order mark decides the encoding by itself: UTF-16LE (``FF FE``) or UTF-8
(``EF BB BF``).  Without one the file is UTF-16LE when mc's ``-u`` says so, and text
in the ANSI code page otherwise (``-a``, mc's default: the build machine's code page,
which etwmc takes as an option, 1252 unless told).  UTF-16BE and UTF-32 are refused, as
mc refuses them.

Lines end with LF or CR LF.  A NUL, or a carriage return that does not end a line, is
refused (ETW901): C compilers end a line at a lone CR, so one inside a message text
would end the header's ``//`` comment that quotes it.
"""

from __future__ import annotations

import codecs

from ..codes import E_MC_CHARACTER, E_MC_ENCODING
from ..diagnostics import Diagnostic, Span, diag
from ..record import Record

DEFAULT_CODE_PAGE = "cp1252"


class Source(Record):
    """The decoded lines of one file (line ends removed) and how it was decoded."""

    path: str
    lines: tuple[str, ...]
    encoding: str  # "utf-16-le", "utf-8" or a code page codec


def codec_for(code_page: str | int) -> str:
    """The Python codec of a Windows code page number (1252, 932, 65001) or codec name;
    raises LookupError for one Python does not know."""
    text = str(code_page).strip().lower()
    name = "utf-8" if text == "65001" else f"cp{text}" if text.isdigit() else text
    return codecs.lookup(name).name


def decode(
    data: bytes, path: str, *, unicode: bool = False, code_page: str = DEFAULT_CODE_PAGE
) -> tuple[Source | None, list[Diagnostic]]:
    """The file's lines, or None and the diagnostic that says why it cannot be read."""
    if data.startswith((codecs.BOM_UTF32_LE, codecs.BOM_UTF32_BE)):
        return None, [_refuse(path, "UTF-32")]
    if data.startswith(codecs.BOM_UTF16_BE):
        return None, [_refuse(path, "UTF-16 big-endian")]
    if data.startswith(codecs.BOM_UTF16_LE):
        encoding, body = "utf-16-le", data[2:]
    elif data.startswith(codecs.BOM_UTF8):
        encoding, body = "utf-8", data[3:]
    elif unicode:
        encoding, body = "utf-16-le", data
    elif _looks_utf16(data):
        return None, [
            diag(
                E_MC_ENCODING,
                Span(path, 1, 1),
                "the file looks like UTF-16LE without a byte-order mark (every other byte is "
                "0), but is read as ANSI text",
                hint="give -u, as mc needs for such a file, or save it with a byte-order mark",
            )
        ]
    else:
        encoding, body = code_page, data
    try:
        text = body.decode(encoding)
    except UnicodeDecodeError as exc:
        return None, [_undecodable(path, body, encoding, exc)]
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()  # the file ends with a line end
    out: list[str] = []
    problems: list[Diagnostic] = []
    for number, line in enumerate(lines, 1):
        if line.endswith("\r"):
            line = line[:-1]
        bad = next((i for i, ch in enumerate(line) if ch in "\r\0"), None)
        if bad is not None:
            problems.append(_bad_character(path, number, bad, line[bad]))
        out.append(line)
    return Source(path, tuple(out), encoding), problems


def _looks_utf16(data: bytes) -> bool:
    """ASCII text in UTF-16LE: a NUL after every character of the first line or so."""
    head = data[:64]
    return len(head) >= 8 and head[1::2].count(0) == len(head[1::2]) and 0 not in head[0::2]


def _refuse(path: str, what: str) -> Diagnostic:
    return diag(
        E_MC_ENCODING,
        Span(path, 1, 1),
        f"the file is {what} (it starts with that byte-order mark); mc reads message text "
        "files in the ANSI code page, UTF-8 with a byte-order mark or UTF-16LE",
        hint="save the file as UTF-16LE or UTF-8 with a byte-order mark",
    )


def _undecodable(path: str, body: bytes, encoding: str, exc: UnicodeDecodeError) -> Diagnostic:
    good = body[: exc.start].decode(encoding, "replace")
    line = good.count("\n") + 1
    col = len(good) - (good.rfind("\n") + 1) + 1
    if encoding == "utf-16-le":
        what = "UTF-16LE"
        hint = (
            "a file without a byte-order mark is read as UTF-16LE only with -u: "
            "leave -u out for an ANSI file"
            if exc.reason == "truncated data"
            else "save the file as UTF-16LE"
        )
    elif encoding == "utf-8":
        what, hint = "UTF-8", "save the file as UTF-8 (its byte-order mark says it is)"
    else:
        what = f"code page {encoding}"
        hint = "give the code page the file was written in, or save it as UTF-16LE with -u"
    byte = body[exc.start : exc.start + 1].hex().upper()
    return diag(
        E_MC_ENCODING,
        Span(path, line, col),
        f"byte 0x{byte} at offset {exc.start} is not {what} text ({exc.reason})",
        hint=hint,
    )


def _bad_character(path: str, line: int, index: int, ch: str) -> Diagnostic:
    if ch == "\0":
        what = "a NUL character"
        hint = "remove it: a message text or comment cannot hold a NUL"
    else:
        what = "a carriage return that does not end the line"
        hint = "end lines with LF or CR LF; a lone CR would end the header's comment early"
    return diag(E_MC_CHARACTER, Span(path, line, index + 1), f"the line holds {what}", hint=hint)
