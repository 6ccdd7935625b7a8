"""Binary resources mc emits for a manifest, byte for byte: WEVT_TEMPLATE, message tables, .rc.

``binary_outputs(manifest, "x")`` gives ``{"xTEMP.BIN": ..., "x_MSG00001.bin": ...,
"x.rc": ...}``.

``version`` selects the CRIM layout: 5 (mc 10.0.16299 and later, the default:
:data:`~etwmc.wevt.crim.DEFAULT_WEVT_VERSION`) or 3 (earlier mc); anything else is a
ValueError (the writer checks it: :func:`~etwmc.wevt.crim.check_version`).
Call :func:`output_diagnostics` first: it reports what would stop the outputs from
being written (unknown cultures, message-id clashes); the builders raise
:class:`~etwmc.wevt.cultures.UnknownCulture` for a culture without a language id.
"""

from __future__ import annotations

from ..codes import E_BINXML_TOO_LONG, E_STRING_TOO_LONG, E_UNKNOWN_CULTURE
from ..diagnostics import Diagnostic, diag
from ..model import Manifest
from ..msgids import MessageIds, message_ids
from . import msgtable, rc, writer
from .binxml import oversized
from .crim import DEFAULT_WEVT_VERSION
from .cultures import UnknownCulture, langid

__all__ = [
    "UnknownCulture",
    "binary_outputs",
    "build_message_tables",
    "build_rc",
    "build_wevt",
    "output_diagnostics",
]


def build_wevt(
    manifest: Manifest, *, version: int = DEFAULT_WEVT_VERSION, legacy_ids: bool = False
) -> bytes:
    """The ``<base>TEMP.BIN`` blob.  ``legacy_ids`` uses mc 8.1's MD5 template ids."""
    return writer.build(manifest, version=version, legacy_ids=legacy_ids)


def build_message_tables(manifest: Manifest) -> list[tuple[str, bytes]]:
    """[(culture, MESSAGETABLE bytes)] in manifest order."""
    return msgtable.build_tables(manifest)


def build_rc(manifest: Manifest, base: str, *, prefixed: bool = True) -> bytes:
    return rc.build(manifest, base, prefixed=prefixed)


def binary_outputs(
    manifest: Manifest,
    base: str,
    *,
    version: int = DEFAULT_WEVT_VERSION,
    prefixed: bool = True,
    legacy_ids: bool = False,
    ids: MessageIds | None = None,
) -> dict[str, bytes]:
    """File name -> bytes of every binary output (the names mc uses with ``-z base``).
    ``legacy_ids`` gives the templates mc 8.1's MD5 ids (mc 8.1 writes ``version=3``);
    ``ids`` defaults to the model's :func:`~etwmc.msgids.message_ids` (mc's ``-c``
    passes others)."""
    ids = ids if ids is not None else message_ids(manifest)
    blob = writer.build(manifest, version=version, ids=ids, legacy_ids=legacy_ids)
    out = {rc.template_file(base): blob}
    for n, (_, data) in enumerate(msgtable.build_tables(manifest, ids), 1):
        out[rc.message_table_file(base, n, prefixed=prefixed)] = data
    out[f"{base}.rc"] = rc.build(manifest, base, prefixed=prefixed)
    return out


def output_diagnostics(manifest: Manifest) -> list[Diagnostic]:
    """Problems that only the binary outputs have (codes ETW650-ETW654)."""
    ids = message_ids(manifest)
    out = list(ids.diagnostics)
    for p in manifest.providers:
        for t in p.templates:
            for start, n in oversized(t):
                out.append(
                    diag(
                        E_BINXML_TOO_LONG,
                        t.span,
                        f"template '{t.tid}': the name or value starting {start!r} is {n} "
                        "UTF-16 code units long; BinXML stores at most 65,535",
                        hint="shorten it",
                    )
                )
    for res in manifest.resources:
        for sid in ids.strings:
            s = res.strings.get(sid)
            if s is not None and not msgtable.fits(s.value):
                out.append(
                    diag(
                        E_STRING_TOO_LONG,
                        s.span,
                        f"string '{sid}' is {len(s.value)} characters long; a message table "
                        "entry holds at most 32,761 UTF-16 code units",
                        hint="shorten the string",
                    )
                )
        try:
            langid(res.culture)
        except UnknownCulture as exc:
            out.append(
                diag(
                    E_UNKNOWN_CULTURE,
                    res.span,
                    str(exc),
                    hint="use a culture name such as en-US",
                    attr="culture",
                )
            )
    return out
