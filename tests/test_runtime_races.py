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

from etwmc.runtime import ProviderRuntime, pack_descriptor, read_events
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


def _writers(
    n: int, work: Callable[[threading.Event], None]
) -> tuple[threading.Event, list[threading.Thread]]:
    stop = threading.Event()
    threads = [threading.Thread(target=work, args=(stop,), daemon=True) for _ in range(n)]
    for t in threads:
        t.start()
    return stop, threads


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
