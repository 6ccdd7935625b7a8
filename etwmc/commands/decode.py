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
import json
import sys
import time
from collections.abc import Iterator
from itertools import islice
from typing import Any

from ..codes import E_EVENT_MISFIT, E_TRACE_DAMAGED
from ..decode import DecodeError, Decoder, filetime_text
from ..decode.etl import EtlReader, Record, TraceError, open_trace
from ..decode.metadata import load_dll, load_manifest, load_wevt
from ..decode.output import render, render_json, summary_json, summary_text
from ..decode.trace import TraceDecoder
from ..diagnostics import Diagnostic, Severity, Span, diag, finalize, render_text
from ..inputs import UsageError, event_file_problem, load_blob, open_input, require_input
from ..model import Manifest
from ..runtime.eventfile import MAGIC, EventFileError, EventRecord, iter_events
from ..validate import check_file
from ..writer import TextOutput, WriteError, stream, write_text
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
    "Decode the events of an .etl trace: manifest-based events with the metadata given, "
    "EventSource events with the manifests they carry in the trace, TraceLogging events with "
    "the schemas they carry; classic events pass through.  Writes JSON Lines by default.  An "
    "event file written by etwmc's runtime decodes with one --manifest or --wevt to a JSON "
    "array."
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
    """Decode ``args.input`` (the parser is built in :mod:`etwmc.cli`)."""
    args.wevt = args.wevt or []
    args.messages = args.messages or []
    args.wevt_messages = args.wevt_messages or []
    if _is_trace(args.input):
        return _run_trace(args)
    return _run_event_file(args)


def _is_trace(path: str) -> bool:
    """An etwmc event file starts with its magic; a trace with a system record.  The
    input is opened as every command opens one (a FIFO or a folder is a usage error)."""
    with open_input(path) as f:
        try:
            head = f.read(0x50)
        except OSError:
            return path.lower().endswith(".etl")
    if head.startswith(MAGIC):
        return False
    looks = len(head) >= 0x4C and head[0x4B] == 0xC0 and head[0x4A] in (1, 2)
    return looks or path.lower().endswith(".etl")


# --------------------------------------------------------------------------- traces


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


def _run_trace(args: argparse.Namespace) -> int:
    if args.messages and not args.wevt:
        raise UsageError("--messages belongs to a --wevt")
    manifests, diags = _load(args)
    if any(d.severity == Severity.ERROR for d in diags):
        sys.stderr.write(render_text(finalize(diags)))
        return EXIT_ERRORS
    try:
        f, reader = open_trace(args.input)
    except OSError as e:
        raise UsageError(f"cannot read {args.input}: {e.strerror or e}") from None
    except TraceError as e:
        diags.append(_damaged(args.input, e))
        sys.stderr.write(render_text(finalize(diags)))
        return EXIT_ERRORS
    decoder = TraceDecoder(manifests, providers=args.provider, label=args.input)
    records = _Records(reader)
    bar = _Progress(reader) if sys.stderr.isatty() else None
    if args.format == "text":
        pieces = render(decoder.events(records.each(bar)), args.format)
    else:
        pieces = render_json(decoder.json_lines(records.each(bar)), args.format)
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
    failed = records.error is not None or decoder.misfits
    return EXIT_ERRORS if failed else EXIT_OK


def _damaged(path: str, e: TraceError) -> Diagnostic:
    return diag(
        E_TRACE_DAMAGED,
        Span(path),
        f"byte offset {e.offset}: {e.reason}",
        hint="the events before this point were decoded",
    )


class _Records:
    """The reader's records; a damaged trace ends them and keeps the error."""

    def __init__(self, reader: EtlReader) -> None:
        self.reader = reader
        self.error: TraceError | None = None

    def each(self, bar: _Progress | None) -> Iterator[Record]:
        try:
            if bar is None:
                yield from self.reader
            else:
                for n, rec in enumerate(self.reader):
                    if not n & 1023:
                        bar.show(n)
                    yield rec
        except TraceError as e:
            self.error = e
        except OSError as e:  # the file could be read when opened, not now
            self.error = TraceError(self.reader.position, f"read error: {e.strerror or e}")


class _Progress:
    """A one-line progress bar on stderr (only used when stderr is a terminal)."""

    def __init__(self, reader: EtlReader) -> None:
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
    while batch := list(islice(pieces, 512)):
        out.write("".join(batch))


# --------------------------------------------------------------------------- event files


def _run_event_file(args: argparse.Namespace) -> int:
    """An event file written by etwmc's runtime: one metadata source, a JSON array."""
    if len(args.manifest) + len(args.wevt) != 1 or args.dll:
        raise UsageError("decoding an event file needs exactly one of --manifest or --wevt")
    with open_input(args.input) as events:
        manifest = _event_file_metadata(args)
        if manifest is None:
            return EXIT_ERRORS
        dec = Decoder(manifest)
        out: list[dict[str, Any]] = []
        try:
            out.extend(_record_json(dec, rec) for rec in iter_events(events))
        except (OSError, EventFileError) as e:
            sys.stderr.write(render_text([event_file_problem(args.input, e)]))
            return EXIT_ERRORS
    text = json.dumps(out, indent=2, ensure_ascii=False) + "\n"
    write_text(args.output, text)
    return EXIT_ERRORS if any("error" in item for item in out) else EXIT_OK


def _record_json(dec: Decoder, rec: EventRecord) -> dict[str, Any]:
    """One event record as decode prints it; a payload that does not decode gives an
    ``error`` member instead of the values."""
    try:
        d = dec.decode(
            rec.provider_id, rec.id, rec.version, rec.user_data, pointer_size=rec.pointer_size
        )
        item = d.to_json()
    except DecodeError as e:
        item = {
            "provider_id": str(rec.provider_id),
            "id": rec.id,
            "version": rec.version,
            "error": str(e),
        }
    item["descriptor"] = {
        "id": rec.id,
        "version": rec.version,
        "channel": rec.channel,
        "level": rec.level,
        "opcode": rec.opcode,
        "task": rec.task,
        "keyword": f"0x{rec.keyword:016X}",
    }
    item["timestamp"] = filetime_text(rec.timestamp)
    item["process_id"] = rec.process_id
    item["thread_id"] = rec.thread_id
    item["activity_id"] = str(rec.activity_id)
    if rec.related_activity_id is not None:
        item["related_activity_id"] = str(rec.related_activity_id)
    return item


def _event_file_metadata(args: argparse.Namespace) -> Manifest | None:
    if args.manifest:
        require_input(args.manifest[0])
        checked = check_file(args.manifest[0])
        if not checked.ok or checked.manifest is None:
            sys.stderr.write(render_text(checked.diagnostics))
            return None
        return checked.manifest
    manifest, problems = load_blob(args.wevt[0], args.wevt_messages[0])
    sys.stderr.write(render_text(problems))
    return manifest
