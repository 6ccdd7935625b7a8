"""Manifest text -> C tokens: identifiers, comments, string literals, numbers.

No manifest text reaches the header except through these functions:

* :func:`sanitize` turns a name into an identifier the way mc does (a leading digit
  becomes ``_``, then every character outside ``[A-Za-z0-9_]`` becomes ``_``; a
  character outside the Basic Multilingual Plane counts twice, as mc counts UTF-16
  units).  The result is always ``[A-Za-z_][A-Za-z0-9_]*`` or empty.
* :func:`comment` makes text safe inside a ``//`` comment: only printable ASCII other
  than ``\\`` and ``?`` passes (a trailing backslash, or the trigraph ``??/``, would
  continue the comment onto the next line); anything else is written ``<U+XXXX>``.
* :func:`c_string` writes bytes as one C string literal: printable ASCII other than
  ``"``, ``\\`` and ``?`` as itself, every other byte as a three-digit octal escape
  (which can never run into the next character).
* :func:`is_identifier` checks a manifest ``symbol``; the schema already restricts
  symbols to C identifiers, the generator checks again rather than assume it.
"""

from __future__ import annotations

import re
import uuid

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_WORD = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_")

# C (C23) and C++ (C++23) keywords, C++ alternative operator spellings and the names
# the preprocessor reserves: a symbol spelled like one of these cannot name a macro or
# an object in a header that must compile as both languages.
KEYWORDS = frozenset(
    """alignas alignof and and_eq asm auto bitand bitor bool break case catch char
    char8_t char16_t char32_t class compl concept const const_cast consteval constexpr
    constinit continue co_await co_return co_yield decltype default defined delete do
    double dynamic_cast else enum explicit export extern false float for friend goto if
    inline int long mutable namespace new noexcept not not_eq nullptr operator or or_eq
    private protected public register reinterpret_cast requires restrict return short
    signed sizeof static static_assert static_cast struct switch template this
    thread_local throw true try typedef typeid typename typeof typeof_unqual union
    unsigned using virtual void volatile wchar_t while xor xor_eq _Alignas _Alignof
    _Atomic _BitInt _Bool _Complex _Decimal32 _Decimal64 _Decimal128 _Generic
    _Imaginary _Noreturn _Pragma _Static_assert _Thread_local __VA_ARGS__ __VA_OPT__
    __cplusplus __FILE__ __LINE__ __DATE__ __TIME__ __STDC__""".split()
)


def sanitize(text: str) -> str:
    """mc's identifier rule (see the module docstring); may return ``""`` for ``""``."""
    out: list[str] = []
    leading = True
    for ch in text:
        if leading and "0" <= ch <= "9":
            out.append("_")
            continue
        leading = False
        if ch in _WORD:
            out.append(ch)
        else:
            out.append("__" if ord(ch) > 0xFFFF else "_")
    return "".join(out)


def is_identifier(text: str) -> bool:
    return bool(_IDENT.match(text))


def usable_symbol(text: str) -> bool:
    """A C identifier that is no keyword: a name the header can define."""
    return is_identifier(text) and text not in KEYWORDS


def comment(text: str) -> str:
    """Text that cannot end or extend a ``//`` comment line."""
    out: list[str] = []
    for ch in text:
        o = ord(ch)
        if 0x20 <= o < 0x7F and ch not in "\\?":
            out.append(ch)
        else:
            out.append(f"<U+{o:04X}>")
    return "".join(out)


def c_string(data: bytes) -> str:
    """One C string literal holding exactly ``data`` (no terminator added)."""
    out: list[str] = ['"']
    for b in data:
        if 0x20 <= b < 0x7F and b not in b'"\\?':
            out.append(chr(b))
        else:
            out.append(f"\\{b:03o}")
    out.append('"')
    return "".join(out)


def hex_bytes(data: bytes) -> str:
    """A C string literal of ``\\xNN`` escapes (how mc spells the binary traits)."""
    return '"' + "".join(f"\\x{b:02X}" for b in data) + '"'


def guid_initializer(g: uuid.UUID) -> str:
    """``{0x........, 0x...., 0x...., {0x.., ...}}`` for a GUID constant."""
    f = g.fields
    tail = g.bytes[8:]
    return (
        f"{{0x{f[0]:08x}, 0x{f[1]:04x}, 0x{f[2]:04x}, {{"
        + ", ".join(f"0x{b:02x}" for b in tail)
        + "}}"
    )


def hexnum(value: int) -> str:
    """A number as mc writes it in #defines and initializers (``0x1f``)."""
    return f"0x{value:x}"
