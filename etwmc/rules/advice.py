"""Advice: warnings and notes where mc is silent but a reader would want to know
(ETW290-ETW299, ETW480-ETW499).

* ETW290 (note, once per provider): events without a level are written at level 0
  (win:LogAlways), which every session receives whatever level it asked for.  Often
  meant, sometimes an oversight; one note per provider names how many.
* ETW291 (note, once per provider): events of Admin channels without keywords cannot
  be selected by keyword-filtered sessions; the Event Log documentation recommends
  keywords for them.
* ETW480 (warning): a template no event or filter uses is compiled into the binary
  metadata for nothing, and is usually a leftover of a renamed or removed event.
* ETW481, ETW482 (notes): a map no data item uses, a keyword no event uses.  Only
  notes: providers define keywords as their filtering vocabulary ahead of use, and
  shared maps are often kept for consumers.
* ETW483 (note, once per culture): strings nothing references are compiled into no
  message table; real manifests carry many, so this is only a note listing them.

Keywords in bits 44-47 are deliberately not mentioned: EventSource reserves them for
session keywords, and Microsoft manifests use them.
"""

from __future__ import annotations

from collections.abc import Iterator

from ..codes import (
    N_ADMIN_KEYWORDS,
    N_NO_LEVEL,
    N_UNUSED_KEYWORD,
    N_UNUSED_MAP,
    N_UNUSED_STRING,
    W_UNUSED_TEMPLATE,
)
from ..diagnostics import Diagnostic, diag
from ..guid import guid_hint
from ..model import Manifest
from ..msgids import message_ids
from ._util import event_label, fields_of, plural


def events_without_level(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        missing = [e for e in p.events if e.level is None and "level" not in e.unresolved]
        if missing:
            one = len(missing) == 1
            yield diag(
                N_NO_LEVEL,
                missing[0].span,
                f'{plural(len(missing), "event")} of provider "{p.name}" (the first is '
                f"{event_label(missing[0])}) {'names' if one else 'name'} no level and so "
                f"{'is' if one else 'are'} logged at win:LogAlways, which every session receives",
                hint='add level="win:Informational" (or another level) where that is not meant',
            )


def admin_without_keywords(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        bare = [
            e
            for e in p.events
            if e.channel is not None and e.channel.type == "Admin" and not e.keywords
        ]
        if bare:
            yield diag(
                N_ADMIN_KEYWORDS,
                bare[0].span,
                f'{plural(len(bare), "event")} of provider "{p.name}" (the first is '
                f"{event_label(bare[0])}) {'is' if len(bare) == 1 else 'are'} written to an "
                "Admin channel without keywords; keyword-filtered sessions cannot select them",
                hint='add keywords="..." naming what the events are about',
            )


def hand_made_guids(m: Manifest) -> Iterator[Diagnostic]:
    """ETW292 (note): a provider GUID that looks typed by hand (:func:`etwmc.guid.guid_hint`)."""
    yield from guid_hint(m)


def unused_items(m: Manifest) -> Iterator[Diagnostic]:
    for p in m.providers:
        used_tids = {e.template.tid for e in p.events if e.template is not None}
        used_tids |= {f.template.tid for f in p.filters if f.template is not None}
        for t in p.templates:
            if t.tid and t.tid not in used_tids:
                yield diag(
                    W_UNUSED_TEMPLATE,
                    t.span,
                    f'<template tid="{t.tid}"> is used by no event or filter',
                    hint='remove it, or reference it with template="..."',
                    attr="tid",
                )
        used_maps = {f.map for t in p.templates for f in fields_of(t) if f.map}
        for mp in p.maps:
            if mp.name and mp.name not in used_maps:
                yield diag(
                    N_UNUSED_MAP,
                    mp.span,
                    f'<{mp.kind}Map name="{mp.name}"> is used by no data item',
                    hint='remove it, or reference it with map="..." on a <data>',
                    attr="name",
                )
        used_kw = {k.qname for e in p.events for k in e.keywords}
        if p.events:
            for k in p.keywords:
                if k.qname not in used_kw:
                    yield diag(
                        N_UNUSED_KEYWORD,
                        k.span,
                        f'<keyword name="{k.name}"> is used by no event',
                        hint="remove it, or add it to the keywords of the events it selects",
                        attr="name",
                    )


def unused_strings(m: Manifest) -> Iterator[Diagnostic]:
    used = set(message_ids(m).strings)
    for res in m.resources:
        unused = sorted(sid for sid in res.strings if sid not in used)
        if unused:
            shown = ", ".join(unused[:5]) + (", ..." if len(unused) > 5 else "")
            yield diag(
                N_UNUSED_STRING,
                res.span,
                f"{plural(len(unused), 'string')} of culture '{res.culture}' "
                f"{'is' if len(unused) == 1 else 'are'} never referenced: {shown}",
                hint="they are compiled into no message table; remove them if they are leftovers",
            )
