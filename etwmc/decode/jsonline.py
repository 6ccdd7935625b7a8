"""An event's JSON line, written from pieces.

Every event has the same keys in the same order (``HEAD``), then "fields" or "error"
(``TAIL``).  The pieces here write them with string formatting, which is several
times faster than the generic encoder; the line is always equal to
``json.dumps(ev, ensure_ascii=False, separators=(",", ":"))``.  The first piece, from
"provider" to "keyword", is the same for every event with the same descriptor and
names, so :class:`~etwmc.decode.trace.TraceDecoder` keeps it made per descriptor.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

HEAD = (
    "provider", "provider_name", "name", "id", "version", "channel", "level", "opcode", "task",
    "keyword", "timestamp", "pid", "tid", "activity_id", "related_activity_id", "kind",
    "decoded", "message",
)  # fmt: skip
TAIL = ("fields", "trailing_bytes", "error")
MAX_NAMES = 65536  # names kept encoded; more are encoded again

_names: dict[str | None, str] = {None: "null"}


def name_json(s: str | None) -> str:
    """A provider or event name as JSON (they repeat: kept encoded, a bounded number)."""
    found = _names.get(s)
    if found is None:
        found = encode(s)
        if len(_names) < MAX_NAMES:
            _names[s] = found
    return found


def plain_json(s: str | None) -> str:
    """A GUID or timestamp as JSON: they hold no character JSON escapes."""
    return "null" if s is None else f'"{s}"'


def head_json(
    provider: str | None,
    provider_name: str | None,
    name: str | None,
    event_id: int,
    version: int,
    channel: int,
    level: int,
    opcode: int,
    task: int,
    keyword: int,
) -> str:
    """The line from its opening brace to the timestamp's key (its value follows)."""
    return (
        f'{{"provider":{plain_json(provider)},"provider_name":{name_json(provider_name)},'
        f'"name":{name_json(name)},"id":{event_id},"version":{version},"channel":{channel},'
        f'"level":{level},"opcode":{opcode},"task":{task},'
        f'"keyword":{keyword},"timestamp":'
    )


def event_head(ev: Mapping[str, Any], name: str | None) -> str:
    """:func:`head_json` of an event's provider and descriptor, with ``name``."""
    return head_json(
        ev["provider"],
        ev["provider_name"],
        name,
        ev["id"],
        ev["version"],
        ev["channel"],
        ev["level"],
        ev["opcode"],
        ev["task"],
        ev["keyword"],
    )


def body_json(ev: Mapping[str, Any]) -> str:
    """The line from the timestamp's value to the message's value."""
    message = ev["message"]
    pid = ev["pid"]
    tid = ev["tid"]
    return (
        f'{plain_json(ev["timestamp"])},"pid":{"null" if pid is None else pid},'
        f'"tid":{"null" if tid is None else tid},'
        f'"activity_id":{plain_json(ev["activity_id"])},'
        f'"related_activity_id":{plain_json(ev["related_activity_id"])},'
        f'"kind":"{ev["kind"]}","decoded":{"true" if ev["decoded"] else "false"},'
        f'"message":{"null" if message is None else encode(message)}'
    )


def tail_json(ev: Mapping[str, Any]) -> str:
    """The "fields" or "error" of an event, if it has one, and the closing brace."""
    if "fields" in ev:
        if "trailing_bytes" in ev:
            return f',"fields":{encode(ev["fields"])},"trailing_bytes":{ev["trailing_bytes"]}}}'
        return f',"fields":{encode(ev["fields"])}}}'
    if "error" in ev:
        return f',"error":{encode(ev["error"])}}}'
    return "}"


def event_json(ev: Mapping[str, Any]) -> str:
    """One event as one line of JSON (no trailing newline).

    Equal to ``json.dumps(ev, ensure_ascii=False, separators=(",", ":"))``; keys this
    writer does not know, or an id that is no integer, go to the generic encoder."""
    if len(ev) > len(HEAD) + len(TAIL) or type(ev["id"]) is not int:
        return encode(ev)
    line = event_head(ev, ev["name"]) + body_json(ev)
    n = len(HEAD)
    for key in TAIL:
        if key in ev:
            line += f',"{key}":{encode(ev[key])}'
            n += 1
    if n != len(ev):  # keys this writer does not know: the generic encoder decides
        return encode(ev)
    return line + "}"
