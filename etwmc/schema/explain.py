"""Turn libxml2's schema errors into etwmc diagnostics with plain-words messages.

libxml2 reports each problem as ``Element '{ns}event', attribute 'valu': ...`` with a
line and the path of the node.  This module finds the element the error is about,
looks up what the schema allows there (:mod:`etwmc.schema.index`), and words one
diagnostic per problem:

* several libxml2 errors about the same attribute value (a union type reports each
  member) become one diagnostic;
* an undeclared namespace prefix is reported once per prefix, at its first use, with
  the number of other uses;
* anything not recognised keeps libxml2's own text (code ETW199), never a traceback.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable

from lxml import etree

from ..codes import (
    E_BAD_BOOL,
    E_BAD_ENUM,
    E_BAD_GUID,
    E_BAD_HEX,
    E_BAD_MESSAGE_REF,
    E_BAD_NUMBER,
    E_BAD_QNAME,
    E_BAD_SYMBOL,
    E_BAD_VALUE,
    E_MISSING_ATTR,
    E_MISSING_CHILD,
    E_ORDER,
    E_SCHEMA,
    E_TEXT,
    E_TOO_MANY,
    E_UNDECLARED_PREFIX,
    E_UNKNOWN_ATTR,
    E_UNKNOWN_ELEMENT,
    Code,
)
from ..diagnostics import Diagnostic, Span, diag
from ..parse import Document
from ..winmeta import EVENTS_NS
from .index import UNBOUNDED, SchemaIndex
from .targets import Target, local, namespace

_MESSAGE = re.compile(
    r"^Element '(?P<elem>[^']*)'(?:, attribute '(?P<attr>[^']*)')?: (?P<text>.*)$", re.S
)
_XSI_TYPE = "{http://www.w3.org/2001/XMLSchema-instance}type"
_UNDECLARED = "has no corresponding namespace declaration in scope"
# An approximation of XML's QName for wording messages (libxml2 made the decision).
_NCNAME = r"[^\W\d][\w.-]*"
_QNAME = re.compile(rf"(?:{_NCNAME}:)?{_NCNAME}")

_NUMBER_RANGES = {
    "UInt8Type": "0 to 255",
    "UInt16Type": "0 to 65535",
    "UInt32Type": "0 to 4294967295",
    "UInt64Type": "0 to 18446744073709551615",
    "xs:unsignedByte": "0 to 255",
    "xs:unsignedShort": "0 to 65535",
    "xs:unsignedInt": "0 to 4294967295",
    "xs:unsignedLong": "0 to 18446744073709551615",
}
_VALUE_ERRORS = (
    "SCHEMAV_CVC_DATATYPE",
    "SCHEMAV_CVC_PATTERN",
    "SCHEMAV_CVC_ENUMERATION",
    "SCHEMAV_CVC_LENGTH",
    "SCHEMAV_CVC_MAX",
    "SCHEMAV_CVC_MIN",
    "SCHEMAV_CVC_TOTAL",
    "SCHEMAV_CVC_FRACTION",
)
UNKNOWN_ATTRS_SHOWN = 10  # per element; the rest are summed up in one diagnostic
_HEX_DIGITS = {"HexInt8Type": 2, "HexInt16Type": 4, "HexInt32Type": 8, "HexInt64Type": 16}


def _elements(parent: etree._Element) -> list[etree._Element]:
    return list(parent.iterchildren(etree.Element))


_STEP = re.compile(r"([^\[]+)(?:\[(\d+)\])?")


def resolve(
    root: etree._Element,
    path: str | None,
    children: dict[etree._Element, list[etree._Element]] | None = None,
) -> etree._Element | None:
    """Follow a libxml2 node path (``/*/*[2]/x:foo``) from the validated root.  A
    ``*`` step counts all element siblings; a named step counts same-named ones.
    ``children`` caches child lists between calls (large <events> lists)."""
    if not path or not path.startswith("/"):
        return None
    steps = path.split("/")[2:]  # "", then the root itself
    cache = children if children is not None else {}
    node = root
    for step in steps:
        m = _STEP.fullmatch(step)
        if m is None:
            return None
        name, index = m.group(1), int(m.group(2) or 1)
        kids = cache.get(node)
        if kids is None:
            kids = cache[node] = _elements(node)
        if name != "*":
            prefix, _, want = name.rpartition(":")
            kids = [k for k in kids if local(k.tag) == want and (k.prefix or "") == prefix]
        if not 0 < index <= len(kids):
            return None
        node = kids[index - 1]
    return node


def _by_line(root: etree._Element, line: int, name: str) -> etree._Element | None:
    for elem in root.iter():
        if isinstance(elem.tag, str) and elem.sourceline == line and local(elem.tag) == name:
            return elem
    return None


def _names_from_root(root: etree._Element, elem: etree._Element) -> list[str]:
    names = [local(elem.tag)]
    node = elem
    while node is not root:
        parent = node.getparent()
        if parent is None:
            break
        names.append(local(parent.tag))
        node = parent
    return names[::-1]


def _show(elem: etree._Element) -> str:
    tag = elem.tag
    if namespace(tag) in ("", EVENTS_NS) or not elem.prefix:
        return f"<{local(tag)}>"
    return f"<{elem.prefix}:{local(tag)}>"


def _listing(names: Iterable[str]) -> str:
    return ", ".join(names) or "none"


def _close(word: str, choices: Iterable[str]) -> str | None:
    found = difflib.get_close_matches(word, list(choices), n=1, cutoff=0.6)
    return f"did you mean '{found[0]}'?" if found else None


class Explainer:
    """Collects the diagnostics for one document, one validated target at a time."""

    def __init__(self, doc: Document, index: SchemaIndex) -> None:
        self.doc = doc
        self.index = index
        self.out: list[Diagnostic] = []
        self._seen_values: set[tuple[etree._Element, str]] = set()
        self._prefixes: dict[str, list[tuple[etree._Element, str, str]]] = {}
        self._children: dict[etree._Element, list[etree._Element]] = {}
        # Unknown attributes per element: the first few are reported one by one, the
        # rest counted into one diagnostic (a generated file can carry thousands).
        self._unknown_attrs: dict[etree._Element, list[str]] = {}

    # ------------------------------------------------------------------ entry points

    def add(self, target: Target, entries: Iterable[etree._LogEntry]) -> None:
        for entry in entries:
            m = _MESSAGE.match(entry.message or "")
            if m is None:
                self._other(entry, None)
                continue
            elem = resolve(target.root, entry.path, self._children)
            if elem is None or local(elem.tag) != local(m.group("elem")):
                elem = _by_line(target.root, entry.line, local(m.group("elem")))
            if elem is None:
                self._other(entry, None)
                continue
            names = _names_from_root(target.root, elem)
            self._one(target, elem, names, m.group("attr"), m.group("text"), entry)

    def finish(self) -> list[Diagnostic]:
        for elem, names in self._unknown_attrs.items():
            if len(names) > UNKNOWN_ATTRS_SHOWN:
                rest = names[UNKNOWN_ATTRS_SHOWN:]
                shown = ", ".join(rest[:3]) + (", ..." if len(rest) > 3 else "")
                self.out.append(
                    diag(
                        E_UNKNOWN_ATTR,
                        self.doc.span(elem),
                        f"{_show(elem)} has {len(rest)} more attributes that are not allowed "
                        f"on it ({shown})",
                        hint="remove them",
                    )
                )
        for prefix, uses in sorted(self._prefixes.items()):
            elem, attr, value = uses[0]
            # Every prefixed token counts as a use (keywords lists hold several).
            tokens = [t for _, _, v in uses for t in v.split() if t.startswith(f"{prefix}:")]
            more = len(tokens) - 1
            tail = f"; it is used {more} more time{'s' if more != 1 else ''}" if more else ""
            self.out.append(
                diag(
                    E_UNDECLARED_PREFIX,
                    self.doc.span(elem, attr),
                    f"{attr} '{value}' on {_show(elem)} uses the prefix '{prefix}', which is "
                    f"not declared{tail}",
                    hint=f'declare it (xmlns:{prefix}="...") on the root element, or drop '
                    "the prefix",
                    attr=attr,
                )
            )
        return self.out

    # ---------------------------------------------------------------------- dispatch

    def _one(
        self,
        target: Target,
        elem: etree._Element,
        names: list[str],
        attr: str | None,
        text: str,
        entry: etree._LogEntry,
    ) -> None:
        kind = entry.type_name
        orig = target.original(elem)
        if kind in ("SCHEMAV_CVC_COMPLEX_TYPE_3_2_1", "SCHEMAV_CVC_COMPLEX_TYPE_3_2_2") and attr:
            self._unknown_attr(orig, names, attr)
        elif kind == "SCHEMAV_CVC_COMPLEX_TYPE_4":
            m = re.search(r"attribute '([^']*)' is required", text)
            self._missing_attr(orig, m.group(1) if m else "?")
        elif kind == "SCHEMAV_ELEMENT_CONTENT" and text.startswith("Missing child"):
            self._missing_child(orig, text)
        elif kind == "SCHEMAV_ELEMENT_CONTENT":
            self._unexpected(target, elem, names)
        elif "Character content" in text:
            self._text(orig, empty="type is empty" in text)
        elif "Element content is not allowed" in text:
            kids = _elements(elem)
            child = target.original(kids[0]) if kids else orig
            self.out.append(
                diag(
                    E_UNKNOWN_ELEMENT,
                    self.doc.span(child),
                    f"{_show(orig)} takes no child elements; found {_show(child)}",
                )
            )
        elif attr is not None or kind.startswith(_VALUE_ERRORS):
            self._value(orig, names, attr, text)
        else:
            self._other(entry, orig)

    # ------------------------------------------------------------------- attributes

    def _unknown_attr(self, elem: etree._Element, names: list[str], attr: str) -> None:
        seen = self._unknown_attrs.setdefault(elem, [])
        seen.append(_attr_name(elem, attr))
        if len(seen) > UNKNOWN_ATTRS_SHOWN:
            return
        decl = self.index.type_of_path(names)
        allowed = list(decl.attrs) if decl else []
        shown = _attr_name(elem, attr)
        if namespace(attr) == EVENTS_NS:
            message = (
                f"attribute '{shown}' is in the manifest namespace, which defines no such "
                f"attribute on {_show(elem)}"
            )
        else:
            message = f"attribute '{shown}' is not allowed on {_show(elem)}"
        message += f"; allowed: {_listing(allowed)}"
        self.out.append(
            diag(
                E_UNKNOWN_ATTR,
                self.doc.span(elem, shown),
                message,
                hint=_close(local(attr), allowed),
                attr=shown,
            )
        )

    def _missing_attr(self, elem: etree._Element, attr: str) -> None:
        self.out.append(
            diag(
                E_MISSING_ATTR,
                self.doc.span(elem),
                f"{_show(elem)} is missing the required attribute '{attr}'",
                hint=f'add {attr}="..."',
            )
        )

    # -------------------------------------------------------------------- elements

    def _missing_child(self, elem: etree._Element, text: str) -> None:
        wanted = _expected_names(text)
        if wanted:
            what = f"<{wanted[0]}>" if len(wanted) == 1 else "one of " + _listing(wanted)
        elif "##other" in text:
            what = "an element in its own XML namespace"
        else:
            what = "more child elements"
        message = f"{_show(elem)} must contain {what}"
        self.out.append(diag(E_MISSING_CHILD, self.doc.span(elem), message))

    def _text(self, elem: etree._Element, *, empty: bool) -> None:
        if empty and _only_whitespace(elem):
            # XSD forbids even whitespace in an element of empty content; mc accepts
            # it (line breaks and indentation between a start and an end tag).
            return
        takes = "it takes only attributes" if empty else "only child elements"
        self.out.append(
            diag(
                E_TEXT,
                self.doc.span(elem),
                f"{_show(elem)} cannot contain text; {takes}",
                hint="remove the text, or turn it into an XML comment <!-- ... -->",
            )
        )

    def _unexpected(self, target: Target, elem: etree._Element, names: list[str]) -> None:
        orig = target.original(elem)
        parent = elem.getparent()
        span = self.doc.span(orig)
        if parent is None:
            self.out.append(diag(E_UNKNOWN_ELEMENT, span, f"{_show(orig)} is not expected here"))
            return
        where = _show(target.original(parent))
        decl = self.index.type_of_path(names[:-1])
        name, ns = local(elem.tag), namespace(elem.tag)
        allowed = list(decl.children) if decl else []
        if decl is None or name not in decl.children or ns != EVENTS_NS:
            if decl is not None and decl.other_elements:
                allowed.append("elements of other namespaces")
            message = f"{_show(orig)} is not allowed in {where}; allowed: {_listing(allowed)}"
            hint = _close(name, allowed)
            if decl is not None and decl.other_elements and not decl.children:
                hint = 'give it its own namespace, e.g. xmlns="urn:company:product:events"'
            if name in allowed and ns != EVENTS_NS:
                message = (
                    f"{_show(orig)} is in the namespace '{ns or '(none)'}', not in the manifest "
                    f"namespace, so it is not allowed in {where}"
                )
                hint = f"write it in the manifest namespace {EVENTS_NS}"
            self.out.append(diag(E_UNKNOWN_ELEMENT, span, message, hint=hint))
            return
        siblings = _elements(parent)
        position = siblings.index(elem)
        same = [
            s for s in siblings[: position + 1] if local(s.tag) == name and namespace(s.tag) == ns
        ]
        limit = decl.max_occurs.get(name, UNBOUNDED)
        if len(same) > limit:
            many = "once" if limit == 1 else f"{limit} times"
            self.out.append(
                diag(E_TOO_MANY, span, f"{_show(orig)} may occur only {many} in {where}")
            )
        elif position + 1 > decl.group_max:
            self.out.append(
                diag(
                    E_TOO_MANY,
                    span,
                    f"{where} holds at most {decl.group_max} entries; {_show(orig)} is entry "
                    f"number {position + 1}",
                    hint=f"a provider can define and import at most {decl.group_max} channels"
                    if name in ("channel", "importChannel")
                    else None,
                )
            )
        elif decl.ordered:
            before = _show(target.original(siblings[position - 1])) if position else None
            after = f" after {before}" if before else ""
            self.out.append(
                diag(
                    E_ORDER,
                    span,
                    f"{_show(orig)} cannot come{after} in {where}; the order is "
                    f"{', then '.join(decl.order)}",
                )
            )
        else:
            self.out.append(
                diag(E_UNKNOWN_ELEMENT, span, f"{_show(orig)} is not expected here in {where}")
            )

    # ----------------------------------------------------------------------- values

    def _value(self, elem: etree._Element, names: list[str], attr: str | None, text: str) -> None:
        key = (elem, attr or "")
        if attr is not None and _UNDECLARED in text:
            m = re.search(r"QName value '([^':]*):", text)
            if m and key not in self._seen_values:
                self._seen_values.add(key)
                uses = self._prefixes.setdefault(m.group(1), [])
                uses.append((elem, _attr_name(elem, attr), elem.get(attr) or ""))
            return
        if key in self._seen_values:
            return
        self._seen_values.add(key)
        type_name = self._declared_type(names, attr)
        value = (elem.get(attr) if attr is not None else elem.text) or ""
        if attr is not None:
            what = f"{_attr_name(elem, attr)} '{value}' on {_show(elem)}"
        else:
            what = f"the value '{value.strip()}' of {_show(elem)}"
        span = self.doc.span(elem, _attr_name(elem, attr) if attr else None)
        c, message, hint = _word_value(type_name, what, value, self.index)
        if attr == _XSI_TYPE:
            c, message = E_BAD_VALUE, f"{what} tries to give the element another type"
            hint = "remove xsi:type; manifest elements have fixed types"
        if c is None:
            c, message = E_BAD_VALUE, f"{what} is not valid: {_clean(text)}"
        self.out.append(
            diag(c, span, message, hint=hint, attr=_attr_name(elem, attr) if attr else None)
        )

    def _declared_type(self, names: list[str], attr: str | None) -> str | None:
        if attr is not None:
            decl = self.index.type_of_path(names)
            found = decl.attrs.get(attr) if decl else None
            return found.type if found else None
        parent = self.index.type_of_path(names[:-1])
        return parent.children.get(names[-1]) if parent else None

    def _other(self, entry: etree._LogEntry, elem: etree._Element | None) -> None:
        span = self.doc.span(elem) if elem is not None else _line_span(self.doc, entry.line)
        self.out.append(diag(E_SCHEMA, span, _clean(entry.message or "schema error")))


def _word_value(
    type_name: str | None, what: str, value: str, index: SchemaIndex
) -> tuple[Code | None, str, str | None]:
    if type_name is None:
        return None, "", None
    if type_name == "GUIDType":
        bare = value.strip().strip("{}")
        hint = (
            f"write it with braces: {{{bare}}}"
            if re.fullmatch(r"[0-9a-fA-F]{8}(-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}", bare)
            else None
        )
        return (
            E_BAD_GUID,
            f"{what} is not a GUID in registry form {{xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}}",
            hint,
        )
    if type_name in _HEX_DIGITS:
        digits = _HEX_DIGITS[type_name]
        # ASCII digits only: str.isdigit() takes "²", which int() refuses.
        decimal = re.fullmatch(r"\s*([0-9]+)\s*", value)
        hint = f"write it as 0x{int(decimal[1]):X}" if decimal else None
        return (
            E_BAD_HEX,
            f"{what} is not a hexadecimal number written 0x followed by 1 to {digits} hex digits",
            hint,
        )
    if type_name in _NUMBER_RANGES:
        hex_ok = "" if type_name.startswith("xs:") else ", in decimal or as 0x hex"
        limits = _NUMBER_RANGES[type_name]
        return E_BAD_NUMBER, f"{what} is not a whole number from {limits}{hex_ok}", None
    if type_name == "CSymbolType":
        fixed = re.sub(r"\W", "_", value, flags=re.ASCII)
        fixed = "_" + fixed if fixed[:1].isdigit() else fixed
        return (
            E_BAD_SYMBOL,
            f"{what} is not a C identifier (letters, digits and _, not starting with a digit)",
            f"for example '{fixed}'" if fixed else None,
        )
    if type_name == "xs:boolean":
        return E_BAD_BOOL, f"{what} is not a boolean; write true, false, 1 or 0", None
    if type_name in index.enumerations:
        allowed = index.enumerations[type_name]
        hint = next((f"write '{a}'" for a in allowed if a.lower() == value.strip().lower()), None)
        return E_BAD_ENUM, f"{what} is not one of: {_listing(allowed)}", hint
    if type_name == "strTableRef":
        return (
            E_BAD_MESSAGE_REF,
            f"{what} is not a string-table reference",
            'write $(string.SomeId) and define <string id="SomeId" value="..."/> in the '
            "<stringTable>",
        )
    if type_name in ("xs:QName", "QNameList"):
        bad = [t for t in value.split() if not _QNAME.fullmatch(t)]
        if type_name == "QNameList" and bad:
            what = f"'{bad[0]}' in {what}"
        return (
            E_BAD_QNAME,
            f"{what} is not a valid XML name (a letter or '_' first, then letters, digits, "
            "'_', '-' or '.', optionally after a declared prefix such as win:)",
            None,
        )
    return None, "", None


def _only_whitespace(elem: etree._Element) -> bool:
    texts = [elem.text, *(child.tail for child in elem)]
    return all(not t or not t.strip(" \t\r\n") for t in texts)


def _expected_names(text: str) -> list[str]:
    m = re.search(r"Expected is(?: one of)? \((.*)\)", text)
    if m is None:
        return []
    names = []
    for part in m.group(1).split(","):
        part = part.strip()
        if part.startswith("##other"):
            continue
        names.append(local(part) if part.startswith("{") else part)
    return [n for n in names if n]


def _attr_name(elem: etree._Element, attr: str) -> str:
    """An attribute name as written: libxml2 reports a qualified one as {uri}name."""
    uri = namespace(attr)
    if not uri:
        return attr
    for prefix, bound in (elem.nsmap or {}).items():
        if bound == uri and prefix:
            return f"{prefix}:{local(attr)}"
    return attr


def _clean(message: str) -> str:
    # libxml2 writes qualified names in Clark notation; the manifest namespace is noise.
    return message.replace(f"{{{EVENTS_NS}}}", "").strip()


def _line_span(doc: Document, line: int) -> Span:
    return Span(doc.path, line or 0)
