"""CPU time of each stage of a compile, in one process: where a large manifest's time goes.

Run: .venv/bin/python bench/bench_stages.py [MANIFEST | --events N] [--repeat N]

Without a manifest, bench/synthetic.py writes one of ``--events`` events (default
50,000) into a temporary folder.  Each stage runs on the previous stage's output,
``--repeat`` times, and the figure is its best CPU time (``time.process_time``), with
the cycle collector off as ``etwmc compile`` runs it (etwmc.gcpolicy).  The stages:
parse (reading, well-formedness), schema (etwmc.xsd and the structure rules), lower
(the model), message ids, rules, the binary outputs' own checks, the Python module,
the WEVT_TEMPLATE blob, the message tables, the .rc, and (not part of a default
compile) the C header.  ``per event`` divides by the manifest's event count, so that
two sizes can be compared: a linear stage keeps its figure.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import synthetic  # noqa: E402

from etwmc import __version__, schema  # noqa: E402
from etwmc.header import HeaderOptions, build_header  # noqa: E402
from etwmc.lower import lower_document  # noqa: E402
from etwmc.msgids import assign_message_ids, message_ids  # noqa: E402
from etwmc.parse import parse_file  # noqa: E402
from etwmc.python import generate  # noqa: E402
from etwmc.rules import run_rules  # noqa: E402
from etwmc.wevt import build_message_tables, build_rc, build_wevt, output_diagnostics  # noqa: E402


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.process_time()
        out = fn()
        best = min(best, time.process_time() - t)
    return best, out


def stages(path: Path, repeat: int) -> tuple[int, list[tuple[str, float]]]:
    """(event count, [(stage, best CPU seconds)]) for the manifest at ``path``."""
    rows: list[tuple[str, float]] = []

    def run(name: str, fn: Callable[[], Any]) -> Any:
        cpu, out = _best(fn, repeat)
        rows.append((name, cpu))
        return out

    doc, _ = run("parse", lambda: parse_file(path))
    if doc is None:
        raise SystemExit(f"{path}: not a readable manifest")
    run("schema", lambda: schema.schema_diagnostics(doc))
    manifest, _ = run("lower", lambda: lower_document(doc))
    run("message ids", lambda: assign_message_ids(manifest))
    message_ids(manifest)  # computed once per model, as every later stage reads it
    run("rules", lambda: run_rules(manifest))
    run("binary outputs' checks", lambda: output_diagnostics(manifest))
    run("Python module", lambda: generate(manifest, source=path.name, version=__version__))
    run("WEVT_TEMPLATE", lambda: build_wevt(manifest))
    run("message tables", lambda: build_message_tables(manifest))
    run(".rc", lambda: build_rc(manifest, "x"))
    run("C header (-um)", lambda: build_header(manifest, HeaderOptions()))
    return sum(len(p.events) for p in manifest.providers), rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    ap.add_argument("manifest", nargs="?", type=Path)
    ap.add_argument("--events", type=int, default=50_000)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    gc.disable()
    with tempfile.TemporaryDirectory(prefix="etwmc-stages-") as tmp:
        path = args.manifest or synthetic.write(args.events, Path(tmp) / "synthetic.man")
        events, rows = stages(path, args.repeat)
    print(f"{path.name}: {events:,} events, best CPU time of {args.repeat}")
    compiled = sum(cpu for name, cpu in rows if name != "C header (-um)")
    for name, cpu in rows:
        share = f"{100 * cpu / compiled:5.1f}%" if name != "C header (-um)" else "      "
        per = f"{1e6 * cpu / events:8.2f} us/event" if events else ""
        print(f"  {name:24s} {cpu:7.3f} s  {share}  {per}")
    print(f"  {'compile (the above)':24s} {compiled:7.3f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
