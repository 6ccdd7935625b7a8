"""``etwmc decode``: decode an ``.etl`` trace (or an etwmc event file) to events.

Exit status: 0 every event with metadata decoded; 1 the trace is damaged (the events
before the damage are written), an event's metadata does not fit its payload,
metadata could not be read, or the events could not be written; 2 usage.  ``-o FILE``
is written by :func:`etwmc.writer.stream`: a regular file all-or-nothing (a temporary
file in the same folder, renamed over FILE when decoding ends), a device or FIFO as
the events come.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from typing import Any

from ..codes import (
    E_EVENT_MISFIT,
    E_OUTPUT_LIMIT,
    E_TRACE_DAMAGED,
    W_EVENT_OVERSIZED,
    W_PROVIDER_UNMATCHED,
)
from ..decode.etl import PassRecord, Record, TraceError
from ..decode.metadata import load_dll, load_manifest, load_wevt
from ..decode.output import (
    OutputBudget,
    output_limit,
    printable,
    render_records,
    summary_json,
    summary_text,
)
from ..decode.source import EventFileDamaged, RecordSource, open_source
from ..decode.trace import MAX_EVENT_JSON, TraceDecoder
from ..diagnostics import Diagnostic, Severity, Span, diag, finalize, render_text
from ..inputs import UsageError, event_file_problem, require_input
from ..model import Manifest
from ..writer import TextOutput, WriteError, resolve, stream
from . import EXIT_ERRORS, EXIT_OK


class _WevtAction(argparse.Action):
    """``decode --wevt``: the ``--messages`` given after it (or before the first) are its
    message tables."""

    def __call__(self, parser: Any, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        groups = [list(g) for g in ns.wevt_messages or []]
        groups.append([] if ns.wevt else list(ns.messages or []))
        ns.wevt = [*(ns.wevt or []), value]
        ns.wevt_messages = groups


class _MessagesAction(argparse.Action):
    def __call__(self, parser: Any, ns: argparse.Namespace, value: Any, opt: Any = None) -> None:
        ns.messages = [*(ns.messages or []), value]
        if ns.wevt:
            ns.wevt_messages = [*ns.wevt_messages[:-1], [*ns.wevt_messages[-1], value]]


DESCRIPTION = (
    "Decode the events of an .etl trace, or of an event file written by etwmc's runtime: "
    "manifest-based events with the metadata given, EventSource events with the manifests "
    "they carry in the trace, TraceLogging events with the schemas they carry; classic events "
    "pass through.  Writes JSON Lines by default (docs/json-lines.md describes them)."
)
FORMATS = ("jsonl", "json", "text")


def configure(p: argparse.ArgumentParser) -> None:
    p.add_argument("input", help="an .etl trace, or an event file written by etwmc's runtime")
    p.add_argument(
        "--manifest", action="append", default=[], metavar="MAN", help="metadata from a manifest"
    )
    p.add_argument(
        "--wevt",
        action=_WevtAction,
        metavar="TEMP.BIN",
        help="metadata from a WEVT_TEMPLATE blob; the --messages after it are its tables",
    )
    p.add_argument("--messages", action=_MessagesAction, metavar="MSG.bin", help="a message table")
    p.add_argument(
        "--dll", action="append", default=[], metavar="PROVIDER.dll", help="a provider's DLL"
    )
    p.add_argument(
        "--provider",
        action="append",
        default=[],
        metavar="GUID|NAME",
        help="only the events of this provider (repeatable)",
    )
    p.add_argument(
        "--format", choices=FORMATS, default="jsonl", help="event format (default: jsonl)"
    )
    p.add_argument("-o", "--output", metavar="FILE", help="write the events here, not stdout")
    p.add_argument(
        "--summary",
        action="store_true",
        help="print events seen and decoded per provider and why the rest were not "
        "(on stdout, instead of the events unless -o is given)",
    )
    p.set_defaults(wevt=None, messages=None, wevt_messages=None)


def run(args: argparse.Namespace) -> int:
    """Decode ``args.input`` (the parser is built in :mod:`etwmc.cli`): a trace or an
    event file, through one path."""
    args.wevt = args.wevt or []
    args.messages = args.messages or []
    args.wevt_messages = args.wevt_messages or []
    return _run(args)


# --------------------------------------------------------------------------- traces


def _check_paths(args: argparse.Namespace) -> None:
    """A metadata file that cannot be opened is a usage error, and an output that
    cannot be written (its folder does not exist) a failed write, both found before
    any decoding."""
    for path in [*args.manifest, *args.wevt, *args.messages, *args.dll]:
        require_input(path)
    if args.output:
        resolve(args.output)


def _load(args: argparse.Namespace) -> tuple[list[Manifest], list[Diagnostic]]:
    manifests: list[Manifest] = []
    diags: list[Diagnostic] = []
    loaded = [load_manifest(m) for m in args.manifest]
    loaded += [load_wevt(w, msgs) for w, msgs in zip(args.wevt, args.wevt_messages, strict=True)]
    loaded += [load_dll(d) for d in args.dll]
    for manifest, found in loaded:
        diags += found
        if manifest is not None:
            manifests.append(manifest)
    return manifests, diags


def _run(args: argparse.Namespace) -> int:
    if args.messages and not args.wevt:
        raise UsageError("--messages belongs to a --wevt")
    _check_paths(args)
    manifests, diags = _load(args)
    if any(d.severity == Severity.ERROR for d in diags):
        sys.stderr.write(render_text(finalize(diags)))
        return EXIT_ERRORS
    try:
        f, reader = open_source(args.input)
    except OSError as e:
        raise UsageError(f"cannot read {args.input}: {e.strerror or e}") from None
    except TraceError as e:
        diags.append(_damaged(args.input, e))
        sys.stderr.write(render_text(finalize(diags)))
        return EXIT_ERRORS
    decoder = TraceDecoder(manifests, providers=args.provider, label=args.input)
    records = _Records(reader)
    bar = _Progress(reader) if sys.stderr.isatty() else None
    pieces = render_records(decoder, records.each(bar), args.format)
    budget = OutputBudget(output_limit(reader.size))
    pieces = budget.take(pieces)
    with f:
        try:
            if args.output or not args.summary:
                with stream(args.output, errors="replace") as out:
                    _write(out, pieces)
            else:
                for _ in pieces:
                    pass
        except WriteError:
            if bar:
                bar.clear()
            raise
    if bar:
        bar.clear()
    diags += decoder.diagnostics
    if records.error is not None:
        diags.append(_damaged(args.input, records.error))
    if budget.reached:
        diags.append(
            diag(
                E_OUTPUT_LIMIT,
                Span(args.input),
                f"decoding stopped after {budget.limit} characters of output, the most a "
                f"{reader.size}-byte trace may write (byte offset {reader.position} reached)",
                hint="the trace expands far beyond what real traces do (compressed buffers "
                "of repeated records); the events before the limit were written",
            )
        )
    if decoder.oversized:
        diags.append(
            diag(
                W_EVENT_OVERSIZED,
                Span(args.input),
                f"{decoder.oversized} event(s) have fields larger than one event may write "
                f"({MAX_EVENT_JSON} characters of JSON); their 'error' says so",
            )
        )
    for p in decoder.unmatched():
        diags.append(
            diag(
                W_PROVIDER_UNMATCHED,
                Span(args.input),
                f"--provider {printable(p)!r} matches no provider of the trace",
                hint="give the provider's GUID, or the metadata that names it "
                "(--summary lists the trace's providers)",
            )
        )
    if decoder.misfits:
        diags.append(
            diag(
                E_EVENT_MISFIT,
                Span(args.input),
                f"{decoder.misfits} event(s) have metadata that does not fit their payload",
                hint="their 'error' says why; --summary counts them per provider",
            )
        )
    if args.summary:
        text = (
            summary_json(decoder.counts) if args.format == "json" else summary_text(decoder.counts)
        )
        sys.stdout.write(text)
    sys.stderr.write(render_text(finalize(diags)))
    failed = records.error is not None or decoder.misfits or budget.reached
    return EXIT_ERRORS if failed else EXIT_OK


def _damaged(path: str, e: TraceError) -> Diagnostic:
    if isinstance(e, EventFileDamaged):
        return event_file_problem(path, e)
    return diag(
        E_TRACE_DAMAGED,
        Span(path),
        f"byte offset {e.offset}: {e.reason}",
        hint="the events before this point were decoded",
    )


class _Records:
    """The reader's records; a damaged input ends them and keeps the error."""

    def __init__(self, reader: RecordSource) -> None:
        self.reader = reader
        self.error: TraceError | None = None

    def each(self, bar: _Progress | None) -> Iterator[Record | PassRecord]:
        try:
            if bar is None:
                yield from self.reader.walk()
            else:
                for n, rec in enumerate(self.reader.walk()):
                    if not n & 1023:
                        bar.show(n)
                    yield rec
        except TraceError as e:
            self.error = e
        except OSError as e:  # the file could be read when opened, not now
            self.error = TraceError(self.reader.position, f"read error: {e.strerror or e}")


class _Progress:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""

    def __init__(self, reader: RecordSource) -> None:
        self.reader = reader
        self.last = 0.0

    def show(self, events: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        done = self.reader.position / max(self.reader.size, 1)
        filled = int(30 * done)
        sys.stderr.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {done:4.0%} {events:,} events")
        sys.stderr.flush()

    def clear(self) -> None:
        sys.stderr.write("\r" + " " * 60 + "\r")
        sys.stderr.flush()


def _write(out: TextOutput, pieces: Iterator[str]) -> None:
    for piece in pieces:  # joined into batches already (OutputBudget.take)
        out.write(piece)
