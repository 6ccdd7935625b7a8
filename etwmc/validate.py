"""Validation: parse safely, check against etwmc's XSD, lower to the model, run the
semantic rules, and return everything found as sorted, de-duplicated diagnostics.

Stages, in order (each adds diagnostics; a stage that cannot run stops the chain):

1. :mod:`etwmc.parse` — reading, encoding, well-formedness, DTD/entity/PI rejection;
2. :mod:`etwmc.schema` — etwmc's own XSD (structure and lexical forms, ETW1xx);
3. :mod:`etwmc.lower` — the model, with every reference resolved (ETW4xx);
4. :mod:`etwmc.rules` — the semantic rules, one function each (ETW2xx-ETW5xx).
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from .diagnostics import Diagnostic, Severity, Span, finalize
from .lower import lower_document
from .model import Manifest
from .parse import Document, parse_bytes, parse_file
from .record import Record
from .rules import run_rules
from .schema import schema_diagnostics


class Checked(Record):
    """The result of checking one manifest.  ``manifest`` is set whenever the document
    could be parsed; only use it for outputs when :attr:`ok`."""

    path: str
    manifest: Manifest | None
    diagnostics: list[Diagnostic]
    lines: Sequence[str] = ()  # the decoded source, when it could be read (for comments)

    @property
    def ok(self) -> bool:
        return self.manifest is not None and not any(
            d.severity == Severity.ERROR for d in self.diagnostics
        )


def check_file(path: str | Path, *, werror: bool = False) -> Checked:
    doc, diags = parse_file(path)
    return _check(str(path), doc, diags, werror)


def check_bytes(data: bytes, path: str = "<input>", *, werror: bool = False) -> Checked:
    doc, diags = parse_bytes(data, path)
    return _check(path, doc, diags, werror)


def _check(path: str, doc: Document | None, diags: list[Diagnostic], werror: bool) -> Checked:
    if doc is None:
        return Checked(path, None, finalize(diags, werror=werror))
    schema = schema_diagnostics(doc)
    diags.extend(schema)
    manifest, lowered = lower_document(doc)
    later = lowered + [_refine(doc, d) for d in run_rules(manifest)]
    # One problem, one report: what the schema already said about an element or an
    # attribute (same place) is not said again by a later stage, and a value the schema
    # rejected is not reported as unreadable either.
    schema_places = {(d.span.line, d.span.col) for d in schema if d.severity == Severity.ERROR}
    schema_lines = {line for line, _ in schema_places}
    diags.extend(
        d
        for d in later
        if (d.span.line, d.span.col) not in schema_places
        and not (d.code == "ETW200" and d.span.line in schema_lines)
    )
    return Checked(path, manifest, finalize(diags, werror=werror), doc.lines)


def _refine(doc: Document, d: Diagnostic) -> Diagnostic:
    """Point a rule's diagnostic at the attribute it is about, when the rule names one."""
    if not d.attr or not d.span.line or not d.span.col:
        return d
    found = doc.find_attr(d.span.line, d.span.col, d.attr)
    if found is None:
        return d
    return Diagnostic(d.code, d.severity, Span(d.span.file, *found), d.message, d.hint, d.attr)
