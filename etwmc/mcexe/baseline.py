"""mc's baselines: ``-s DIR`` writes one, ``-t DIR`` checks a manifest against one.

mc 10's usage says what ``-s`` writes: "a separate binary resource per provider" and
"summary global resource MCGenResource.BIN"; what those files hold is not documented.
etwmc writes, in ``DIR``, each provider's WEVT_TEMPLATE blob (a TEMP.BIN of that
provider alone, with the message ids of the whole manifest) as ``<provider name>.BIN``
(the name made a plain file name; the provider's GUID when two names would clash) and
``MCGenResource.BIN``, the blob of every provider.

``-t DIR`` compares the manifest with ``DIR/MCGenResource.BIN`` or, without one, with
each ``.BIN`` file in ``DIR`` (a folder of per-provider baselines, or the single
``BASE.BIN`` earlier etwmc versions wrote), with ``etwmc diff``'s rules: the changes
that break decoders or consumers are errors (ETW7xx).
"""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from ..diagnostics import Diagnostic, Severity
from ..diff import diff_manifests, load
from ..emit import name_problem
from ..model import Manifest
from ..msgids import MessageIds
from ..wevt import writer

SUMMARY = "MCGenResource.BIN"
_UNSAFE = re.compile(r"[^A-Za-z0-9_.-]")


class NoBaseline(Exception):
    """``-t`` names a folder with no baseline in it."""


def baseline_files(manifest: Manifest, ids: MessageIds) -> dict[str, bytes]:
    """File name -> blob of every file ``-s`` writes."""
    out = {SUMMARY: writer.build(manifest, ids=ids)}
    taken = {SUMMARY.casefold()}
    for p in manifest.providers:
        name = _UNSAFE.sub("_", p.name) + ".BIN"
        if name_problem(name) or name.casefold() in taken:
            name = f"{p.guid}.BIN"
        taken.add(name.casefold())
        out[name] = writer.build(replace(manifest, providers=(p,)), ids=ids)
    return out


def check_against(manifest: Manifest, folder: str | Path) -> list[Diagnostic]:
    """``-t``: the warnings and errors of comparing ``manifest`` with the baseline in
    ``folder``; raises :class:`NoBaseline` when there is none."""
    where = Path(folder)
    summary = where / SUMMARY
    files = [summary] if summary.is_file() else sorted(where.glob("*.BIN"))
    if not files:
        raise NoBaseline(f"there is no baseline in {where} (write one with -s)")
    out: list[Diagnostic] = []
    for path in files:
        old, problems = load(path)
        out += problems
        if old is not None:
            out += [d for d in diff_manifests(old, manifest) if d.severity != Severity.NOTE]
    return out
