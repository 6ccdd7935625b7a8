"""What text read from a binary may hold before the rest of etwmc sees it.

A WEVT_TEMPLATE blob or a message table written by mc only holds text that came from an
XML manifest, so every string in it is XML text, every name it uses as a qualified name
is one, and every namespace it declares is a URI.  A damaged or hostile blob can hold
anything; the readers check these rules where they read the bytes, so a problem is
reported with its offset instead of failing later (writing XML, printing a report).

- XML text: the ``Char`` production of XML 1.0 (no C0 control but tab, LF and CR, no
  surrogate code point, not U+FFFE or U+FFFF).
- Names: ``NCName`` and ``QName`` of Namespaces in XML 1.0, with the name characters of
  XML 1.0 fifth edition (what libxml2 checks when lxml builds a tree).
- Namespace URIs: a URI reference of RFC 3986, section 4.1.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence

# The characters outside XML 1.0's Char production (a small class: cheap to compile).
_NOT_XML_CHAR = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")

# Name characters of XML 1.0 fifth edition, as sorted code-point ranges (looked up with
# bisect: a regex class this wide takes milliseconds to compile at every start-up).
_NAME_START = (
    (0x3A, 0x3A), (0x41, 0x5A), (0x5F, 0x5F), (0x61, 0x7A), (0xC0, 0xD6), (0xD8, 0xF6),
    (0xF8, 0x2FF), (0x370, 0x37D), (0x37F, 0x1FFF), (0x200C, 0x200D), (0x2070, 0x218F),
    (0x2C00, 0x2FEF), (0x3001, 0xD7FF), (0xF900, 0xFDCF), (0xFDF0, 0xFFFD),
    (0x10000, 0xEFFFF),
)  # fmt: skip
_NAME_MORE = ((0x2D, 0x2E), (0x30, 0x39), (0xB7, 0xB7), (0x300, 0x36F), (0x203F, 0x2040))


def _table(ranges: Sequence[tuple[int, int]]) -> tuple[list[int], list[int]]:
    merged = sorted(ranges)
    return [lo for lo, _ in merged], [hi for _, hi in merged]


_START_TABLE = _table(_NAME_START)
_NAME_TABLE = _table(_NAME_START + _NAME_MORE)


def _in(table: tuple[list[int], list[int]], ch: str) -> bool:
    lows, highs = table
    i = bisect.bisect_right(lows, ord(ch)) - 1
    return i >= 0 and ord(ch) <= highs[i]


# RFC 3986 URI-reference, built from its ABNF.  The IP-literal is read loosely (hex
# digits, ':' and '.'), which only ever accepts less than a full IPv6 grammar would.
_PCT = "%[0-9A-Fa-f]{2}"
_UNRESERVED_SUB = r"A-Za-z0-9\-._~!$&'()*+,;="
_PCHAR = f"(?:[{_UNRESERVED_SUB}:@]|{_PCT})"
_SEGMENT = f"{_PCHAR}*"
_SEGMENT_NZ = f"{_PCHAR}+"
_SEGMENT_NZ_NC = f"(?:[{_UNRESERVED_SUB}@]|{_PCT})+"
_USERINFO = f"(?:[{_UNRESERVED_SUB}:]|{_PCT})*"
_IP_LITERAL = rf"\[(?:[0-9A-Fa-f:.]+|[vV][0-9A-Fa-f]+\.[{_UNRESERVED_SUB}:]+)\]"
_HOST = f"(?:{_IP_LITERAL}|(?:[{_UNRESERVED_SUB}]|{_PCT})*)"
_AUTHORITY = f"(?:{_USERINFO}@)?{_HOST}(?::[0-9]+)?"  # libxml2 wants a port after ":"
_PATH_ABEMPTY = f"(?:/{_SEGMENT})*"
_PATH_ABSOLUTE = f"/(?:{_SEGMENT_NZ}(?:/{_SEGMENT})*)?"
_QUERY_FRAGMENT = f"(?:\\?(?:{_PCHAR}|[/?])*)?(?:#(?:{_PCHAR}|[/?])*)?"
_HIER = f"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_SEGMENT_NZ}(?:/{_SEGMENT})*|)"
_RELATIVE = f"(?://{_AUTHORITY}{_PATH_ABEMPTY}|{_PATH_ABSOLUTE}|{_SEGMENT_NZ_NC}(?:/{_SEGMENT})*|)"
_URI_REFERENCE = f"(?:[A-Za-z][A-Za-z0-9+\\-.]*:{_HIER}|{_RELATIVE}){_QUERY_FRAGMENT}"


def first_bad_char(text: str) -> int | None:
    """The index of the first character XML text cannot hold, or None."""
    m = _NOT_XML_CHAR.search(text)
    return m.start() if m else None


def is_ncname(name: str) -> bool:
    return (
        bool(name)
        and ":" not in name
        and _in(_START_TABLE, name[0])
        and all(_in(_NAME_TABLE, c) for c in name[1:])
    )


def is_qname(name: str) -> bool:
    prefix, sep, local = name.partition(":")
    return is_ncname(prefix) and is_ncname(local) if sep else is_ncname(name)


def is_uri_reference(text: str) -> bool:
    # Compiled on first use (re caches it): only namespace-qualified UserData asks,
    # and compiling it costs milliseconds at every start.
    return re.fullmatch(_URI_REFERENCE, text) is not None


def utf16_offset(text: str, index: int) -> int:
    """The byte offset of ``text[index]`` in the UTF-16LE encoding of ``text``."""
    return 2 * index + 2 * sum(1 for c in text[:index] if ord(c) > 0xFFFF)


def describe(ch: str) -> str:
    """A character as a message shows it: ``U+0001``."""
    return f"U+{ord(ch):04X}"
