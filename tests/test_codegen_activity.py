"""Start/Stop helpers of generated modules and the activity id that follows the caller."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import uuid
from types import ModuleType

import pytest
from codegen_helpers import HELLO, generate, load

from etwmc.runtime import activity, current_activity_id
from etwmc.runtime.backends.inproc import InProcBackend, Session


@pytest.fixture(scope="module")
def hello(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    _, path = generate(HELLO, tmp_path_factory.mktemp("hello"))
    return load(path)


@pytest.fixture()
def session(hello: ModuleType) -> Session:
    b = InProcBackend()
    s = b.session().enable(hello.HELLO_PROVIDER.GUID)
    hello.register(b)
    yield s
    hello.unregister()
    s.stop()


def test_start_and_stop_helpers(hello: ModuleType, session: Session) -> None:
    parent = uuid.uuid4()
    act = hello.start_RequestStart(7, "/index", 0, related_activity_id=parent)
    assert current_activity_id() == act.id
    hello.write_Hello("inside", 1, 1)  # no explicit id: the current activity's
    assert hello.stop_RequestStop(7, "/index", 200, activity=act) == 0
    assert current_activity_id() is None
    start, inside, stop = session.events()
    assert (start.id, start.opcode, start.task) == (2, 1, 1)
    assert start.activity_id == act.uuid and start.related_activity_id == parent
    assert inside.activity_id == act.uuid
    assert stop.activity_id == act.uuid and stop.related_activity_id is None


def test_start_relates_to_the_activity_that_was_current(
    hello: ModuleType, session: Session
) -> None:
    with activity() as outer:
        inner = hello.start_RequestStart(1, "/a", 0)
        hello.stop_RequestStop(1, "/a", 0, activity=inner)
        assert current_activity_id() == outer.id
    start = session.events()[0]
    assert start.related_activity_id == outer.uuid


def test_helpers_start_the_activity_even_when_disabled(hello: ModuleType) -> None:
    act = hello.start_RequestStart(1, "/", 0)
    assert current_activity_id() == act.id
    hello.stop_RequestStop(1, "/", 0, activity=act)
    assert current_activity_id() is None


def test_activity_follows_threads_and_tasks(hello: ModuleType, session: Session) -> None:
    async def worker(n: int) -> None:
        await asyncio.sleep(0)
        hello.write_Hello(f"task {n}", n, 0)

    async def main() -> uuid.UUID:
        with activity() as act:
            await asyncio.gather(worker(1), worker(2))
            await asyncio.to_thread(hello.write_Hello, "thread", 3, 0)
        return act.uuid

    act_id = asyncio.run(main())
    ctx = contextvars.copy_context()
    t = threading.Thread(target=ctx.run, args=(hello.write_Hello, "no activity", 4, 0))
    t.start()
    t.join()
    ids = [e.activity_id for e in session.events()]
    assert ids == [act_id, act_id, act_id, uuid.UUID(int=0)]
