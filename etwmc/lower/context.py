"""The state one lowering run carries, and the attribute readers that report.

Rules applied here:

* A number or GUID attribute that cannot be read falls back to its default and is
  reported (``ETW200``), with the form that would be right as the hint; lowering never
  raises on bad input.
* Every diagnostic points at the element's start tag, or at the attribute when one is
  named.
"""

from __future__ import annotations

import uuid

from lxml import etree

from ..codes import E_VALUE, Code
from ..diagnostics import Diagnostic, diag
from ..model import Resources
from ..parse import Document
from .attributes import local, parse_guid, parse_int


class Lowering:
    """One run over one document: the diagnostics found so far, and what the
    ``$(string.ID)`` references read so far need checked (:mod:`.strings`)."""

    def __init__(self, doc: Document) -> None:
        self.doc = doc
        self.diags: list[Diagnostic] = []
        # The string tables are read before anything that references them, so each
        # reference is checked as it is read: the primary culture (None when the
        # manifest has no string table), the ids it answers, and the first reference
        # read when there is no table to answer it.
        self.primary: Resources | None = None
        self.used_strings: set[str] = set()
        self.first_string_ref: tuple[str, etree._Element, str] | None = None

    def error(
        self,
        c: Code,
        elem: etree._Element,
        msg: str,
        *,
        attr: str | None = None,
        hint: str | None = None,
    ) -> None:
        self.diags.append(diag(c, self.doc.span(elem, attr), msg, attr=attr, hint=hint))

    def int_attr(self, elem: etree._Element, attr: str, default: int | None = None) -> int | None:
        text = elem.get(attr)
        if text is None:
            return default
        v = parse_int(text)
        if v is None:
            self.error(
                E_VALUE,
                elem,
                f'{attr}="{text}" on <{local(elem)}> is not a number',
                attr=attr,
                hint="write a decimal number or 0x followed by hex digits",
            )
            return default
        return v

    def number(self, elem: etree._Element, attr: str, text: str | None) -> int:
        """``text``, the value of ``elem``'s ``attr`` already read, as a number: 0 when
        it is absent or unreadable (which is reported, as :meth:`int_attr` does)."""
        if text is None:
            return 0
        if text.isdigit() and text.isascii():  # most numbers: plain decimal
            return int(text)
        return self.int_attr(elem, attr, 0) or 0

    def guid_attr(self, elem: etree._Element, attr: str) -> uuid.UUID | None:
        text = elem.get(attr)
        if text is None:
            return None
        g = parse_guid(text)
        if g is None:
            self.error(
                E_VALUE,
                elem,
                f'{attr}="{text}" is not a GUID',
                attr=attr,
                hint="write a GUID in braces: {xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx}",
            )
        return g
