"""Diagnostics: stable codes, locations, severities, and the renderers that report them.

Every stage returns diagnostics instead of raising.  They are collected, sorted and
de-duplicated once (:func:`finalize`), then rendered in one of four formats.

Codes are ``ETW`` + three digits, banded by stage:

======  =====================================================
ETW0xx  input: reading, encoding, well-formedness, safety
ETW1xx  schema: etwmc's XSD
ETW2xx  semantics: values and ranges
ETW3xx  semantics: uniqueness
ETW4xx  semantics: references
ETW5xx  semantics: templates, messages, providers
ETW6xx  code generation and outputs
ETW7xx  compatibility (``etwmc diff``)
ETW80x  decompiling: what a blob holds that a manifest cannot give back
ETW85x  decoding traces (``etwmc decode``)
ETW9xx  message text files (``.mc``); ETW99x internal
======  =====================================================
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath, PureWindowsPath
from urllib.parse import quote

from . import __version__
from .codes import REGISTRY, Code
from .codes import Severity as Severity  # re-exported: reports and callers use it
from .record import Record
from .rulepages import page, url


class Span(Record, order=True):
    """A place in a source file.  ``line`` and ``col`` are 1-based; 0 means unknown."""

    file: str
    line: int = 0
    col: int = 0

    def __init__(self, file: str, line: int = 0, col: int = 0) -> None:
        # Written out, as etwmc.record allows for hot records: reading a manifest makes
        # a span for nearly every element.  Each slot's own setter (bound once, below)
        # costs a third of object.__setattr__, which looks the slot up by name.
        _set_file(self, file)
        _set_line(self, line)
        _set_col(self, col)

    def __str__(self) -> str:
        if self.line and self.col:
            return f"{self.file}:{self.line}:{self.col}"
        if self.line:
            return f"{self.file}:{self.line}"
        return self.file


_set_file = vars(Span)["file"].__set__
_set_line = vars(Span)["line"].__set__
_set_col = vars(Span)["col"].__set__
NOWHERE = Span("<unknown>")


class Diagnostic(Record):
    """One problem found: its code, severity, place, message and (when there is one) a hint
    that says what would be right."""

    code: str
    severity: Severity
    span: Span
    message: str
    hint: str | None = None
    # The attribute the problem is about, when known: lets the reporter point the
    # column at the attribute rather than at the element.  Not part of equality.
    attr: str | None = None

    def sort_key(self) -> tuple[str, int, int, str, str]:
        return (self.span.file, self.span.line, self.span.col, self.code, self.message)

    def _compared(self) -> tuple[str, Severity, Span, str, str | None]:
        return (self.code, self.severity, self.span, self.message, self.hint)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Diagnostic):
            return NotImplemented
        return self._compared() == other._compared()

    def __hash__(self) -> int:
        return hash(self._compared())


def diag(
    c: Code,
    span: Span,
    message: str,
    *,
    hint: str | None = None,
    attr: str | None = None,
    severity: Severity | None = None,
) -> Diagnostic:
    return Diagnostic(
        c.id, severity if severity is not None else c.severity, span, message, hint, attr
    )


def finalize(diags: Iterable[Diagnostic], *, werror: bool = False) -> list[Diagnostic]:
    """Sort by location, drop exact duplicates, and optionally promote warnings to errors."""
    seen: set[tuple[str, str, int, int, str]] = set()
    out: list[Diagnostic] = []
    for d in sorted(diags, key=Diagnostic.sort_key):
        key = (d.code, d.span.file, d.span.line, d.span.col, d.message)
        if key in seen:
            continue
        seen.add(key)
        if werror and d.severity == Severity.WARNING:
            d = Diagnostic(d.code, Severity.ERROR, d.span, d.message, d.hint, d.attr)
        out.append(d)
    return out


def has_errors(diags: Iterable[Diagnostic]) -> bool:
    return any(d.severity == Severity.ERROR for d in diags)


def summary_line(diags: Sequence[Diagnostic], files: int) -> str:
    counts = {s: 0 for s in Severity}
    for d in diags:
        counts[d.severity] += 1

    def plural(n: int, word: str) -> str:
        return f"{n} {word}{'' if n == 1 else 's'}"

    errors = plural(counts[Severity.ERROR], "error")
    warnings = plural(counts[Severity.WARNING], "warning")
    notes = plural(counts[Severity.NOTE], "note")
    return f"{errors}, {warnings}, {notes} in {plural(files, 'file')}"


# --------------------------------------------------------------------------- renderers


FORMATS = ("text", "json", "sarif", "github")

# ANSI colours of the text format (only on a terminal, or when FORCE_COLOR is set).
_COLOUR = {
    Severity.ERROR: "\x1b[1;31m",
    Severity.WARNING: "\x1b[1;33m",
    Severity.NOTE: "\x1b[1;36m",
}
_BOLD, _DIM, _RESET = "\x1b[1m", "\x1b[2m", "\x1b[0m"


def render(
    diags: Sequence[Diagnostic], fmt: str, *, colour: bool = False, help_urls: bool = False
) -> str:
    """Diagnostics in one of :data:`FORMATS`; ``colour`` and ``help_urls`` apply to
    ``text`` only."""
    if fmt == "json":
        return render_json(diags)
    if fmt == "sarif":
        return render_sarif(diags, tool_version=__version__)
    if fmt == "github":
        return render_github(diags)
    return render_text(diags, colour=colour, help_urls=help_urls)


# What a human-readable report never passes through: C0 and C1 controls and DEL (a line
# feed forges a report line; ESC and the C1 CSI/OSC start terminal sequences), the line
# and paragraph separators, and the bidirectional controls that reorder what is shown.
# Each is written as a Python-style escape, so the report still says what is there.
_NAMED_ESCAPES = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}
_HIDDEN = (
    [*range(0x20), *range(0x7F, 0xA0)]
    + [0x200E, 0x200F, 0x2028, 0x2029]
    + [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
)
_ESCAPES = {
    c: _NAMED_ESCAPES.get(chr(c)) or (f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}")
    for c in _HIDDEN
}


def visible(text: str) -> str:
    """``text`` with every control character written as an escape (``\\n``,
    ``\\x1b``, ``\\u2028``): for the human-readable reports, where a file name or
    manifest text must not forge a line or reach the terminal as a sequence."""
    if text.isprintable():
        return text
    return text.translate(_ESCAPES)


def render_text(
    diags: Sequence[Diagnostic], *, colour: bool = False, help_urls: bool = False
) -> str:
    """One line per diagnostic and one per hint; names and text from the input are
    shown through :func:`visible`.  ``help_urls`` adds, after the first diagnostic of
    each code, a note with the address of the code's page (as mypy's
    ``--show-error-code-links`` does)."""
    lines = []
    linked: set[str] = set()
    for d in diags:
        span, message = visible(str(d.span)), visible(d.message)
        notes = [visible(d.hint)] if d.hint else []
        if help_urls and d.code not in linked:
            linked.add(d.code)
            notes.append(f"see {url(d.code)}")
        if colour:
            sev = f"{_COLOUR[d.severity]}{d.severity.label}{_RESET}"
            lines.append(f"{_BOLD}{span}{_RESET}: {sev} {_BOLD}{d.code}{_RESET}: {message}")
            lines += [f"{_BOLD}{span}{_RESET}: {_DIM}note:{_RESET} {n}" for n in notes]
            continue
        lines.append(f"{span}: {d.severity.label} {d.code}: {message}")
        lines += [f"{span}: note: {n}" for n in notes]
    return "".join(line + "\n" for line in lines)


def to_json_obj(d: Diagnostic) -> dict[str, object]:
    obj: dict[str, object] = {
        "code": d.code,
        "severity": d.severity.label,
        "file": d.span.file,
        "line": d.span.line or None,
        "column": d.span.col or None,
        "message": d.message,
    }
    if d.hint:
        obj["hint"] = d.hint
    return obj


def render_json(diags: Sequence[Diagnostic]) -> str:
    """A JSON array of objects with the keys code, severity, file, line, column, message
    (and hint when there is one).  Unknown line/column are null."""
    return json.dumps([to_json_obj(d) for d in diags], indent=2, ensure_ascii=True) + "\n"


SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
_SARIF_LEVEL = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "note"}


def render_sarif(diags: Sequence[Diagnostic], *, tool_version: str) -> str:
    """SARIF 2.1.0: one run, the rules that occur (with stable ids), one result per diagnostic."""
    used = sorted({d.code for d in diags})
    rule_index = {c: i for i, c in enumerate(used)}
    rules = [_sarif_rule(c) for c in used]
    results = []
    for d in diags:
        region: dict[str, int] = {}
        if d.span.line:
            region["startLine"] = d.span.line
            if d.span.col:
                region["startColumn"] = d.span.col
        artifact = _sarif_artifact(d.span.file)
        location: dict[str, object] = {"artifactLocation": artifact}
        if region:
            location["region"] = region
        text = d.message if not d.hint else f"{d.message} ({d.hint})"
        results.append(
            {
                "ruleId": d.code,
                "ruleIndex": rule_index[d.code],
                "level": _SARIF_LEVEL[d.severity],
                "message": {"text": text},
                "locations": [{"physicalLocation": location}],
            }
        )
    doc = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "etwmc",
                        "version": tool_version,
                        "informationUri": "https://pypi.org/project/etwmc/",
                        "rules": rules,
                    }
                },
                "columnKind": "unicodeCodePoints",
                "results": results,
            }
        ],
    }
    return json.dumps(doc, indent=2, ensure_ascii=True) + "\n"


def _sarif_rule(c: str) -> dict[str, object]:
    """A reporting descriptor: the summary, the first paragraph of the code's page, and
    the page itself (its address, and its explanation as help: code scanning shows it
    beside a finding)."""
    reg = REGISTRY.get(c)
    rule: dict[str, object] = {
        "id": c,
        "name": c,
        "shortDescription": {"text": reg.summary if reg else c},
        "defaultConfiguration": {"level": _SARIF_LEVEL[reg.severity] if reg else "error"},
    }
    if reg is None:
        return rule
    p = page(c)
    rule["fullDescription"] = {"text": p.description}
    rule["helpUri"] = p.url
    # The explanation and the fix, not the examples: a report carries one per code found.
    markdown = (
        f"{p.meaning}\n\n**Why it matters.** {p.why}\n\n**Fix.** {_prose(p.fix)}\n\n"
        f"[{c} on the documentation site]({p.url})"
    )
    rule["help"] = {"text": f"{p.description} See {p.url}", "markdown": markdown}
    return rule


def _prose(markdown: str) -> str:
    """The paragraphs of a section before its first code block."""
    return markdown.split("```", 1)[0].strip()


def _sarif_artifact(path: str) -> dict[str, str]:
    """An artifact location: an absolute path as a ``file://`` URI, a relative one as a
    relative reference against %SRCROOT% (the folder the analysis ran in)."""
    p = PurePosixPath(path.replace("\\", "/"))
    windows = PureWindowsPath(path)
    if windows.is_absolute() and windows.drive:
        return {"uri": windows.as_uri()}
    if p.is_absolute():
        return {"uri": "file://" + quote(str(p), safe="/._-~")}
    return {"uri": quote(str(p), safe="/._-~"), "uriBaseId": "%SRCROOT%"}


_GITHUB_CMD = {Severity.ERROR: "error", Severity.WARNING: "warning", Severity.NOTE: "notice"}


def _gh_escape_data(s: str) -> str:
    return s.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_escape_prop(s: str) -> str:
    return _gh_escape_data(s).replace(":", "%3A").replace(",", "%2C")


def render_github(diags: Sequence[Diagnostic]) -> str:
    """GitHub Actions workflow commands (``::error file=…,line=…::message``).

    Errors come first: the runner keeps only the first 10 annotations of each kind per
    step, so the ones that fail the build must not be crowded out by notes."""
    out = []
    for d in sorted(diags, key=lambda d: -d.severity):
        # Control characters shown as escapes first: the runner's log shows annotations,
        # and a line break in one is not the input's to make.
        props = [f"file={_gh_escape_prop(visible(d.span.file))}"]
        if d.span.line:
            props.append(f"line={d.span.line}")
            if d.span.col:
                props.append(f"col={d.span.col}")
        props.append(f"title={_gh_escape_prop(d.code)}")
        text = visible(d.message if not d.hint else f"{d.message} ({d.hint})")
        out.append(f"::{_GITHUB_CMD[d.severity]} {','.join(props)}::{_gh_escape_data(text)}\n")
    return "".join(out)
