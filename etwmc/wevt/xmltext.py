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

import re

_CHAR_RANGES = "\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff"
_NOT_XML_CHAR = re.compile(f"[^{_CHAR_RANGES}]")

_NAME_START = (
    "A-Z_a-z\xc0-\xd6\xd8-\xf6\xf8-\u02ff\u0370-\u037d\u037f-\u1fff\u200c-\u200d"
    "\u2070-\u218f\u2c00-\u2fef\u3001-\ud7ff\uf900-\ufdcf\ufdf0-\ufffd\U00010000-\U000effff"
)
_NAME_REST = _NAME_START + r"\-.0-9\xb7\u0300-\u036f\u203f-\u2040"
_NCNAME = f"[{_NAME_START}][{_NAME_REST}]*"
_NCNAME_RE = re.compile(_NCNAME)
_QNAME_RE = re.compile(f"(?:{_NCNAME}:)?{_NCNAME}")

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
_URI_REFERENCE_RE = re.compile(
    f"(?:[A-Za-z][A-Za-z0-9+\\-.]*:{_HIER}|{_RELATIVE}){_QUERY_FRAGMENT}"
)


def first_bad_char(text: str) -> int | None:
    """The index of the first character XML text cannot hold, or None."""
    m = _NOT_XML_CHAR.search(text)
    return m.start() if m else None


def is_ncname(name: str) -> bool:
    return _NCNAME_RE.fullmatch(name) is not None


def is_qname(name: str) -> bool:
    return _QNAME_RE.fullmatch(name) is not None


def is_uri_reference(text: str) -> bool:
    return _URI_REFERENCE_RE.fullmatch(text) is not None


def utf16_offset(text: str, index: int) -> int:
    """The byte offset of ``text[index]`` in the UTF-16LE encoding of ``text``."""
    return 2 * index + 2 * sum(1 for c in text[:index] if ord(c) > 0xFFFF)


def describe(ch: str) -> str:
    """A character as a message shows it: ``U+0001``."""
    return f"U+{ord(ch):04X}"
