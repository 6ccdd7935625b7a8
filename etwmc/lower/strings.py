"""Strings: ``$(string.ID)`` references, the ``<localization>`` string tables, and the
``<messageTable>`` entries.

Rules applied here (each reported with its own code):

* A message attribute must be a ``$(string.ID)`` reference (``ETW412``); the id ends at
  the last ``)``.
* Every referenced id must exist in the primary (first) culture (``ETW408``); when the
  manifest has no string table at all, the first reference is reported.  The string
  tables are read first (:func:`localization`), so a reference is checked where it is
  read.
* Another culture missing an id the primary culture defines and the manifest uses gets
  a warning (``ETW409``), one per id in sorted order.
* Duplicate string ids within one culture are errors (``ETW301``); the model keeps the
  first.
"""

from __future__ import annotations

from types import MappingProxyType

from lxml import etree

from ..codes import E_BAD_STRREF, E_DUP_STRING, E_UNKNOWN_STRING, W_MISSING_STRING
from ..diagnostics import diag
from ..model import Message, Resources, String
from .attributes import children, own_children, string_ref
from .context import Lowering


def message_ref(cx: Lowering, elem: etree._Element, attr: str = "message") -> str | None:
    """The string id ``elem``'s ``attr`` references, remembered for :func:`check_string_refs`."""
    text = elem.get(attr)
    if text is None:
        return None
    sid = string_ref(text)
    if sid is None:
        cx.error(
            E_BAD_STRREF,
            elem,
            f'{attr}="{text}" is not a string-table reference',
            attr=attr,
            hint="write $(string.ID) and define ID in the <stringTable>",
        )
        return None
    primary = cx.primary
    if primary is None:
        if cx.first_string_ref is None:
            cx.first_string_ref = (sid, elem, attr)
    elif sid in primary.strings:
        cx.used_strings.add(sid)
    else:
        cx.error(
            E_UNKNOWN_STRING,
            elem,
            f"{attr} references string '{sid}', which culture '{primary.culture}' does not define",
            attr=attr,
            hint=f'add <string id="{sid}" value="..."/> to its <stringTable>',
        )
    return sid


def message(cx: Lowering, elem: etree._Element) -> Message:
    """One ``<message>`` of a ``<messageTable>``."""
    return Message(
        value=cx.int_attr(elem, "value", 0) or 0,
        message=message_ref(cx, elem),
        symbol=elem.get("symbol"),
        mid=elem.get("mid"),
        span=cx.doc.span(elem),
    )


def localization(cx: Lowering) -> tuple[tuple[Resources, ...], str | None]:
    """Each culture's strings, and the fallback culture; the first culture becomes
    ``cx.primary``, which every later reference is checked against."""
    loc = cx.doc.localization
    if loc is None:
        return (), None
    out = []
    span = cx.doc.named_span
    for res in own_children(loc, "resources"):
        strings: dict[str, String] = {}
        for table in children(res, "stringTable"):
            for s in children(table, "string"):
                get = s.get  # a manifest has a string for nearly every item it defines
                sid = get("id")
                if sid is None:
                    continue
                if sid in strings:
                    first = strings[sid].span
                    cx.error(
                        E_DUP_STRING,
                        s,
                        f"string id '{sid}' is defined twice in culture "
                        f"'{res.get('culture')}' (first at line {first.line})",
                        attr="id",
                        hint="give each string a unique id",
                    )
                    continue
                strings[sid] = String(id=sid, value=get("value", ""), span=span(s, "string"))
        out.append(
            Resources(
                culture=res.get("culture", ""),
                strings=MappingProxyType(strings),
                span=cx.doc.span(res),
            )
        )
    if out:
        cx.primary = out[0]
    return tuple(out), loc.get("fallbackCulture")


def check_string_refs(cx: Lowering, resources: tuple[Resources, ...]) -> None:
    """Once every reference is read: report the first when the manifest has no string
    table, and the ids that other cultures lack."""
    if not resources:
        if cx.first_string_ref is not None:
            sid, elem, attr = cx.first_string_ref
            cx.error(
                E_UNKNOWN_STRING,
                elem,
                f"message references string '{sid}' but the manifest has no <localization> "
                "string table",
                attr=attr,
                hint='add <localization><resources culture="en-US"><stringTable> with the strings',
            )
        return
    primary, others = resources[0], resources[1:]
    if not others:
        return
    # The ids the primary culture answers, sorted once for every other culture.
    used = sorted(cx.used_strings)
    for res in others:
        for sid in used:
            if sid not in res.strings:
                cx.diags.append(
                    diag(
                        W_MISSING_STRING,
                        res.span,
                        f"culture '{res.culture}' has no string '{sid}', which "
                        f"'{primary.culture}' defines and the manifest uses",
                        hint=f"add <string id=\"{sid}\" .../> to culture '{res.culture}'",
                    )
                )
