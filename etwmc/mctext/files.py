"""The files one mc run writes for a message text file, named and encoded, in memory.

``BASE.EXT`` (the header) for the ``-h`` folder; ``BASE.rc`` and the tables for the
``-r`` folder; ``BASE.dbg`` for the ``-x`` folder.  With a manifest in the same run
(:class:`ManifestPart`), the .rc and the tables are both inputs' and the manifest's
``BASETEMP.BIN`` joins them (:mod:`etwmc.mctext.combine`).  Text files are encoded as
``-cp`` says (:func:`encode_text`).
"""

from __future__ import annotations

from ..diagnostics import Diagnostic
from ..record import Record, field
from ..wevt.rc import template_file
from .combine import Culture, combine
from .model import MessageFile
from .options import McTextOptions
from .outputs import build, encode_text


class ManifestPart(Record):
    """What the manifest of the same run adds to the resources."""

    template: bytes  # its WEVT_TEMPLATE blob
    cultures: list[Culture]


class Planned(Record):
    header: dict[str, bytes] = field(default_factory=dict)
    resources: dict[str, bytes] = field(default_factory=dict)
    debug: dict[str, bytes] = field(default_factory=dict)
    diagnostics: list[Diagnostic] = field(default_factory=list)


def plan_files(
    mf: MessageFile,
    options: McTextOptions,
    *,
    base: str,
    ext: str,
    prefixed: bool,
    encoding: str,
    dbg: bool,
    manifest: ManifestPart | None = None,
) -> Planned:
    """Every file of the run's message text file (``options``: its
    :class:`~etwmc.mctext.McTextOptions`; ``encoding``: ``-cp``; ``dbg``: ``-x`` given)."""
    out = build(mf, options, base=base, prefixed=prefixed)
    codec = options.code_page
    header = {f"{base}.{ext}": encode_text(out.header, encoding, codec)}
    debug = {f"{base}.dbg": encode_text(out.dbg, encoding, codec)} if dbg else {}
    if manifest is None:
        rc_text, tables, diags = out.rc, out.tables, []
    else:
        joined = combine(mf, options.table_style, manifest.cultures, base=base, prefixed=prefixed)
        rc_text, tables, diags = joined.rc, dict(joined.tables), joined.diagnostics
        tables[template_file(base)] = manifest.template
    resources = {f"{base}.rc": encode_text(rc_text, encoding, codec, rc=True), **tables}
    return Planned(header, resources, debug, diags)
