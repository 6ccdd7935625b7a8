"""Render decoded events (JSON Lines, one JSON array, or text) and the summary.

The human-readable forms (``--format text`` and the text summary) escape control
characters: provider, event and field names come from the trace itself (TraceLogging
schemas, in-band manifests), and a line feed there must not forge an event line, nor an
ESC or OSC sequence reach the terminal.  ``--format text`` also caps each event's line.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .counts import ProviderCount
from .jsonline import encode as _encode
from .jsonline import event_json

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
        for piece in pieces:
            self.used += len(piece)
            if self.used > self.limit:
                self.reached = True
                return
            yield piece


__all__ = [
    "FORMATS",
    "OutputBudget",
    "output_limit",
    "printable",
    "event_json",
    "event_text",
    "render",
    "render_json",
    "summary_json",
    "summary_text",
]


def event_text(ev: Mapping[str, Any]) -> str:
    """One event as one human-readable line (control characters escaped)."""
    who = ev["provider_name"] or ev["provider"] or "-"
    what = ev["name"] or f"id={ev['id']}"
    head = f"{ev['timestamp'] or '-'} {who} {what} [{ev['kind']}]"
    if ev.get("message"):
        body = " ".join(str(ev["message"]).split())
    elif "fields" in ev:
        body = " ".join(f"{k}={_encode(v)}" for k, v in ev["fields"].items())
    else:
        body = ""
    if len(body) > MAX_TEXT_BODY:
        body = f"{body[:MAX_TEXT_BODY]} ...({len(body) - MAX_TEXT_BODY} more characters)"
    if "trailing_bytes" in ev:
        body += f" (+{ev['trailing_bytes']} bytes)"
    tail = f" !{ev['error']}" if "error" in ev else ""
    return printable(f"{head} {body}{tail}".rstrip())


def render(events: Iterable[Mapping[str, Any]], fmt: str) -> Iterator[str]:
    """The output as pieces of text, streamed."""
    if fmt == "text":
        for ev in events:
            yield event_text(ev) + "\n"
    else:
        yield from render_json(map(event_json, events), fmt)


def render_json(lines: Iterable[str], fmt: str) -> Iterator[str]:
    """Events already written as JSON lines, as JSON Lines ("jsonl") or one array."""
    if fmt == "json":
        first = True
        for line in lines:
            yield ("[\n" if first else ",\n") + line
            first = False
        yield "[]\n" if first else "\n]\n"
        return
    for line in lines:
        yield line + "\n"


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
