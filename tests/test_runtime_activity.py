"""Activity ids follow the caller: per thread, per asyncio task, into to_thread workers."""

from __future__ import annotations

import asyncio
import threading
import uuid

import pytest

from etwmc.runtime import (
    Activity,
    activity,
    activity_uuid,
    current_activity_id,
    new_activity_id,
    reset_activity_id,
    set_activity_id,
    start_activity,
)


def test_scope_sets_and_restores() -> None:
    assert current_activity_id() is None
    with activity() as outer:
        assert current_activity_id() == outer.id
        assert outer.related is None
        with activity() as inner:
            assert current_activity_id() == inner.id
            assert inner.related == outer.id  # parent becomes the related id
        assert current_activity_id() == outer.id
    assert current_activity_id() is None


def test_explicit_related_and_start_stop() -> None:
    parent = uuid.uuid4()
    act = Activity(parent).start()
    assert act.related == parent.bytes_le and current_activity_id() == act.id
    act.start()  # idempotent
    act.stop()
    act.stop()
    assert current_activity_id() is None
    assert act.uuid == activity_uuid(act.id)


def test_new_ids() -> None:
    ids = {new_activity_id() for _ in range(100)} | {
        new_activity_id(locally_unique=True) for _ in range(100)
    }
    assert len(ids) == 200
    assert all(len(i) == 16 and any(i) for i in ids)
    assert uuid.UUID(bytes_le=new_activity_id()).version == 4


def test_set_and_reset() -> None:
    g = uuid.uuid4()
    token = set_activity_id(g)
    assert current_activity_id() == g.bytes_le
    reset_activity_id(token)
    assert current_activity_id() is None
    with pytest.raises(ValueError, match="16 bytes"):
        set_activity_id(b"short")


def test_threads_do_not_share_the_current_id() -> None:
    results: dict[str, object] = {}
    barrier = threading.Barrier(2)

    def worker(name: str) -> None:
        with activity() as act:
            barrier.wait()  # both scopes are open at the same time
            results[name] = (act.id, current_activity_id())
            barrier.wait()

    threads = [threading.Thread(target=worker, args=(n,)) for n in ("a", "b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    (a_id, a_cur), (b_id, b_cur) = results["a"], results["b"]  # type: ignore[misc]
    assert a_id == a_cur and b_id == b_cur and a_id != b_id
    assert current_activity_id() is None


def test_asyncio_tasks_inherit_and_isolate() -> None:
    async def child(parent_id: bytes, started: asyncio.Event, release: asyncio.Event) -> bytes:
        assert current_activity_id() == parent_id  # inherited from the creating task
        with activity() as act:
            assert act.related == parent_id
            started.set()
            await release.wait()
            assert current_activity_id() == act.id  # not disturbed by the sibling
            return act.id

    async def main() -> None:
        with activity() as root:
            events = [(asyncio.Event(), asyncio.Event()) for _ in range(2)]
            tasks = [asyncio.create_task(child(root.id, s, r)) for s, r in events]
            for s, _ in events:
                await s.wait()
            assert current_activity_id() == root.id  # children did not leak into us
            for _, r in events:
                r.set()
            a, b = await asyncio.gather(*tasks)
            assert a != b
            # to_thread copies the context into the worker thread
            assert await asyncio.to_thread(current_activity_id) == root.id
        assert current_activity_id() is None

    asyncio.run(main())


def test_stop_from_another_task() -> None:
    async def main() -> None:
        act = activity()

        async def starter() -> None:
            act.start()

        await asyncio.create_task(starter())
        act.stop()  # started in a copy of the context: nothing to restore here
        assert current_activity_id() is None

    asyncio.run(main())


def test_start_activity_helper() -> None:
    with activity() as parent:
        act = start_activity()
        assert current_activity_id() == act.id and act.related == parent.id
        act.stop()
        assert current_activity_id() == parent.id
