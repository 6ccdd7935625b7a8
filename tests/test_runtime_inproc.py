"""In-process sessions: ETW's combination, per-session filtering, capture state, sinks."""

from __future__ import annotations

import itertools
import uuid
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from etwmc.runtime import (
    EnableState,
    ProviderRuntime,
    pack_descriptor,
    read_events,
)
from etwmc.runtime.backends.inproc import InProcBackend, SessionLimitError

ALL = 0xFFFF_FFFF_FFFF_FFFF
GUID = uuid.UUID("5a1b2c3d-0000-4000-8000-000000000001")


@pytest.fixture
def backend() -> InProcBackend:
    ticks = itertools.count(1000)
    return InProcBackend(clock=lambda: next(ticks))


def make_provider(backend: InProcBackend) -> tuple[ProviderRuntime, list[EnableState]]:
    seen: list[EnableState] = []
    provider = ProviderRuntime(GUID, "Test-Provider", on_enable=seen.append)
    provider.register(backend)
    return provider, seen


def ids(records: object) -> list[int]:
    return [r.id for r in records]  # type: ignore[attr-defined]


def test_single_session_callback_and_filtering(backend: InProcBackend) -> None:
    provider, seen = make_provider(backend)
    with backend.session("s") as s:
        s.enable(GUID, level=4, match_any=0x1)
        assert seen == [EnableState(1, 4, 0x1, 0)]
        assert provider.state == EnableState(1, 4, 0x1, 0)
        provider.write(pack_descriptor(1, level=4, keyword=0x1), b"a")
        provider.write(pack_descriptor(2, level=5, keyword=0x1), b"b")  # too verbose
        provider.write(pack_descriptor(3, level=4, keyword=0x2), b"c")  # wrong keyword
        provider.write(pack_descriptor(4, level=0, keyword=0), b"d")  # LogAlways, no keyword
        assert ids(s.events()) == [1, 4]
    assert seen[-1] == EnableState(0, 0, 0, 0)
    assert not provider.is_enabled


def test_two_sessions_combined_then_one_leaves(backend: InProcBackend) -> None:
    provider, seen = make_provider(backend)
    a = backend.session("a").enable(GUID, level=2, match_any=0x1, match_all=0x1)
    b = backend.session("b").enable(GUID, level=5, match_any=0x6, match_all=0x2)
    # max level, OR of MatchAny, AND of MatchAll
    assert seen[-1] == EnableState(1, 5, 0x7, 0x0)
    provider.write(pack_descriptor(10, level=2, keyword=0x1), b"")
    provider.write(pack_descriptor(11, level=5, keyword=0x2), b"")
    provider.write(pack_descriptor(12, level=2, keyword=0x3), b"")
    provider.write(pack_descriptor(13, level=5, keyword=0x4), b"")  # b needs bit 0x2
    assert ids(a.events()) == [10, 12]
    assert ids(b.events()) == [11, 12]
    b.stop()
    # ENABLE again with only a's values
    assert seen[-1] == EnableState(1, 2, 0x1, 0x1)
    a.disable(GUID)
    assert seen[-1] == EnableState(0, 0, 0, 0)
    provider.write(pack_descriptor(14, level=1, keyword=0x1), b"")
    assert ids(a.events()) == [10, 12]


def test_session_level_zero_receives_every_level(backend: InProcBackend) -> None:
    provider, seen = make_provider(backend)
    a = backend.session("a").enable(GUID, level=0)
    assert seen[-1].level == 0
    provider.write(pack_descriptor(1, level=200), b"")
    provider.write(pack_descriptor(2, level=0), b"")
    provider.write(pack_descriptor(3, level=5), b"")
    assert ids(a.events()) == [1, 2, 3]


def test_level_zero_combined_is_the_most_verbose(backend: InProcBackend) -> None:
    provider, seen = make_provider(backend)
    a = backend.session("a").enable(GUID, level=0, match_any=0x1)
    b = backend.session("b").enable(GUID, level=3, match_any=0x2)
    # the combination is the most verbose level, and 0 is more verbose than 3
    assert seen[-1] == EnableState(1, 0, 0x3, 0)
    assert provider.enabled(5, 0x2)  # the combined state lets level 5 through ...
    provider.write(pack_descriptor(1, level=5, keyword=0x1), b"")
    provider.write(pack_descriptor(2, level=5, keyword=0x2), b"")  # ... b still filters it
    provider.write(pack_descriptor(3, level=3, keyword=0x2), b"")
    provider.write(pack_descriptor(4, level=0, keyword=0), b"")
    assert ids(a.events()) == [1, 4]
    assert ids(b.events()) == [3, 4]
    a.stop()
    assert seen[-1] == EnableState(1, 3, 0x2, 0)  # without a, level 3 again


def test_ignore_keyword_0(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    plain = backend.session("plain").enable(GUID, level=5, match_any=0x1)
    strict = backend.session("strict").enable(GUID, level=5, match_any=0x1, ignore_keyword_0=True)
    provider.write(pack_descriptor(1, level=4, keyword=0), b"")
    provider.write(pack_descriptor(2, level=4, keyword=0x1), b"")
    assert ids(plain.events()) == [1, 2]
    assert ids(strict.events()) == [2]


def test_match_any_zero_is_only_keyword_zero(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    s = backend.session().enable(GUID, level=5, match_any=0)
    provider.write(pack_descriptor(1, level=4, keyword=0x1), b"")
    provider.write(pack_descriptor(2, level=4, keyword=0), b"")
    assert ids(s.events()) == [2]


def test_enable_before_register_fires_inside_register(backend: InProcBackend) -> None:
    s = backend.session().enable(GUID, level=3, match_any=0x8)
    seen: list[EnableState] = []
    provider = ProviderRuntime(GUID, "Late", on_enable=seen.append)
    provider.register(backend)
    assert seen == [EnableState(1, 3, 0x8, 0)]
    provider.write(pack_descriptor(7, level=3, keyword=0x8), b"x")
    assert ids(s.events()) == [7]


def test_capture_state_reaches_hook_with_session_values(backend: InProcBackend) -> None:
    captures: list[EnableState] = []
    provider, seen = make_provider(backend)
    provider.on_capture_state = captures.append
    a = backend.session("a").enable(GUID, level=2, match_any=0x1)
    backend.session("b").enable(GUID, level=5, match_any=0x2)
    before = provider.state
    a.capture_state(GUID)
    assert captures == [EnableState(2, 2, 0x1, 0)]
    assert provider.state == before  # capture state does not change the enable state
    assert len(seen) == 2


def test_eight_sessions_at_most(backend: InProcBackend) -> None:
    sessions = [backend.session(f"s{i}").enable(GUID) for i in range(8)]
    with pytest.raises(SessionLimitError, match="8"):
        backend.session("ninth").enable(GUID)
    sessions[0].enable(GUID, level=1)  # re-enabling an existing session is fine
    sessions[0].stop()
    backend.session("ninth-again").enable(GUID)


def test_two_registrations_of_one_guid(backend: InProcBackend) -> None:
    p1, seen1 = make_provider(backend)
    p2, seen2 = make_provider(backend)
    s = backend.session().enable(GUID, level=4)
    assert seen1 == seen2 == [EnableState(1, 4, ALL, 0)]
    p1.write(pack_descriptor(1, level=4), b"")
    p2.write(pack_descriptor(2, level=4), b"")
    p2.unregister()
    assert seen2[-1] == EnableState(0, 0, 0, 0)
    assert p1.is_enabled
    assert ids(s.events()) == [1, 2]


def test_record_fields(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    s = backend.session().enable(GUID, level=5)
    act, rel = uuid.uuid4(), uuid.uuid4()
    provider.write(
        pack_descriptor(300, 2, 16, 4, 1, 9, 0x10), b"\x01\x02", act.bytes_le, rel.bytes_le
    )
    provider.write(pack_descriptor(301, level=4), b"")
    r, r2 = s.events()
    assert (r.provider_id, r.id, r.version, r.channel, r.level, r.opcode, r.task, r.keyword) == (
        GUID,
        300,
        2,
        16,
        4,
        1,
        9,
        0x10,
    )
    assert (r.activity_id, r.related_activity_id, r.user_data) == (act, rel, b"\x01\x02")
    assert r.timestamp == 1000 and r2.timestamp == 1001
    assert r2.activity_id == uuid.UUID(int=0) and r2.related_activity_id is None
    assert r.pointer_size in (4, 8) and r.process_id > 0 and r.thread_id > 0


def test_bad_writes_return_status_not_exceptions(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    backend.session().enable(GUID)
    assert provider.write(b"short", b"") == 87
    assert provider.write(pack_descriptor(1), b"", b"\0" * 3) == 87
    assert provider.write(pack_descriptor(1), b"\0" * 70_000) == 534
    assert backend.write(object(), pack_descriptor(1), None, None, b"") == 6


def test_circular_buffer_keeps_newest(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    s = backend.session(buffer=3).enable(GUID)
    for i in range(1, 8):
        provider.write(pack_descriptor(i, level=4), b"")
    assert ids(s.events()) == [5, 6, 7]
    assert s.delivered == 7


def test_realtime_consumer_and_failing_consumer(backend: InProcBackend) -> None:
    provider, _ = make_provider(backend)
    got: list[int] = []
    live = backend.session(buffer=None, consumer=lambda r: got.append(r.id)).enable(GUID)

    def boom(_: object) -> None:
        raise RuntimeError("consumer bug")

    broken = backend.session(consumer=boom).enable(GUID)
    assert provider.write(pack_descriptor(1, level=4), b"") == 0
    assert got == [1]
    assert live.events() == []
    assert broken.consumer_errors == 1 and isinstance(broken.last_error, RuntimeError)
    assert ids(broken.events()) == [1]


def test_session_to_file(backend: InProcBackend, tmp_path: Path) -> None:
    provider, _ = make_provider(backend)
    path = tmp_path / "trace.etwmc"
    with backend.session(path=path) as s:
        s.enable(GUID, level=4)
        provider.write(pack_descriptor(1, level=4), b"one")
        provider.write(pack_descriptor(2, level=5), b"filtered")
        provider.write(pack_descriptor(3, level=1), b"three")
        in_memory = s.events()
    assert list(read_events(path)) == in_memory
    assert [r.user_data for r in in_memory] == [b"one", b"three"]


def test_stopped_session_rejects_enable(backend: InProcBackend) -> None:
    s = backend.session()
    s.stop()
    s.stop()
    with pytest.raises(ValueError, match="stopped"):
        s.enable(GUID)


def test_enable_argument_checks(backend: InProcBackend) -> None:
    s = backend.session()
    with pytest.raises(ValueError):
        s.enable(GUID, level=256)
    with pytest.raises(ValueError):
        s.enable(GUID, match_any=-1)
    with pytest.raises(ValueError):
        backend.session(buffer=0)


def _wants(level: int, keyword: int, s: tuple[int, int, int, bool]) -> bool:
    # ETW's per-session rule written out independently of the implementation.
    s_level, s_any, s_all, ignore0 = s
    level_ok = level == 0 or s_level == 0 or level <= s_level
    if keyword == 0:
        return not ignore0 and level_ok
    return level_ok and (keyword & s_any) != 0 and (keyword & s_all) == s_all


small_kw = st.integers(0, 0xF)
session_specs = st.tuples(st.integers(0, 6), small_kw, small_kw, st.booleans())
event_specs = st.tuples(st.integers(0, 6), small_kw)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(session_specs, min_size=1, max_size=8),
    st.lists(event_specs, max_size=12),
    st.integers(0, 8),
)
def test_sessions_receive_exactly_what_they_asked_for(
    specs: list[tuple[int, int, int, bool]], events: list[tuple[int, int]], leave: int
) -> None:
    backend = InProcBackend(clock=lambda: 0)
    seen: list[EnableState] = []
    provider = ProviderRuntime(GUID, "P", on_enable=seen.append).register(backend)
    sessions = [
        backend.session(f"s{i}").enable(GUID, lv, any_, all_, ignore_keyword_0=ig)
        for i, (lv, any_, all_, ig) in enumerate(specs)
    ]
    # one session may leave; the callback then reports the remaining combination
    if leave < len(sessions):
        sessions[leave].stop()
    remaining = [
        (s, spec) for i, (s, spec) in enumerate(zip(sessions, specs, strict=True)) if i != leave
    ]
    if remaining:
        levels = [spec[0] for _, spec in remaining]
        # the most verbose level; a session at level 0 receives every level
        expected_level = 0 if 0 in levels else max(levels)
        expected_any = 0
        expected_all = ALL
        for _, spec in remaining:
            expected_any |= spec[1]
            expected_all &= spec[2]
        assert seen[-1] == EnableState(1, expected_level, expected_any, expected_all)
    else:
        assert seen[-1] == EnableState(0, 0, 0, 0)
    for n, (lv, kw) in enumerate(events):
        # like a generated module: write only what the combined state lets through
        if provider.enabled(lv, kw):
            provider.write(pack_descriptor(n, level=lv, keyword=kw), b"")
    for session, spec in remaining:
        wanted = [n for n, (lv, kw) in enumerate(events) if _wants(lv, kw, spec)]
        assert ids(session.events()) == wanted  # the combined state lost nothing
