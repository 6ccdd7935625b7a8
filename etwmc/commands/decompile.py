"""``etwmc decompile TEMP.BIN [--messages MSG.bin ...] [-o manifest.man]``.

The manifest goes to ``-o FILE`` or standard output; diagnostics go to standard error
(standard output may be the manifest).  What the manifest cannot give back
(:mod:`etwmc.wevt.fidelity`) is reported as warnings and notes, which do not change the
exit status: 0 written, 1 the blob or a message table is malformed (with the byte
offset) or the manifest could not be written, 2 usage.
"""

from __future__ import annotations

import argparse
import sys

from ..decompile import decompile
from ..diagnostics import finalize, render_text
from ..inputs import load_blob
from ..writer import write_text
from . import EXIT_ERRORS, EXIT_OK

DESCRIPTION = (
    "Rebuild an instrumentation manifest from a compiled WEVT_TEMPLATE blob (<base>TEMP.BIN) "
    "and its message tables; compiling the result gives the same bytes, and what it cannot "
    "give back is reported."
)


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("blob", help="a WEVT_TEMPLATE blob (<base>TEMP.BIN)")
    p.add_argument(
        "--messages",
        action="append",
        default=[],
        metavar="MSG.bin",
        help="a message table (repeat for each culture)",
    )
    p.add_argument(
        "--culture",
        action="append",
        default=[],
        metavar="NAME",
        help="culture of the n-th --messages table (default: en-US for the first)",
    )
    p.add_argument("-o", "--output", metavar="FILE", help="manifest to write (default: stdout)")


def run(args: argparse.Namespace) -> int:
    manifest, problems = load_blob(
        args.blob, args.messages, args.culture, xml_text=True, losses=True
    )
    if manifest is None:
        sys.stderr.write(render_text(problems))
        return EXIT_ERRORS
    text = decompile(manifest)
    sys.stderr.write(render_text(finalize(problems)))
    write_text(args.output, text)
    return EXIT_OK
