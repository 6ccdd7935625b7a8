"""An event's JSON line (docs/json-lines.md), written from pieces.

Every line has the same keys in the same order (``HEAD``), then "fields" or "error"
(``TAIL``), and is always equal to ``json.dumps(obj, ensure_ascii=False,
separators=(",", ":"))`` of that object.  :class:`JsonLines` writes it with string
formatting, several times faster than the generic encoder, keeping what repeats: the
piece from "provider" to "keyword" per :class:`~etwmc.decode.event.EventHead`, the
date and time of the second events fall in, and the text of GUIDs.  All its caches
are bounded: a hostile trace's many heads or GUIDs cost time, not memory.
"""

from __future__ import annotations

import datetime as dt
import json
import uuid
from collections.abc import Callable

from .event import Event, EventHead

encode = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode

HEAD = (
    "provider", "provider_name", "name", "id", "version", "channel", "level", "opcode", "task",
    "keyword", "timestamp", "pid", "tid", "activity_id", "related_activity_id", "kind",
    "decoded", "message",
)  # fmt: skip
TAIL = ("fields", "trailing_bytes", "error")
MAX_HEADS = 4096  # heads kept written (a real trace has a few hundred)
MAX_HEAD_TEXT = 1024  # characters of a head kept written (TraceLogging names are longer)
MAX_CACHED = 65536  # GUID texts and dates kept written; more are written again
ZERO_GUID = bytes(16)
_EPOCH = dt.date(1601, 1, 1).toordinal()
_NO_IDS = ',"activity_id":null,"related_activity_id":null'


def plain_json(s: str | None) -> str:
    """A GUID or timestamp as JSON: they hold no character JSON escapes."""
    return "null" if s is None else f'"{s}"'


class Stamps:
    """Timestamps and GUIDs as text, with what repeats kept."""

    def __init__(self) -> None:
        self._days: dict[int, str] = {}
        self._guids: dict[bytes, str] = {}
        # the second of the last timestamp written, as the FILETIMEs it holds (low up
        # to high), and its date and time up to the fraction
        self.low = self.high = -1
        self.second_text = ""

    def timestamp(self, filetime: int | None) -> str | None:
        """RFC 3339 in UTC with the full 100 ns precision (7 fraction digits); None
        for no time, or one past what a date can hold."""
        if filetime is None or filetime < 0:
            return None
        seconds, frac = divmod(filetime, 10_000_000)
        if not self.low <= filetime < self.high:  # events come in time order: most share a second
            days, rest = divmod(seconds, 86400)
            date = self._days.get(days)
            if date is None:
                try:
                    date = dt.date.fromordinal(_EPOCH + days).isoformat()
                except (ValueError, OverflowError):
                    return None
                if len(self._days) < MAX_CACHED:
                    self._days[days] = date
            h, rest = divmod(rest, 3600)
            m, s = divmod(rest, 60)
            self.low = seconds * 10_000_000
            self.high = self.low + 10_000_000
            self.second_text = f"{date}T{h:02d}:{m:02d}:{s:02d}."
        # %-formats: an f-string's format spec is parsed again at every call (once per event)
        return "%s%07dZ" % (self.second_text, frac)  # noqa: UP031

    def json(self, filetime: int | None) -> str:
        """:meth:`timestamp` as JSON."""
        if filetime is not None and self.low <= filetime < self.high:
            return '"%s%07dZ"' % (self.second_text, filetime - self.low)  # noqa: UP031
        return plain_json(self.timestamp(filetime))

    def guid(self, raw: bytes) -> str | None:
        """A GUID in Windows byte order as text; None for none (empty or all zero)."""
        if not raw or raw == ZERO_GUID:
            return None
        text = self._guids.get(raw)
        if text is None:
            text = str(uuid.UUID(bytes_le=raw))
            if len(self._guids) < MAX_CACHED:
                self._guids[raw] = text
        return text


def head_json(head: EventHead) -> tuple[str, str]:
    """The line from its opening brace to the timestamp's key, and the kind's key and
    value up to the "decoded" key."""
    d = head.descriptor
    return (
        f'{{"provider":{plain_json(head.provider)},"provider_name":{encode(head.provider_name)},'
        f'"name":{encode(head.name)},"id":{d.id},"version":{d.version},"channel":{d.channel},'
        f'"level":{d.level},"opcode":{d.opcode},"task":{d.task},'
        f'"keyword":{d.keyword},"timestamp":'
    ), f'"kind":"{head.kind}","decoded":'


# Writes the line of an event of one head with no activity ids, not decoded, without
# message or error (a record that passes through), from its time, pid and tid.
BareLine = Callable[[int | None, int | None, int | None], str]
# a head, its line up to the timestamp's key, its kind's piece, and its bare line's writer
_Pieces = tuple[EventHead, str, str, BareLine]


class JsonLines:
    """Writes events as JSON lines, each followed by ``end`` (JSON Lines: a line feed),
    keeping what repeats."""

    def __init__(self, stamps: Stamps | None = None, *, end: str = "") -> None:
        self.stamps = stamps or Stamps()
        self.end = end
        # id of a head -> (the head, its pieces): the head is kept so its id stays its own
        self._heads: dict[int, _Pieces] = {}

    def _head(self, head: EventHead) -> _Pieces:
        found = self._heads.get(id(head))
        if found is not None and found[0] is head:
            return found
        start, kind = head_json(head)
        found = (
            head,
            start,
            kind,
            self._bare(start, f'{_NO_IDS},{kind}false,"message":null}}'),
        )
        if len(self._heads) < MAX_HEADS and len(start) <= MAX_HEAD_TEXT:
            self._heads[id(head)] = found
        return found

    def _bare(self, start: str, rest: str) -> BareLine:
        stamps = self.stamps
        rest += self.end

        def bare(t: int | None, pid: int | None, tid: int | None) -> str:
            return (
                f'{start}{stamps.json(t)},"pid":{"null" if pid is None else pid},'
                f'"tid":{"null" if tid is None else tid}{rest}'
            )

        return bare

    def bare_line(self, head: EventHead) -> BareLine:
        """What writes the line of an event of ``head`` with no activity ids, not
        decoded, without message or error (a record that passes through), and
        ``end``; a function of the event's time, pid and tid."""
        return self._head(head)[3]

    def line(self, ev: Event) -> str:
        """The event's JSON line, and ``end``."""
        head, t, pid, tid, activity, related, decoded, message, fields, trailing, error, _ = ev
        found = self._head(head)
        ids = (activity and activity != ZERO_GUID) or (related and related != ZERO_GUID)
        if not (ids or decoded or message is not None or error is not None):
            return found[3](t, pid, tid)
        stamps = self.stamps
        if ids:
            ids_json = (
                f',"activity_id":{plain_json(stamps.guid(activity))},'
                f'"related_activity_id":{plain_json(stamps.guid(related))}'
            )
        else:
            ids_json = _NO_IDS
        if fields is not None:
            if trailing:
                tail = f',"fields":{fields},"trailing_bytes":{trailing}}}'
            else:
                tail = f',"fields":{fields}}}'
        elif error is not None:
            tail = f',"error":{encode(error)}}}'
        else:
            tail = "}"
        return (
            f'{found[1]}{stamps.json(t)},"pid":{"null" if pid is None else pid},'
            f'"tid":{"null" if tid is None else tid}{ids_json},{found[2]}'
            f"{'true' if decoded else 'false'},"
            f'"message":{"null" if message is None else encode(message)}{tail}{self.end}'
        )
