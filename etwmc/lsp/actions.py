"""Code actions: the quick fixes the diagnostics under the cursor point to.

* A hint "did you mean 'X'?" (an unknown reference, attribute or element): write X in
  place of the name lint found unknown (an element's end tag too).
* A ``$(string.ID)`` that no string defines (ETW408): add ``<string id="ID" value=""/>``
  to the first culture's string table, after its last string (or make the
  ``<localization>`` section when the manifest has none).
* An unused keyword (ETW482), template (ETW480) or map (ETW481): remove its element,
  with its lines when nothing else is written on them.

Fixes are computed on the text the diagnostics were found in and offered only where
the edits since leave it unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..codes import (
    E_UNKNOWN_ATTR,
    E_UNKNOWN_ELEMENT,
    E_UNKNOWN_STRING,
    N_UNUSED_KEYWORD,
    N_UNUSED_MAP,
    W_UNUSED_TEMPLATE,
)
from ..lower.attributes import string_ref
from ..record import Record
from .analysis import Analysis, Problem, View
from .navigate import Edit
from .scan import Attr, Element
from .text import Range

_DID_YOU_MEAN = re.compile(r"did you mean '([^']+)'\?")
_QUOTED = re.compile(r"'([^']+)'")
_UNUSED = {
    N_UNUSED_KEYWORD.id: "keyword",
    W_UNUSED_TEMPLATE.id: "template",
    N_UNUSED_MAP.id: "map",
}


class Action(Record):
    title: str
    edits: tuple[Edit, ...]
    problem: Problem  # in the current text
    preferred: bool = False


def code_actions(view: View, selected: Range) -> list[Action]:
    """The fixes for the diagnostics that touch ``selected`` (a range of the current text)."""
    basis = view.basis
    if basis is None or basis.manifest is None:
        return []
    out: list[Action] = []
    for p in basis.problems:
        shown = view.lines.range(p.range) if view.lines is not None else None
        if shown is None or not _touches(shown, selected):
            continue
        here = Problem(shown, p.diagnostic)
        for title, edits, preferred in _fixes(basis, p):
            moved = [(view.to_current(a, b), text) for a, b, text in edits]
            if all(r is not None for r, _ in moved):
                done = tuple(Edit(r, text) for r, text in moved if r is not None)
                out.append(Action(title, done, here, preferred))
    return out


def _touches(a: Range, b: Range) -> bool:
    return a.start <= b.end and b.start <= a.end


_Fix = tuple[str, list[tuple[int, int, str]], bool]  # title, (start, end, text) edits, preferred


def _fixes(basis: Analysis, p: Problem) -> Iterator[_Fix]:
    d = p.diagnostic
    at = basis.place(d.span)
    if at is None:
        return
    hint = _DID_YOU_MEAN.search(d.hint or "")
    if hint is not None:
        fix = _did_you_mean(basis, at, d.code, d.message, hint.group(1))
        if fix is not None:
            yield fix
    if d.code == E_UNKNOWN_STRING.id:
        fix = _add_string(basis, at)
        if fix is not None:
            yield fix
    if d.code in _UNUSED:
        fix = _remove(basis, at, _UNUSED[d.code])
        if fix is not None:
            yield fix


def _owner(basis: Analysis, at: int) -> tuple[Element | None, Attr | None]:
    """The element whose start tag holds ``at``, and the attribute written at ``at``."""
    elements = basis.scan.at(at)
    if not elements:
        return None, None
    e = elements[-1]
    if not e.start <= at < e.tag_end:
        return None, None
    return e, next((a for a in e.attrs if a.start == at), None)


def _did_you_mean(basis: Analysis, at: int, code: str, message: str, better: str) -> _Fix | None:
    e, a = _owner(basis, at)
    if e is None:
        return None
    title = f"Change to '{better}'"
    if code == E_UNKNOWN_ELEMENT.id and e.start == at:
        edits = [(e.start + 1, e.name_end, better)]
        if e.end_tag >= 0:
            edits.append((e.end_tag + 2, e.end_tag + 2 + len(e.name), better))
        return title, edits, True
    if a is None:
        return None
    if code == E_UNKNOWN_ATTR.id:
        return title, [(a.start, a.start + len(a.name), better)], True
    named = set(_QUOTED.findall(message))
    for start, token in a.tokens():
        if token in named:
            return title, [(start, start + len(token), better)], True
    return None


def _add_string(basis: Analysis, at: int) -> _Fix | None:
    _, a = _owner(basis, at)
    sid = string_ref(a.value) if a is not None else None
    if sid is None:
        return None
    written = sid.replace('"', "&quot;")
    title = f"Add the string '{sid}' to the string table"
    table = _first_string_table(basis)
    text = basis.text
    if table is not None:
        strings = list(table.elements("string"))
        if strings:
            last = strings[-1]
            indent = _indent(text, last.start)
            new = f'\n{indent}<string id="{written}" value=""/>'
            return title, [(last.end, last.end, new)], False
        if table.end_tag >= 0:
            indent = _indent(text, table.start)
            new = f'  <string id="{written}" value=""/>\n{indent}'
            pre = "" if text[: table.end_tag].endswith(("\n", "\r")) else "\n" + indent
            return title, [(table.end_tag, table.end_tag, pre + new)], False
        return None
    root = basis.scan.roots[-1] if basis.scan.roots else None
    if root is None or root.local != "instrumentationManifest" or root.end_tag < 0:
        return None
    if any(root.elements("localization")):
        return None  # a localization section without a string table: left to the author
    section = (
        '  <localization>\n    <resources culture="en-US">\n      <stringTable>\n'
        f'        <string id="{written}" value=""/>\n'
        "      </stringTable>\n    </resources>\n  </localization>\n"
    )
    line_start = text.rfind("\n", 0, root.end_tag) + 1
    if text[line_start : root.end_tag].strip():
        section = "\n" + section
        line_start = root.end_tag
    return title, [(line_start, line_start, section)], False


def _first_string_table(basis: Analysis) -> Element | None:
    for e in basis.scan.walk():
        if e.local == "localization":
            for res in e.elements("resources"):
                return next(res.elements("stringTable"), None)
            return None
    return None


def _indent(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    head = text[line_start:at]
    return head if not head.strip() else ""


def _remove(basis: Analysis, at: int, what: str) -> _Fix | None:
    e, _ = _owner(basis, at)
    if e is None or not e.closed:
        return None
    name = e.get("tid") if what == "template" else e.get("name")
    start, end = _whole_lines(basis.text, e.start, e.end)
    return f"Remove the unused {what} '{name}'", [(start, end, "")], False


def _whole_lines(text: str, start: int, end: int) -> tuple[int, int]:
    """[start, end) widened to whole lines when nothing else is written on them."""
    line_start = max(text.rfind("\n", 0, start), text.rfind("\r", 0, start)) + 1
    line_end = end
    while line_end < len(text) and text[line_end] in " \t":
        line_end += 1
    if text[line_start:start].strip() or (line_end < len(text) and text[line_end] not in "\r\n"):
        return start, end
    if text.startswith("\r\n", line_end):
        return line_start, line_end + 2
    return line_start, min(line_end + 1, len(text))
