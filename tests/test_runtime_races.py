"""Races between writers and the controller: no event is lost without being counted.

Each test runs writer threads against a session or an enable state that changes under
them, with the interpreter's thread switch interval shortened so that threads change
often, for a bounded time (a fraction of a second to a few seconds); each failed within
its first rounds before the fix it covers.
"""

from __future__ import annotations

import os
import stat
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from codegen_helpers import HELLO, generate, load

from conftest import slow
from etwmc.runtime import EventRecord, ProviderRuntime, pack_descriptor, read_events
from etwmc.runtime.backends import delivery
from etwmc.runtime.backends.inproc import InProcBackend

GUID = uuid.UUID("5e55105e-0000-4000-8000-0000000000a1")
DESCRIPTOR = pack_descriptor(1, level=4)


@pytest.fixture(autouse=True)
def busy_switching() -> Iterator[None]:
    """Threads switch every microsecond instead of every 5 ms."""
    previous = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(previous)


@pytest.fixture(params=["lock-free", "locked"])
def write_path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Both write paths: the common case without the lock (a build with the GIL) and
    every write under the lock (a free-threaded build)."""
    monkeypatch.setattr(delivery, "_GIL", [request.param == "lock-free"])
    return str(request.param)


def _writers(
    n: int, work: Callable[[threading.Event], None]
) -> tuple[threading.Event, list[threading.Thread]]:
    stop = threading.Event()
    threads = [threading.Thread(target=work, args=(stop,), daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    return stop, threads


@slow
def test_after_stop_the_file_holds_every_event_the_session_took(tmp_path: Path) -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)

    def work(stop: threading.Event) -> None:
        while not stop.is_set():
            provider.write(DESCRIPTOR, b"x" * 16)

    stop, threads = _writers(3, work)
    short = []
    try:
        deadline = time.monotonic() + 1.5
        rounds = 0
        while time.monotonic() < deadline or rounds < 20:
            rounds += 1
            path = tmp_path / f"s{rounds}.etwmc"
            session = backend.session(f"s{rounds}", buffer=None, path=path).enable(GUID)
            while session.delivered < 50:
                time.sleep(0)
            session.stop()
            delivered = session.delivered
            in_file = sum(1 for _ in read_events(path))
            if in_file != delivered:
                short.append((rounds, delivered, in_file))
    finally:
        stop.set()
        for t in threads:
            t.join()
        provider.unregister()
    assert short == [], f"{len(short)} of {rounds} sessions miss events in their file"


def _full_device(path: Path) -> Path:
    """A character device like the system's "full" device (writes fail with ENOSPC),
    made in the test's own folder."""
    os.mknod(path, stat.S_IFCHR | 0o600, os.makedev(1, 7))
    return path


def test_a_file_that_refuses_writes_counts_every_record_it_lost(tmp_path: Path) -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)
    session = backend.session(buffer=None, path=_full_device(tmp_path / "full")).enable(GUID)
    for _ in range(2_000):  # about 3 chunks of the writer's 64 KiB
        assert provider.write(DESCRIPTOR, b"y" * 40) == 0  # the writer never sees the error
    session.stop()  # the last chunk fails too, without raising
    provider.unregister()
    assert session.delivered == 2_000
    assert session.file_errors == 2_000
    assert isinstance(session.last_error, OSError)


def test_event_file_writer_counts_what_each_failed_write_cost(tmp_path: Path) -> None:
    from etwmc.runtime.eventfile import EventFileWriter, EventRecord

    writer = EventFileWriter(_full_device(tmp_path / "full"))
    failures = 0
    for i in range(1_000):
        try:
            writer.write(EventRecord(provider_id=GUID, id=i, user_data=bytes(100)))
        except OSError:
            failures += 1
    with pytest.raises(OSError):
        writer.close()
    assert failures >= 1 and writer.count == writer.lost == 1_000


@slow
def test_start_helpers_never_write_an_event_without_its_payload(tmp_path: Path) -> None:
    """start_<Event> while a session enables and disables the provider: every event
    written carries its fields (the enable flag is read once per call)."""
    _, path = generate(HELLO, tmp_path)
    hello = load(path)
    backend = InProcBackend()
    empty: list[int] = []
    taken: list[int] = []

    def consumer(record: object) -> None:
        data = record.user_data  # type: ignore[attr-defined]
        (empty if not data else taken).append(len(data))

    session = backend.session(buffer=None, consumer=consumer)
    hello.register(backend)

    def toggle(stop: threading.Event) -> None:
        while not stop.is_set():
            session.enable(hello.HELLO_PROVIDER.GUID, level=5)
            session.disable(hello.HELLO_PROVIDER.GUID)

    stop, threads = _writers(1, toggle)
    try:
        deadline = time.monotonic() + 1.5
        calls = 0
        while time.monotonic() < deadline and not empty:
            for _ in range(200):
                hello.start_RequestStart(7, "/x", 0).stop()
            calls += 200
    finally:
        stop.set()
        for t in threads:
            t.join()
        hello.unregister()
        session.stop()
    assert empty == [], f"{len(empty)} of {calls} calls wrote an event without its payload"
    assert taken, "the toggling never enabled a call: the test did not exercise the race"


# -- the lock-free write path: one session with a memory store and nothing else ------------


def _stream(provider: ProviderRuntime) -> Callable[[threading.Event], None]:
    """A writer whose payloads say which of its events each one is."""

    def work(stop: threading.Event) -> None:
        n = 0
        while not stop.is_set():
            provider.write(DESCRIPTOR, n.to_bytes(8, "little"))
            n += 1

    return work


def test_writers_count_and_keep_every_event(write_path: str) -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)
    session = backend.session(buffer=100_000).enable(GUID)
    native: set[int] = set()

    def writer() -> None:
        native.add(threading.get_native_id())
        for _ in range(3_000):
            provider.write(DESCRIPTOR, b"w")

    threads = [threading.Thread(target=writer) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    provider.unregister()
    assert session.delivered == 18_000
    events = session.events()
    assert len(events) == 18_000
    assert {e.thread_id for e in events} == native


@pytest.mark.parametrize("change", ["stop", "disable", "unregister"])
def test_nothing_lands_after_a_change_returns(change: str, write_path: str) -> None:
    """Writers race a stop, a disable or an unregistration: once it has returned, the
    session's count no longer moves, and its store holds what it counts."""
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)
    stop, threads = _writers(2, _stream(provider))
    late = []
    try:
        deadline = time.monotonic() + 0.3
        rounds = 0
        while time.monotonic() < deadline or rounds < 10:
            rounds += 1
            if not provider.registered:
                provider.register(backend)
            session = backend.session(f"s{rounds}", buffer=1_000_000).enable(GUID)
            while session.delivered < 20:
                time.sleep(0)
            if change == "stop":
                session.stop()
            elif change == "disable":
                session.disable(GUID)
            else:
                provider.unregister()
            taken = session.delivered
            time.sleep(0.001)  # the writers go on meanwhile
            if (session.delivered, len(session.events())) != (taken, taken):
                late.append((rounds, taken, session.delivered, len(session.events())))
            session.stop()
    finally:
        stop.set()
        for t in threads:
            t.join()
        provider.unregister()
    assert late == [], f"{len(late)} of {rounds} changes let events in after they returned"


def test_a_new_consumer_sees_every_event_stored_after_it_was_set(write_path: str) -> None:
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)
    stop, threads = _writers(2, _stream(provider))
    missed = []
    try:
        deadline = time.monotonic() + 0.3
        rounds = 0
        while time.monotonic() < deadline or rounds < 10:
            rounds += 1
            session = backend.session(f"s{rounds}", buffer=1_000_000).enable(GUID)
            while session.delivered < 20:
                time.sleep(0)
            seen: set[tuple[int, bytes]] = set()

            def consume(record: EventRecord, seen: set[tuple[int, bytes]] = seen) -> None:
                seen.add((record.thread_id, record.user_data))

            session.consumer = consume
            before = session.delivered  # stored before this line: maybe seen, maybe not
            while len(seen) < 20:
                time.sleep(0)
            session.stop()
            later = {(r.thread_id, r.user_data) for r in session.events()[before:]}
            # A consumer may still be called after stop() for events taken before it
            # (Session.stop, as ETW's consumers get the last buffers): wait for those.
            waited = time.monotonic() + 10
            while not later <= seen and time.monotonic() < waited:
                time.sleep(0.001)
            if not later <= seen:
                missed.append((rounds, len(later - seen)))
    finally:
        stop.set()
        for t in threads:
            t.join()
        provider.unregister()
    assert missed == [], f"{len(missed)} of {rounds} consumers missed stored events"


def test_a_build_without_the_gil_writes_every_event_under_the_lock(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Where the lock-free path's ordering cannot be relied on, no writer publishes the
    routes it writes through: each write is made under the backend's lock."""
    monkeypatch.setattr(delivery, "_GIL", [False])
    backend = InProcBackend()
    provider = ProviderRuntime(GUID, "Races").register(backend)
    session = backend.session(buffer=10).enable(GUID)
    published = []
    real_write = delivery._write

    def spy(*args: object) -> int:
        published.append(delivery.local_states.__dict__.get("state"))
        return real_write(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(delivery, "_write", spy)
    for _ in range(3):
        provider.write(DESCRIPTOR, b"w")
    provider.unregister()
    assert len(published) == 3
    assert session.delivered == 3 and len(session.events()) == 3
