"""Reading the manifest tree: elements by local name, and attribute values as text.

Pure functions; nothing here reports a diagnostic (the callers decide what an
unreadable value means).  The rules they apply:

* Elements are matched by local name in any namespace; comments and processing
  instructions are skipped.  Where the format lets elements of other namespaces in as
  extensions (a provider's sections, ``<events>``' providers, ``<channels>``,
  ``<localization>``'s resources), only those in the parent's own namespace are read
  (:func:`own_children`): mc skips the others, and so must the model (a mistyped ``xmlns``
  on ``<templates>`` is ETW143's warning, and the section is not compiled).
* Numbers are decimal (with an optional leading ``+``, as ``xs:unsignedInt`` allows) or
  ``0x``-hex; GUIDs are 36 characters, optionally in braces; booleans are true for
  ``true`` and ``1``.
* ``$(string.ID)`` (and ``$(mc.ID)``, in the spellings mc accepts): the id runs to the
  *last* ``)``.
* QNames resolve through the in-scope namespace prefixes; an unprefixed name is in the
  default namespace.  The prefixes ``win`` and ``xs`` resolve to winmeta and XML Schema
  even when undeclared (as mc does); any other undeclared prefix is the schema's to
  report, and names using it stay distinct.
* A ``count`` or ``length`` is a constant when it starts with a digit and reads as a
  number, and otherwise names another field.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Mapping

from lxml import etree

from .. import winmeta as wm
from ..model import Extent, QName


def local(elem: etree._Element) -> str:
    tag = elem.tag
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def children(elem: etree._Element, name: str | None = None) -> Iterator[etree._Element]:
    """``elem``'s child elements named ``name`` (any, when None) in any namespace."""
    # lxml filters by tag itself; "{*}" matches any namespace and none.
    found: Iterator[etree._Element] = elem.iterchildren("{*}" + (name if name is not None else "*"))
    return found


def own_children(elem: etree._Element, name: str | None = None) -> Iterator[etree._Element]:
    """``elem``'s child elements named ``name`` (any, when None) in ``elem``'s own
    namespace: at an extension point, an element of another namespace is skipped."""
    tag = elem.tag
    ns = tag[: tag.index("}") + 1] if isinstance(tag, str) and tag.startswith("{") else ""
    found: Iterator[etree._Element] = elem.iterchildren(ns + (name if name is not None else "*"))
    return found


def children_of(section: etree._Element | None, name: str | None) -> Iterable[etree._Element]:
    return () if section is None else children(section, name)


def parse_int(text: str | None) -> int | None:
    """Decimal or 0x-hex, as the manifest's UIntN unions allow; None when unreadable."""
    if text is None:
        return None
    if text.isdigit() and text.isascii():  # most numbers: plain decimal, nothing around
        return int(text)
    t = text.strip()
    try:
        if t[:2] in ("0x", "0X"):
            return int(t[2:], 16) if t[2:] else None
        digits = t[1:] if t[:1] == "+" else t  # xs:unsignedInt allows a leading plus
        if not digits.isascii() or not digits.isdigit():
            return None
        return int(digits, 10)
    except ValueError:
        return None


def parse_guid(text: str | None) -> uuid.UUID | None:
    if not text:
        return None
    t = text.strip()
    if t.startswith("{") and t.endswith("}"):
        t = t[1:-1]
    if len(t) != 36:
        return None
    try:
        return uuid.UUID(t)
    except ValueError:
        return None


def parse_bool(text: str | None, default: bool = False) -> bool:
    if text is None:
        return default
    return text.strip() in ("true", "1")


def string_ref(text: str | None) -> str | None:
    """The string id of ``$(string.ID)``: everything up to the *last* ``)``, so ids with
    spaces and parentheses (``$(string.map_Names (S))``) resolve as mc resolves them."""
    if text is None:
        return None
    t = text.strip()
    # Each head ends at its only '.', so the text up to the first '.' is the head if any.
    head = t[: t.find(".") + 1]
    if head not in _STRING_REF_HEADS:
        return None
    end = t.rfind(")", len(head))
    return t[len(head) : end] if end >= 0 else None


_STRING_REF_HEADS = frozenset(("$(string.", "$(String.", "$(mc.", "$(MC.", "$(Mc.", "$(mC."))


def qname(nsmap: Mapping[str | None, str], text: str) -> QName:
    """``text`` as (namespace URI, local name), read with the prefixes of ``nsmap``."""
    text = text.strip()
    prefix, sep, name = text.rpartition(":")
    if not sep:
        return (nsmap.get(None, ""), text)
    uri = nsmap.get(prefix)
    if uri is None:
        if prefix == "win":
            return (wm.WIN_NS, name)
        if prefix == "xs":
            return (wm.XS_NS, name)
        # The schema reports undeclared prefixes (ETW128); keep the name distinct.
        return ("prefix:" + prefix, name)
    return (uri, name)


def extent(text: str | None) -> Extent:
    """A ``count`` or ``length`` attribute: a constant, the name of a field, or None."""
    if text is None:
        return None
    t = text.strip()
    v = parse_int(t) if t[:1].isdigit() else None
    return v if v is not None else t
