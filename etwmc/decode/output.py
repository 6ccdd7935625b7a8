"""Render decoded events (JSON Lines, one JSON array, or text) and the summary."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from .trace import ProviderCount

FORMATS = ("jsonl", "json", "text")

_encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

# The keys every event has, in order; "fields" and "error" may follow.
HEAD = (
    "provider", "provider_name", "name", "id", "version", "level", "opcode", "task",
    "keyword", "timestamp", "pid", "tid", "activity_id", "related_activity_id", "kind",
    "decoded", "message",
)  # fmt: skip
_TAIL = ("fields", "error")
_names: dict[str | None, str] = {None: "null"}


def _name(s: str | None) -> str:
    """A provider or event name as JSON (they repeat: kept encoded, a bounded number)."""
    found = _names.get(s)
    if found is None:
        found = _encode(s)
        if len(_names) < 65536:
            _names[s] = found
    return found


def _plain(s: str | None) -> str:
    """A GUID or timestamp as JSON: they hold no character JSON escapes."""
    return "null" if s is None else f'"{s}"'


def _int(v: int | None) -> str:
    return "null" if v is None else str(v)


def event_json(ev: Mapping[str, Any]) -> str:
    """One event as one line of JSON (no trailing newline).

    Equal to ``json.dumps(ev, ensure_ascii=False, separators=(",", ":"))``; the keys
    every event has are written with string formatting, which is about three times
    faster than the generic encoder, and the rest with the encoder."""
    if len(ev) > len(HEAD) + len(_TAIL) or type(ev["id"]) is not int:
        return _encode(ev)
    message = ev["message"]
    line = (
        f'{{"provider":{_plain(ev["provider"])},"provider_name":{_name(ev["provider_name"])},'
        f'"name":{_name(ev["name"])},"id":{ev["id"]},"version":{ev["version"]},'
        f'"level":{ev["level"]},"opcode":{ev["opcode"]},"task":{ev["task"]},'
        f'"keyword":{ev["keyword"]},"timestamp":{_plain(ev["timestamp"])},'
        f'"pid":{_int(ev["pid"])},"tid":{_int(ev["tid"])},'
        f'"activity_id":{_plain(ev["activity_id"])},'
        f'"related_activity_id":{_plain(ev["related_activity_id"])},'
        f'"kind":"{ev["kind"]}","decoded":{"true" if ev["decoded"] else "false"},'
        f'"message":{"null" if message is None else _encode(message)}'
    )
    n = len(HEAD)
    for key in _TAIL:
        if key in ev:
            line += f',"{key}":{_encode(ev[key])}'
            n += 1
    if n != len(ev):  # keys this writer does not know: the generic encoder decides
        return _encode(ev)
    return line + "}"


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
    if fmt == "json":
        first = True
        for ev in events:
            yield ("[\n" if first else ",\n") + event_json(ev)
            first = False
        yield "[]\n" if first else "\n]\n"
        return
    line = event_text if fmt == "text" else event_json
    for ev in events:
        yield line(ev) + "\n"


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
