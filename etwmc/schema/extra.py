"""Structural rules next to the XSD: constructs the schema accepts because real
manifests use them (or because the format's extension points let them through), but
that mc rejects or silently ignores.

* ``<valueMap>``/``<bitMap>`` directly inside ``<provider>`` instead of ``<maps>``
  (warning; perfview's test manifests do this);
* a ``<map message="...">`` with literal text instead of ``$(string.ID)`` in such a
  map (warning): etwmc does not read those maps, so the text cannot break a compile.
  In a map inside ``<maps>`` the same text is the lowering's error ETW412 (the item
  would have no text), reported there alone: one problem, one diagnostic;
* the task-grouped event form ``<events><task><opcode><event>`` of the first SDKs,
  which mc has rejected since the Windows 7 SDK (error);
* an element with the name of a manifest element but in another namespace, where the
  format allows extension elements: it is skipped by mc and etwmc alike, which is
  almost always a mistyped ``xmlns`` (warning).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from typing import TYPE_CHECKING

from lxml import etree

from ..codes import (
    E_TASK_GROUPED_EVENTS,
    W_FOREIGN_NAMESPACE,
    W_LITERAL_MAP_MESSAGE,
    W_MAP_OUTSIDE_MAPS,
)
from ..diagnostics import Diagnostic, diag
from ..parse import Document
from ..winmeta import EVENTS_NS
from .targets import local, namespace

if TYPE_CHECKING:
    from .index import SchemaIndex

_STRING_REF = re.compile(r"\$\(([Ss]tring|[Mm][Cc])\..*\)")
_NS = f"{{{EVENTS_NS}}}"
# Elements outside the manifest namespace whose parent is inside it.  Name tests
# (self::e:*, parent::e:*) cost libxml2 less per element than namespace-uri() calls.
_FOREIGN = etree.XPath(
    "descendant-or-self::*[not(self::e:*)][parent::e:*]", namespaces={"e": EVENTS_NS}
)


def structure_rules(
    doc: Document, index: Callable[[], SchemaIndex], declared: Callable[[], Collection[str]]
) -> list[Diagnostic]:
    """The rules above.  ``index`` gives the schema's index and ``declared`` the element
    names the schema declares: only an element in another namespace needs them, and the
    index only one with a declared name (so most documents never have it read)."""
    out: list[Diagnostic] = []
    for events in doc.events:
        for provider in events.iterchildren(f"{_NS}provider"):
            out.extend(_maps(doc, provider))
            out.extend(_task_grouped(doc, provider))
    out.extend(_foreign(doc, index, declared))
    return out


def _maps(doc: Document, provider: etree._Element) -> list[Diagnostic]:
    out = []
    for item in provider.iterchildren(f"{_NS}valueMap", f"{_NS}bitMap"):
        out.append(
            diag(
                W_MAP_OUTSIDE_MAPS,
                doc.span(item),
                f"<{local(item.tag)}> is directly inside <provider>; mc expects it inside <maps>",
                hint="wrap the maps in <maps>...</maps>",
            )
        )
    for group in provider.iterchildren(f"{_NS}valueMap", f"{_NS}bitMap"):
        for item in group.iter(f"{_NS}map"):
            message = item.get("message")
            if message is not None and not _STRING_REF.fullmatch(message):
                out.append(
                    diag(
                        W_LITERAL_MAP_MESSAGE,
                        doc.span(item, "message"),
                        f"message '{message}' on <map> is literal text; mc requires a "
                        "string-table reference $(string.ID)",
                        hint="move the text into the <stringTable> and refer to it",
                        attr="message",
                    )
                )
    return out


def _task_grouped(doc: Document, provider: etree._Element) -> list[Diagnostic]:
    return [
        diag(
            E_TASK_GROUPED_EVENTS,
            doc.span(task),
            "events grouped as <events><task><opcode><event> are the form of the first "
            "SDKs, which mc no longer accepts",
            hint="write each event as <event value=... task=... opcode=...>",
        )
        for defs in provider.iterchildren(f"{_NS}events")
        for task in defs.iterchildren(f"{_NS}task")
    ]


def _foreign(
    doc: Document, index: Callable[[], SchemaIndex], declared: Callable[[], Collection[str]]
) -> list[Diagnostic]:
    out = []
    roots = [doc.root] if not doc.wrapped else list(doc.events)
    for root in roots:
        for elem in _FOREIGN(root):
            # A name the schema declares nowhere is no child of any type (UserData's
            # own elements, mostly): nothing to look up.
            if local(elem.tag) not in declared():
                continue
            chain, node = [], elem.getparent()
            while node is not None and node is not root:
                chain.append(local(node.tag))
                node = node.getparent()
            decl = index().type_of_path([local(root.tag), *reversed(chain)])
            # Only where the schema let it through as an extension; elsewhere the XSD
            # has already reported it.
            if decl is None or not decl.other_elements or local(elem.tag) not in decl.children:
                continue
            name = local(elem.tag)
            shown = f"{elem.prefix}:{name}" if elem.prefix else name
            hint = (
                f"write <{name}> without the '{elem.prefix}:' prefix"
                if elem.prefix
                else f'use xmlns="{EVENTS_NS}" (or no xmlns, to inherit it)'
            )
            out.append(
                diag(
                    W_FOREIGN_NAMESPACE,
                    doc.span(elem),
                    f"<{shown}> is in the namespace '{namespace(elem.tag)}', not the manifest "
                    "namespace, so it is skipped as an extension element",
                    hint=hint,
                )
            )
    return out
