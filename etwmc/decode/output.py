"""Render decoded events (JSON Lines, one JSON array, or text) and the summary.

The human-readable forms (``--format text`` and the text summary) escape control
characters: provider, event and field names come from the trace itself (TraceLogging
schemas, in-band manifests), and a line feed there must not forge an event line, nor an
ESC or OSC sequence reach the terminal.  ``--format text`` also caps each event's line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from itertools import islice

from .counts import ProviderCount
from .etl import PassRecord, Record
from .event import Event
from .jsonline import JsonLines, Stamps
from .jsonline import encode as _encode
from .trace import TraceDecoder

FORMATS = ("jsonl", "json", "text")
MAX_TEXT_BODY = 1 << 16  # characters of one event's fields or message in --format text
# C0 controls, DEL, C1 controls, and the Unicode line and paragraph separators
_CONTROLS = {
    c: f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"
    for c in (*range(0x20), *range(0x7F, 0xA0), 0x2028, 0x2029)
}


def printable(text: str) -> str:
    """``text`` with every control character written as an escape (``\\x1b``)."""
    return text.translate(_CONTROLS)


# What decoding one trace may write: real traces write up to about 15 characters per
# byte of trace (the compressed x86 trace in ../shared/traces: 14); the limit leaves
# far more room, and stops the traces whose compressed buffers repeat a record millions
# of times (11 KB that would write gigabytes).
OUTPUT_PER_TRACE_BYTE = 256
OUTPUT_FLOOR = 16 << 20
BATCH = 512  # pieces joined into one before they are written


def output_limit(trace_size: int) -> int:
    """The most characters decoding a trace of ``trace_size`` bytes may write."""
    return OUTPUT_FLOOR + OUTPUT_PER_TRACE_BYTE * trace_size


class OutputBudget:
    """Passes text pieces on until ``limit`` characters have gone by; then stops and
    sets :attr:`reached` (the caller says so)."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.used = 0
        self.reached = False

    def take(self, pieces: Iterable[str]) -> Iterator[str]:
        """The pieces, joined into larger ones, until the limit."""
        it = iter(pieces)
        while batch := list(islice(it, BATCH)):
            text = "".join(batch)
            if self.used + len(text) <= self.limit:
                self.used += len(text)
                yield text
                continue
            kept = []  # the limit falls in this batch: the pieces before it
            for piece in batch:
                self.used += len(piece)
                if self.used > self.limit:
                    break
                kept.append(piece)
            self.reached = True
            yield "".join(kept)
            return


__all__ = [
    "FORMATS",
    "OutputBudget",
    "output_limit",
    "printable",
    "event_text",
    "render",
    "render_json",
    "render_records",
    "summary_json",
    "summary_text",
]


def event_text(ev: Event, stamps: Stamps) -> str:
    """One event as one human-readable line (control characters escaped)."""
    h = ev.head
    who = h.provider_name or h.provider or "-"
    what = h.name or f"id={h.descriptor.id}"
    head = f"{stamps.timestamp(ev.time) or '-'} {who} {what} [{h.kind}]"
    values = ev.values()
    if ev.message:
        body = " ".join(ev.message.split())
    elif values is not None:
        body = " ".join(f"{k}={_encode(v)}" for k, v in values.items())
    else:
        body = ""
    if len(body) > MAX_TEXT_BODY:
        body = f"{body[:MAX_TEXT_BODY]} ...({len(body) - MAX_TEXT_BODY} more characters)"
    if ev.trailing_bytes:
        body += f" (+{ev.trailing_bytes} bytes)"
    tail = f" !{ev.error}" if ev.error is not None else ""
    return printable(f"{head} {body}{tail}".rstrip())


def render(events: Iterable[Event], fmt: str) -> Iterator[str]:
    """Events as pieces of text ("text") or of one JSON array ("json"), streamed."""
    if fmt == "text":
        stamps = Stamps()
        return (event_text(ev, stamps) + "\n" for ev in events)
    if fmt == "json":
        return render_json(map(JsonLines().line, events))
    raise ValueError(f"render writes 'text' or 'json', not {fmt!r} (JSON Lines: render_records)")


def render_records(
    decoder: TraceDecoder, records: Iterable[Record | PassRecord], fmt: str
) -> Iterator[str]:
    """Records decoded by ``decoder``, as text, JSON Lines or one JSON array (``fmt``
    "text", "jsonl" or "json"); JSON is written by the decoder itself
    (:meth:`~etwmc.decode.trace.TraceDecoder.json_lines`), which writes the records
    that pass through without an event each."""
    if fmt == "text":
        return render(decoder.events(records), fmt)
    if fmt == "jsonl":
        return decoder.json_lines(records, JsonLines(end="\n"))
    return render_json(decoder.json_lines(records))


def render_json(lines: Iterable[str]) -> Iterator[str]:
    """Events already written as JSON lines, as one JSON array."""
    first = True
    for line in lines:
        yield ("[\n" if first else ",\n") + line
        first = False
    yield "[]\n" if first else "\n]\n"


def _ordered(counts: Mapping[str, ProviderCount]) -> list[tuple[str, ProviderCount]]:
    return sorted(counts.items(), key=lambda kv: (-kv[1].events, kv[0]))


def summary_json(counts: Mapping[str, ProviderCount]) -> str:
    providers = [
        {
            "provider": guid,
            "provider_name": c.name,
            "events": c.events,
            "decoded": c.decoded,
            "kinds": dict(sorted(c.kinds.items())),
            "not_decoded": dict(sorted(c.reasons.items(), key=lambda kv: (-kv[1], kv[0]))),
            "trailing_bytes": c.trailing,
        }
        for guid, c in _ordered(counts)
    ]
    total = {
        "events": sum(c.events for c in counts.values()),
        "decoded": sum(c.decoded for c in counts.values()),
        "providers": providers,
    }
    return json.dumps(total, indent=2, ensure_ascii=False) + "\n"


def summary_text(counts: Mapping[str, ProviderCount]) -> str:
    rows = []
    for guid, c in _ordered(counts):
        kinds = ",".join(sorted(c.kinds))
        name = printable(c.name or "-")
        rows.append(f"{c.events:>9} {c.decoded:>9}  {printable(guid)}  {name} ({kinds})")
        if c.trailing:
            rows.append(f"{c.trailing:>19}  decoded, with bytes after the described fields")
        for reason, n in sorted(c.reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append(f"{n:>19}  not decoded: {printable(reason)}")
    events = sum(c.events for c in counts.values())
    decoded = sum(c.decoded for c in counts.values())
    head = f"{'events':>9} {'decoded':>9}  provider"
    return "\n".join([head, *rows, f"{events:>9} {decoded:>9}  total"]) + "\n"
