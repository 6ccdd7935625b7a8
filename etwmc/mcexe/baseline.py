"""mc's baselines: ``-s DIR`` writes one (the output registry's baseline kind,
:func:`etwmc.outputs.baseline_files`), ``-t DIR`` checks a manifest against one.

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

from pathlib import Path

from ..diagnostics import Diagnostic, Severity
from ..diff import diff_manifests, load
from ..model import Manifest
from ..outputs import BASELINE_SUMMARY as SUMMARY
from ..outputs import baseline_files as baseline_files


class NoBaseline(Exception):
    """``-t`` names a folder with no baseline in it."""


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
