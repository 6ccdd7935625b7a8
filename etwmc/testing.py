"""Assertions on the events an in-process session received (standard library only).

The helpers take a :class:`~etwmc.runtime.backends.session.Session` (the ``etw_session``
fixture of etwmc's pytest plugin is one) and raise ``AssertionError`` whose message lists
every event the session holds, decoded: fields by name when the backend knows the
event's layout (:meth:`~etwmc.runtime.backends.inproc.InProcBackend.install_layouts`,
or a ``ProviderRuntime`` built with ``layouts=``), else the payload in hex.

>>> record = assert_event(etw_session, 4, Logger="app.db")        # doctest: +SKIP
>>> assert_event_ids(etw_session, [1, 4, 4])                       # doctest: +SKIP
>>> assert_no_event(etw_session, level=1)                          # doctest: +SKIP
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Final

from .runtime.backends.session import Session
from .runtime.decoding import PayloadDecodeError, decode_payload
from .runtime.eventfile import EventRecord

__all__ = [
    "assert_event",
    "assert_event_ids",
    "assert_no_event",
    "decoded_fields",
    "describe_events",
    "matching_events",
]

_MAX_SHOWN: Final = 50
_MAX_HEX: Final = 64
_MISSING: Final = object()


def decoded_fields(session: Session, record: EventRecord) -> dict[str, object] | None:
    """The record's fields by name, if the session's backend knows its layout and the
    payload decodes by it; else ``None``."""
    layout = session.backend.layout(record.provider_id, record.id, record.version)
    if layout is None:
        return None
    try:
        return decode_payload(layout, record.user_data, record.pointer_size)
    except PayloadDecodeError:
        return None


def describe_events(session: Session, records: Sequence[EventRecord] | None = None) -> str:
    """A readable listing of the session's events (or of ``records``), one per line."""
    shown = list(session.events() if records is None else records)
    lines = [f"session {session.name!r} holds {len(shown)} event(s):"]
    for n, record in enumerate(shown[:_MAX_SHOWN], 1):
        head = (
            f"  #{n} {{{record.provider_id}}} id={record.id} v{record.version} "
            f"level={record.level} keyword={record.keyword:#x}"
        )
        fields = decoded_fields(session, record)
        if fields is not None:
            body = " ".join(f"{k}={v!r}" for k, v in fields.items())
        else:
            data = record.user_data
            body = "payload=" + data[:_MAX_HEX].hex(" ") + (" ..." if len(data) > _MAX_HEX else "")
        lines.append(f"{head}: {body}" if body else head)
    if len(shown) > _MAX_SHOWN:
        lines.append(f"  ... and {len(shown) - _MAX_SHOWN} more")
    return "\n".join(lines)


def matching_events(
    session: Session,
    event_id: int | None = None,
    *,
    provider: uuid.UUID | str | None = None,
    level: int | None = None,
    **fields: object,
) -> list[EventRecord]:
    """The session's events with this id, provider, level and field values (each one
    given; fields compare equal to the decoded payload's)."""
    guid = None if provider is None else _guid(provider)
    found = []
    for record in session.events():
        if event_id is not None and record.id != event_id:
            continue
        if guid is not None and record.provider_id != guid:
            continue
        if level is not None and record.level != level:
            continue
        if fields:
            values = decoded_fields(session, record)
            if values is None or any(values.get(k, _MISSING) != v for k, v in fields.items()):
                continue
        found.append(record)
    return found


def assert_event(
    session: Session,
    event_id: int | None = None,
    *,
    provider: uuid.UUID | str | None = None,
    level: int | None = None,
    count: int | None = None,
    **fields: object,
) -> EventRecord:
    """Assert that the session holds a matching event (exactly ``count`` of them, if
    given) and return the first; the failure lists every event the session holds."""
    __tracebackhide__ = True  # pytest shows the caller's line, not this helper's
    found = matching_events(session, event_id, provider=provider, level=level, **fields)
    if not found or (count is not None and len(found) != count):
        wanted = _criteria(event_id, provider, level, fields)
        how_many = "an event" if count is None else f"{count} event(s)"
        raise AssertionError(
            f"expected {how_many} matching {wanted}, found {len(found)}\n"
            + describe_events(session)
        )
    return found[0]


def assert_no_event(
    session: Session,
    event_id: int | None = None,
    *,
    provider: uuid.UUID | str | None = None,
    level: int | None = None,
    **fields: object,
) -> None:
    """Assert that no event of the session matches."""
    __tracebackhide__ = True
    found = matching_events(session, event_id, provider=provider, level=level, **fields)
    if found:
        wanted = _criteria(event_id, provider, level, fields)
        raise AssertionError(
            f"expected no event matching {wanted}, found {len(found)}\n" + describe_events(session)
        )


def assert_event_ids(session: Session, expected: Iterable[int]) -> None:
    """Assert the ids of the session's events, in order."""
    __tracebackhide__ = True
    want = list(expected)
    got = [r.id for r in session.events()]
    if got != want:
        raise AssertionError(f"expected event ids {want}, got {got}\n" + describe_events(session))


def _criteria(
    event_id: int | None,
    provider: uuid.UUID | str | None,
    level: int | None,
    fields: dict[str, object],
) -> str:
    parts = []
    if event_id is not None:
        parts.append(f"id={event_id}")
    if provider is not None:
        parts.append(f"provider={{{_guid(provider)}}}")
    if level is not None:
        parts.append(f"level={level}")
    parts += [f"{k}={v!r}" for k, v in fields.items()]
    return "(" + ", ".join(parts) + ")" if parts else "(any)"


def _guid(value: uuid.UUID | str) -> uuid.UUID:
    return value if isinstance(value, uuid.UUID) else uuid.UUID(value)
