"""Python literals for manifest text: the only way text reaches a generated module.

:func:`pystr` and :func:`pybytes` turn any text or bytes into an ASCII Python literal
spelled exactly as black spells it (double quotes unless single quotes need fewer
escapes; lowercase hex escapes), so manifest text only ever reaches the output inside
a string literal, and every literal is checked against the grammar of what it may
contain before it is used.
"""

from __future__ import annotations

import re


def _escape(s: str, quote: str) -> str:
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o < 0x100:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    return "".join(out)


def escaped(s: str, quote: str) -> str:
    """``s`` as the inside of a literal delimited by ``quote``: printable ASCII but for
    ``quote`` and the backslash, which are escaped, as is everything else."""
    if _UNESCAPED[quote].fullmatch(s):
        return s  # what _escape gives, without its per-character loop: most text
    return _escape(s, quote)


# Printable ASCII but for the quote and the backslash: what _escape leaves as it is.
_UNESCAPED = {'"': re.compile(r"[ !#-\[\]-~]*"), "'": re.compile(r"[ -&(-\[\]-~]*")}


def _quote(s: str) -> str:
    # black keeps double quotes unless single quotes need fewer backslashes.
    return "'" if s.count("'") < s.count('"') else '"'


# What a literal made here can contain: one closed string token of printable ASCII and
# the escapes above.  Every literal is checked against it, so none can end early and
# let text after it become code (checked, not assumed: the check is cheap).
_ESCAPES = r"\\(?:[\\nrt]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})"
_SAFE = {
    '"': re.compile(rf'b?"(?:[ !#-\[\]-~]|\\"|{_ESCAPES})*"'),
    "'": re.compile(rf"b?'(?:[ -&(-\[\]-~]|\\'|{_ESCAPES})*'"),
}


def _checked(literal: str, quote: str) -> str:
    if not _SAFE[quote].fullmatch(literal):
        raise ValueError(f"unsafe literal {literal!r}")  # a bug in _escape, never input
    return literal


def pystr(s: str) -> str:
    """An ASCII ``str`` literal for ``s``, as black prints it."""
    # Printable ASCII without double quotes or backslashes needs no escape, and takes
    # double quotes: most names and texts.
    if s.isascii() and s.isprintable() and '"' not in s and "\\" not in s:
        return f'"{s}"'  # what the general path gives, without its per-character loop
    q = _quote(s)
    return _checked(f"{q}{_escape(s, q)}{q}", q)


def pybytes(b: bytes) -> str:
    """An ASCII ``bytes`` literal for ``b``, as black prints it."""
    text = b.decode("latin-1")
    q = _quote(text)
    return _checked(f"b{q}{_escape(text, q)}{q}", q)
