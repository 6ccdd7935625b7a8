"""Render decoded events (JSON Lines, one JSON array, or text) and the summary."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .jsonline import encode as _encode
from .jsonline import event_json
from .trace import ProviderCount

FORMATS = ("jsonl", "json", "text")
__all__ = [
    "FORMATS",
    "event_json",
    "event_text",
    "render",
    "render_json",
    "summary_json",
    "summary_text",
]


def event_text(ev: Mapping[str, Any]) -> str:
    """One event as one human-readable line."""
    who = ev["provider_name"] or ev["provider"] or "-"
    what = ev["name"] or f"id={ev['id']}"
    head = f"{ev['timestamp'] or '-'} {who} {what} [{ev['kind']}]"
    if ev.get("message"):
        body = " ".join(str(ev["message"]).split())
    elif "fields" in ev:
        body = " ".join(f"{k}={_encode(v)}" for k, v in ev["fields"].items())
    else:
        body = ""
    tail = f" !{ev['error']}" if "error" in ev else ""
    return f"{head} {body}{tail}".rstrip()


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
        rows.append(f"{c.events:>9} {c.decoded:>9}  {guid}  {c.name or '-'} ({kinds})")
        for reason, n in sorted(c.reasons.items(), key=lambda kv: (-kv[1], kv[0])):
            rows.append(f"{n:>19}  not decoded: {reason}")
    events = sum(c.events for c in counts.values())
    decoded = sum(c.decoded for c in counts.values())
    head = f"{'events':>9} {'decoded':>9}  provider"
    return "\n".join([head, *rows, f"{events:>9} {decoded:>9}  total"]) + "\n"
