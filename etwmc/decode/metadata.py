"""Load decoding metadata: manifests, WEVT_TEMPLATE blobs with message tables, and
provider resource DLLs (their WEVT_TEMPLATE and MESSAGETABLE resources).

A manifest with validation errors still decodes: most errors (a C symbol, a message
that is missing) leave its templates meaningful, and TDH dumps of real providers carry
a few such errors.  The errors become one warning; a manifest that cannot be read at
all is an error.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from ..codes import E_METADATA_READ, W_METADATA_INVALID
from ..diagnostics import Diagnostic, Severity, Span, diag
from ..model import Manifest
from ..pe import RT_MESSAGETABLE, WEVT_TEMPLATE, read_resources
from ..validate import Checked, check_bytes, check_file
from ..wevt.msgtable import read_message_table
from ..wevt.reader import read_wevt


def load_message_tables(paths: Iterable[str]) -> list[dict[int, str]]:
    """Read message-table files (RT_MESSAGETABLE resources) into id -> text maps."""
    out = []
    for path in paths:
        with open(path, "rb") as f:
            out.append(dict(read_message_table(f.read())))
    return out


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
    return from_checked(check_file(path))


def load_manifest_bytes(data: bytes, label: str) -> tuple[Manifest | None, list[Diagnostic]]:
    return from_checked(check_bytes(data, label))


def load_wevt(path: str, messages: Sequence[str]) -> tuple[Manifest | None, list[Diagnostic]]:
    try:
        blob = Path(path).read_bytes()
        tables = load_message_tables(messages)
        return read_wevt(blob, messages=tables, path=path), []
    except OSError as e:
        where = e.filename or path
        return None, [diag(E_METADATA_READ, Span(str(where)), f"cannot read: {e.strerror or e}")]
    except ValueError as e:  # WevtError, MessageTableError
        return None, [diag(E_METADATA_READ, Span(path), str(e))]


def load_dll(path: str) -> tuple[Manifest | None, list[Diagnostic]]:
    """A provider DLL: its WEVT_TEMPLATE, with its message tables (lowest language first)."""
    try:
        resources = read_resources(Path(path).read_bytes())
        blobs = [d for (t, _, _), d in sorted(resources.items(), key=str) if t == WEVT_TEMPLATE]
        if not blobs:
            return None, [
                diag(E_METADATA_READ, Span(path), "the DLL has no WEVT_TEMPLATE resource")
            ]
        tables = [
            read_message_table(d)
            for (t, _, _), d in sorted(resources.items(), key=lambda kv: kv[0][2])
            if t == RT_MESSAGETABLE
        ]
        return read_wevt(blobs[0], messages=tables, path=path), []
    except OSError as e:
        return None, [diag(E_METADATA_READ, Span(path), f"cannot read: {e.strerror or e}")]
    except ValueError as e:  # ResourceError, WevtError, MessageTableError
        return None, [diag(E_METADATA_READ, Span(path), str(e))]
