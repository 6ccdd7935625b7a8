"""The trees validated against the schema, and names read from element tags.

For a plain ``<instrumentationManifest>`` the whole document is validated; for a
component manifest ``<assembly>``, each ``<events>`` element on its own, and the
``<localization>`` element, whose elements are in the assembly namespace there, as a
copy moved into the manifest namespace (line numbers are kept).
"""

from __future__ import annotations

import copy
from collections.abc import Callable

from lxml import etree

from ..parse import Document
from ..record import Record
from ..winmeta import ASM_NS, EVENTS_NS


class Target(Record):
    """One validated tree: its root (an element with a global declaration in the
    schema), and how to get from a node of the validated tree to the document's node
    (the localization of a component manifest is validated as a renamed copy)."""

    root: etree._Element
    original: Callable[[etree._Element], etree._Element]


def local(tag: object) -> str:
    return tag.rpartition("}")[2] if isinstance(tag, str) else ""


def namespace(tag: object) -> str:
    return tag[1:].partition("}")[0] if isinstance(tag, str) and tag.startswith("{") else ""


def _same(elem: etree._Element) -> etree._Element:
    return elem


def targets(doc: Document) -> list[Target]:
    """The trees to validate, each with the way back to the document's nodes."""
    if not doc.wrapped:
        return [Target(doc.root, _same)]
    found = [Target(events, _same) for events in doc.events]
    loc = doc.localization
    if loc is not None:
        if namespace(loc.tag) == EVENTS_NS:
            found.append(Target(loc, _same))
        else:
            found.append(_moved_localization(loc))
    return found


def _moved_localization(loc: etree._Element) -> Target:
    """A copy of an assembly-namespace <localization> with its assembly-namespace
    elements moved into the manifest namespace.  deepcopy keeps source lines; the
    copy has the same shape, so nodes pair up in document order."""
    moved = copy.deepcopy(loc)
    pairs: dict[etree._Element, etree._Element] = {}
    for new, old in zip(moved.iter(), loc.iter(), strict=True):
        if isinstance(new.tag, str):
            pairs[new] = old
            if namespace(new.tag) == ASM_NS:
                new.tag = f"{{{EVENTS_NS}}}{local(new.tag)}"
    return Target(moved, lambda elem: pairs.get(elem, loc))
