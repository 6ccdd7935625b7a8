"""Load decoding metadata: manifests, WEVT_TEMPLATE blobs with message tables, and
provider resource DLLs (their WEVT_TEMPLATE and MESSAGETABLE resources).

A manifest with validation errors still decodes: most errors (a C symbol, a message
that is missing) leave its templates meaningful, and TDH dumps of real providers carry
a few such errors.  The errors become one warning; a manifest that cannot be read at
all is an error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..codes import E_METADATA_READ, W_METADATA_INVALID
from ..diagnostics import Diagnostic, Severity, Span, diag
from ..inputs import load_blob
from ..inputs import load_dll as load_provider_dll
from ..lower import lower_document
from ..model import Manifest
from ..parse import parse_bytes

if TYPE_CHECKING:
    from ..validate import Checked


def from_checked(checked: Checked) -> tuple[Manifest | None, list[Diagnostic]]:
    """The model of a checked manifest, and a warning when it has errors."""
    errors = [d for d in checked.diagnostics if d.severity == Severity.ERROR]
    if checked.manifest is None:
        return None, errors
    if not errors:
        return checked.manifest, []
    first = errors[0]
    more = f" (and {len(errors) - 1} more)" if len(errors) > 1 else ""
    return checked.manifest, [
        diag(
            W_METADATA_INVALID,
            Span(checked.path),
            f"{len(errors)} validation error(s), first {first.code} at {first.span}: "
            f"{first.message}{more}",
            hint=f"etwmc lint {checked.path} lists them; decoding uses what could be read",
        )
    ]


def load_manifest(path: str) -> tuple[Manifest | None, list[Diagnostic]]:
    # Deferred: the validator loads etwmc's XSD and rules, which a trace decoded without
    # manifest files never uses (decode of perfview_primitive-types.etl: 190 -> 162 ms
    # CPU, best of 7).
    from ..validate import check_file

    return from_checked(check_file(path))


def read_inband_manifest(data: bytes, label: str) -> tuple[Manifest | None, list[Diagnostic]]:
    """The model of a manifest a trace carries, lowered without being validated: its
    problems are the provider's, no one reads them, and checking it against etwmc's
    XSD and rules cost about a tenth of decoding a trace that carries a few (the
    x86 trace's .NET EventSources).  The model is the one validation would lower; None,
    with why, when the text cannot be parsed."""
    doc, diags = parse_bytes(data, label)
    if doc is None:
        return None, diags
    return lower_document(doc)[0], []


def load_wevt(path: str, messages: Sequence[str]) -> tuple[Manifest | None, list[Diagnostic]]:
    return load_blob(path, messages, code=E_METADATA_READ)


def load_dll(path: str) -> tuple[Manifest | None, list[Diagnostic]]:
    """A provider DLL: its WEVT_TEMPLATE, with its message tables (lowest language first)."""
    return load_provider_dll(path, code=E_METADATA_READ)
