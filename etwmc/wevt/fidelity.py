"""What a WEVT_TEMPLATE blob holds that a manifest rebuilt from it cannot give back.

:mod:`etwmc.wevt.reader` rebuilds a model such that compiling it again gives the same
blob.  Where that cannot hold, these checks say so, as warnings the ``decompile``
command prints (the ETW8xx band), instead of dropping the difference silently:

* ETW800: an event's descriptor holds a level, opcode, task, channel or keyword value
  that its entries do not give (Microsoft's services.wevt has opcodes 64/128/192 with
  no OPCO entry); compiling writes the entries' values.
* ETW801: a template's stored id or BinXML is not what compiling the rebuilt template
  gives (for example UserData text whose spacing the BinXML does not keep).
* ETW802 (note): the template ids are mc 8.1's; ``--legacy-template-ids`` reproduces
  them.
* ETW803: a message-table text holds a line feed without a carriage return before it
  (older mc wrote them so), and compiling writes every line break as CR LF.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ..codes import N_LEGACY_IDS, W_DESCRIPTOR, W_MESSAGE_TEXT, W_TEMPLATE
from ..diagnostics import Diagnostic, Span, diag
from ..model import Event, Template
from ..msgformat import exact_source
from .binxml import encode_template
from .reader_binxml import Buf, Element, WevtError, parse_fragment
from .reader_raw import RawEvent, RawTemplate

_FIELDS = ("channel", "level", "opcode", "task", "keyword")


def descriptor_values(e: Event) -> dict[str, int]:
    """The descriptor values compiling ``e`` writes (see the writer's EVNT entries)."""
    ch = e.channel
    return {
        "channel": ch.value & 0xFF if ch else 0,
        "level": e.level.value & 0xFF if e.level else 0,
        "opcode": e.opcode.value & 0xFF if e.opcode else 0,
        "task": e.task.value & 0xFFFF if e.task else 0,
        "keyword": (e.keyword_mask | (ch.keyword_bit if ch else 0)) & 0xFFFFFFFFFFFFFFFF,
    }


def event_losses(
    pairs: Sequence[tuple[RawEvent, Event]], provider: str, span: Span
) -> list[Diagnostic]:
    """One warning per descriptor field whose stored values some events would lose."""
    lost: dict[str, list[tuple[RawEvent, int]]] = {}
    for raw, e in pairs:
        rebuilt = descriptor_values(e)
        for name in _FIELDS:
            stored = getattr(raw.descriptor, name)
            if stored != rebuilt[name]:
                lost.setdefault(name, []).append((raw, stored))
    out = []
    for name in _FIELDS:
        hits = lost.get(name)
        if not hits:
            continue
        first = hits[0][0]
        values = sorted({v for _, v in hits})
        shown = ", ".join(f"0x{v:X}" if name == "keyword" else str(v) for v in values[:8])
        more = ", ..." if len(values) > 8 else ""
        n = len(hits)
        out.append(
            diag(
                W_DESCRIPTOR,
                span,
                f"provider '{provider}': {n} event{'s' if n != 1 else ''} (the first is "
                f"{first.descriptor.id} version {first.descriptor.version}, entry at offset "
                f"0x{first.offset:x}) "
                f"store{'s' if n == 1 else ''} {name} value{'s' if len(values) != 1 else ''} "
                f"{shown}{more} that no {name} entry gives; the decompiled manifest "
                "cannot keep them, so compiling it writes other descriptors",
                hint=f"a manifest gives an event {_article(name)} {name} value only through an "
                "entry; "
                "declare one (the blob then holds it too) if events are written with it",
            )
        )
    return out


def _article(word: str) -> str:
    return "an" if word[:1] in "aeiou" else "a"


def template_losses(
    raw: RawTemplate, t: Template, provider: str, *, v3: bool, span: Span
) -> tuple[list[Diagnostic], bool]:
    """Warnings for a template compiling cannot reproduce, and whether its id is mc 8.1's."""
    stored_id = raw.guid.bytes_le
    for legacy in (False, True) if v3 else (False,):
        tid, data = encode_template(t, legacy_ids=legacy)
        if tid == stored_id and _same_tree(data, raw.root):
            return [], legacy
    tid, data = encode_template(t)
    what = "template id" if _same_tree(data, raw.root) else "BinXML"
    return [
        diag(
            W_TEMPLATE,
            span,
            f"provider '{provider}': the template at offset 0x{raw.offset:x} ({t.tid} in the "
            "decompiled manifest): "
            f"its stored {what} is not what compiling the decompiled template gives, so the "
            "compiled blob will differ there",
            hint="the blob was not written by mc, or holds template XML the manifest "
            "cannot express",
        )
    ], False


def _same_tree(data: bytes, root: Element | None) -> bool:
    try:
        again, _ = parse_fragment(Buf(data), 0, len(data))
    except WevtError:
        return False
    return again == root


def legacy_note(span: Span) -> Diagnostic:
    return diag(
        N_LEGACY_IDS,
        span,
        "the template ids are the MD5-based ones of mc 8.1 (Windows 8.1 SDK)",
        hint="compile the decompiled manifest with --legacy-template-ids to get them back",
    )


def message_losses(culture: str, texts: Mapping[int, str], span: Span) -> list[Diagnostic]:
    """One warning per culture whose texts hold a line feed compiling would change."""
    bare = sorted(mid for mid, text in texts.items() if not exact_source(text))
    if not bare:
        return []
    n = len(bare)
    return [
        diag(
            W_MESSAGE_TEXT,
            span,
            f"culture '{culture}': {n} message text{'s' if n != 1 else ''} (the first is "
            f"0x{bare[0]:08X}) hold{'s' if n == 1 else ''} a line feed without a carriage "
            "return; mc 10 and etwmc write every line break of a string as CR LF, so the "
            "compiled message table will differ there",
            hint="the table was written by an older mc; the event text reads the same",
        )
    ]
