"""Go to definition, find references and rename, from the index of a document.

Rules:

* The cursor must be on a name the index knows (a definition or a resolved reference).
* A definition's places are where it is declared: a string id in every culture, a
  channel at its chid or its name (as the reference spells it); a ``win:`` item has
  none in the text.
* References include the declarations when the client asks for them.
* A rename changes the name at every place the index records for the symbol: a
  channel's chid or name (whichever the cursor is on) with the references that use that
  spelling; the part after a prefix of a prefixed name.  It is refused for ``win:``
  items and for an imported channel's name (which names what is imported), for a new
  name that could not stand where the old one does, and when a place is on a line
  changed since the last well-formed version (the edit would be partial).
"""

from __future__ import annotations

import re

from ..record import Record
from .analysis import View
from .index import Occurrence, Symbol
from .text import Range


class RenameRefused(ValueError):
    """A rename that cannot be made; the message says why."""


class Edit(Record):
    range: Range
    new_text: str


def occurrence_at(view: View, offset: int) -> Occurrence | None:
    at = view.to_basis(offset)
    if at is None or view.basis is None:
        return None
    return view.basis.index.at(at)


def _ranges(view: View, found: list[Occurrence], *, renamed: bool = False) -> list[Range]:
    out = []
    for o in found:
        r = view.to_current(o.name_start if renamed else o.start, o.end)
        if r is not None:
            out.append(r)
    return sorted(set(out), key=lambda r: (r.start, r.end))


def definition(view: View, offset: int) -> list[Range]:
    o = occurrence_at(view, offset)
    if o is None or view.basis is None:
        return []
    found = [d for d in view.basis.index.of(o.symbol.key) if d.definition]
    spelled = [d for d in found if d.facet == o.facet]  # a channel's chid, or its name
    return _ranges(view, spelled or found)


def references(view: View, offset: int, include_declaration: bool = True) -> list[Range]:
    o = occurrence_at(view, offset)
    if o is None or view.basis is None:
        return []
    found = view.basis.index.of(o.symbol.key)
    return _ranges(view, [r for r in found if include_declaration or not r.definition])


def prepare_rename(view: View, offset: int) -> tuple[Range, str] | None:
    """The range a rename at ``offset`` replaces and the name written there, or None
    when there is nothing to rename."""
    o = occurrence_at(view, offset)
    if o is None or _refusal(o) is not None or view.basis is None:
        return None
    r = view.to_current(o.name_start, o.end)
    if r is None:
        return None
    return r, view.basis.text[o.name_start : o.end]


def rename(view: View, offset: int, new_name: str) -> list[Edit]:
    o = occurrence_at(view, offset)
    if o is None or view.basis is None:
        raise RenameRefused("there is no manifest name here to rename")
    why = _refusal(o) or _bad_name(o.symbol, new_name)
    if why is not None:
        raise RenameRefused(why)
    places = [p for p in view.basis.index.of(o.symbol.key) if p.facet == o.facet]
    edits = []
    for p in places:
        r = view.to_current(p.name_start, p.end)
        if r is None:
            raise RenameRefused(
                f"'{o.symbol.name}' is also named on lines changed since the manifest was "
                "last well-formed; correct the XML first"
            )
        edits.append(Edit(r, new_name))
    return sorted(set(edits), key=lambda e: (e.range.start, e.range.end))


def _refusal(o: Occurrence) -> str | None:
    sym = o.symbol
    if sym.builtin:
        return f"{sym.name} is predefined by Windows and cannot be renamed"
    channel = sym.node
    if sym.kind == "channel" and o.facet == "name" and getattr(channel, "imported", False):
        return "an imported channel's name says what it imports; rename its chid instead"
    return None


# What no name may hold: markup, quotes and references would change the XML around it.
_FORBIDDEN = re.compile(r"""[<>&"'\x00-\x1f]""")
_LOCAL_NAME = re.compile(r"[^\W\d][\w.-]*\Z")


def _bad_name(sym: Symbol, name: str) -> str | None:
    if not name or name != name.strip():
        return "the new name is empty or starts or ends with a space"
    if _FORBIDDEN.search(name):
        return "the new name holds a character that cannot be written in an attribute"
    if sym.kind == "string":
        return None
    if re.search(r"\s", name):
        return "the new name holds a space; references list names separated by spaces"
    if sym.kind in ("level", "task", "opcode", "keyword") and not _LOCAL_NAME.match(name):
        return (
            f"a {sym.kind} name is an XML name: a letter or '_' first, then letters, digits, "
            "'_', '-' or '.' (and no prefix: the prefix stays as written)"
        )
    return None
