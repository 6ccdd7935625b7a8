"""Session limits, capacity and ETW's delivery policy in the in-process backend.

From etw-semantics.md and Microsoft's pages on sessions: at most 64 global sessions and
4 private sessions per process; a provider is enabled by at most 8 sessions; a store
with a maximum size takes no more events once full; "by default, if space can't be
reserved in every interested session, the event is dropped for all of them
(EVENT_TRACE_INDEPENDENT_SESSION_MODE opts out)".
"""

from __future__ import annotations

import threading
import uuid
from pathlib import Path

import pytest

from etwmc.runtime import ProviderRuntime, SessionLimitError, pack_descriptor, read_events
from etwmc.runtime.backends.inproc import InProcBackend, Session

GUID = uuid.UUID("5e55105e-0000-4000-8000-000000000001")
LOST = 8  # ERROR_NOT_ENOUGH_MEMORY: a session had no room


@pytest.fixture
def backend() -> InProcBackend:
    return InProcBackend(clock=lambda: 0)


@pytest.fixture
def provider(backend: InProcBackend) -> ProviderRuntime:
    return ProviderRuntime(GUID, "Delivery").register(backend)


def write(provider: ProviderRuntime, event_id: int) -> int:
    return provider.write(pack_descriptor(event_id, level=4), b"")


def ids(session: Session) -> list[int]:
    return [r.id for r in session.events()]


# -- limits -----------------------------------------------------------------------------------


def test_the_fifth_private_session_is_refused(backend: InProcBackend) -> None:
    private = [backend.session(f"p{i}", private=True) for i in range(4)]
    with pytest.raises(SessionLimitError, match="4 private"):
        backend.session("p5", private=True)
    backend.session("global")  # private and global sessions are counted apart
    private[0].stop()
    backend.session("p5", private=True)  # a stopped session frees its place


def test_at_most_64_global_sessions(backend: InProcBackend) -> None:
    sessions = [backend.session(f"s{i}") for i in range(64)]
    with pytest.raises(SessionLimitError, match="64 global"):
        backend.session("s65")
    backend.session("private", private=True)
    sessions[10].stop()
    backend.session("s65")
    assert len(backend.sessions) == 65  # 64 global + 1 private


def test_private_session_receives_events(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session(private=True).enable(GUID)
    write(provider, 1)
    assert ids(s) == [1]


def test_eight_sessions_per_provider_counts_private_ones(backend: InProcBackend) -> None:
    for i in range(4):
        backend.session(f"p{i}", private=True).enable(GUID)
    for i in range(4):
        backend.session(f"g{i}").enable(GUID)
    with pytest.raises(SessionLimitError, match="8 sessions"):
        backend.session("ninth").enable(GUID)


# -- capacity -----------------------------------------------------------------------------------


def test_capacity_is_not_circular(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session(capacity=3).enable(GUID)
    statuses = [write(provider, i) for i in range(1, 6)]
    assert ids(s) == [1, 2, 3]  # the first three stay; later ones are lost
    assert s.events_lost == 2 and s.delivered == 3
    assert statuses == [0, 0, 0, LOST, LOST]
    assert s.full


def test_clear_gives_room_back(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session(capacity=1).enable(GUID)
    write(provider, 1)
    write(provider, 2)
    s.clear()
    write(provider, 3)
    assert ids(s) == [3] and s.events_lost == 1


def test_every_session_counts_lost_events(backend: InProcBackend) -> None:
    s = backend.session()
    assert s.events_lost == 0 and s.delivered == 0


def test_bad_capacity(backend: InProcBackend) -> None:
    for bad in (0, -1, 1.5, True):
        with pytest.raises(ValueError):
            backend.session(capacity=bad)  # type: ignore[arg-type]


# -- all or nothing -----------------------------------------------------------------------------


def test_a_full_session_costs_every_dependent_session_the_event(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    small = backend.session("small", capacity=1).enable(GUID)
    big = backend.session("big").enable(GUID)
    assert write(provider, 1) == 0
    assert write(provider, 2) == LOST  # small is full: nobody gets event 2
    assert ids(small) == [1] and ids(big) == [1]
    assert small.events_lost == 1 and big.events_lost == 1
    small.clear()  # room again: delivery resumes for both
    write(provider, 3)
    assert ids(small) == [3] and ids(big) == [1, 3]


def test_only_interested_sessions_count(backend: InProcBackend, provider: ProviderRuntime) -> None:
    full = backend.session("full", capacity=1).enable(GUID, level=1)
    other = backend.session("other").enable(GUID)
    provider.write(pack_descriptor(1, level=1), b"")  # fills "full"
    provider.write(pack_descriptor(2, level=4), b"")  # "full" is not interested: delivered
    provider.write(pack_descriptor(3, level=1), b"")  # "full" is interested: lost for both
    assert ids(other) == [1, 2]
    assert full.events_lost == 1 and other.events_lost == 1


def test_independent_session_takes_events_whatever_the_others_do(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    full = backend.session("full", capacity=1).enable(GUID)
    independent = backend.session("independent", independent=True).enable(GUID)
    write(provider, 1)
    write(provider, 2)  # lost for "full", still taken by the independent session
    assert ids(full) == [1] and ids(independent) == [1, 2]
    assert full.events_lost == 1 and independent.events_lost == 0


def test_independent_session_failure_costs_others_nothing(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    small = backend.session("small", capacity=1, independent=True).enable(GUID)
    big = backend.session("big").enable(GUID)
    write(provider, 1)
    assert write(provider, 2) == LOST  # lost for small only
    assert ids(small) == [1] and ids(big) == [1, 2]
    assert small.events_lost == 1 and big.events_lost == 0


def test_two_independent_sessions_fail_alone(
    backend: InProcBackend, provider: ProviderRuntime
) -> None:
    one = backend.session("one", capacity=1, independent=True).enable(GUID)
    three = backend.session("three", capacity=3, independent=True).enable(GUID)
    for i in range(1, 5):
        write(provider, i)
    assert ids(one) == [1] and ids(three) == [1, 2, 3]
    assert (one.events_lost, three.events_lost) == (3, 1)


def test_circular_buffer_never_refuses(backend: InProcBackend, provider: ProviderRuntime) -> None:
    ring = backend.session("ring", buffer=2).enable(GUID)
    other = backend.session("other").enable(GUID)
    for i in range(1, 6):
        assert write(provider, i) == 0
    assert ids(ring) == [4, 5] and ids(other) == [1, 2, 3, 4, 5]
    assert ring.events_lost == 0 and ring.delivered == 5


def test_consumer_and_file_see_only_what_the_session_took(
    backend: InProcBackend, provider: ProviderRuntime, tmp_path: Path
) -> None:
    seen: list[int] = []
    path = tmp_path / "capped.etwmc"
    s = backend.session(capacity=2, consumer=lambda r: seen.append(r.id), path=path)
    s.enable(GUID)
    for i in range(1, 5):
        write(provider, i)
    s.stop()
    assert seen == [1, 2]
    assert [r.id for r in read_events(path)] == [1, 2]


def test_stopped_session_takes_nothing(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session().enable(GUID)
    write(provider, 1)
    s.stop()
    write(provider, 2)
    assert ids(s) == [1]
    assert s not in backend.sessions
    with pytest.raises(ValueError, match="stopped"):
        s.enable(GUID)


def test_concurrent_writers_lose_nothing(backend: InProcBackend, provider: ProviderRuntime) -> None:
    ring = backend.session("ring", buffer=None, consumer=lambda r: None).enable(GUID)
    store = backend.session("store", buffer=100_000).enable(GUID)
    capped = backend.session("capped", capacity=50_000, independent=True).enable(GUID)

    native: set[int] = set()

    def writer(base: int) -> None:
        native.add(threading.get_native_id())
        for i in range(2_000):
            write(provider, base + i % 1000)

    threads = [threading.Thread(target=writer, args=(k * 1000,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert ring.delivered == store.delivered == capped.delivered == 16_000
    assert len(store.events()) == 16_000
    assert {r.thread_id for r in store.events()} == native  # each thread's own id


def test_consumer_replaced_while_enabled(backend: InProcBackend, provider: ProviderRuntime) -> None:
    s = backend.session(buffer=10).enable(GUID)
    write(provider, 1)  # the write path now knows the session has no consumer
    seen: list[int] = []
    s.consumer = lambda r: seen.append(r.id)
    write(provider, 2)
    s.consumer = None
    write(provider, 3)
    assert seen == [2] and ids(s) == [1, 2, 3]
