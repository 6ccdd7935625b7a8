"""etwmc's pytest plugin: an in-process ETW session for each test that asks for one.

pytest loads this module through the ``pytest11`` entry point into every run where
etwmc is installed, so it imports the runtime only, never the compiler (lxml, jinja2,
black), and does nothing until a test uses the fixture.

``etw_session`` is a :class:`~etwmc.runtime.backends.session.Session` of a fresh
:class:`~etwmc.runtime.backends.inproc.InProcBackend` (``etw_session.backend``).  While
the test runs, that backend is also the default one (``ETWMC_BACKEND=inproc`` and
``get_backend("inproc")`` return it), so ``module.register()`` inside the test lands
there.  Afterwards every provider registered with it is unregistered (generated modules
read as disabled again), every session of it is stopped, and the environment, the
``inproc`` backend and the current activity id are restored: nothing reaches the next
test.

::

    from etwmc.pytest_plugin import assert_event

    def test_greets(etw_session):
        etw_session.enable(hello.HELLO_PROVIDER.GUID, level=5)
        hello.register(etw_session.backend)
        hello.write_Hello("world", 3, 1)
        assert_event(etw_session, 1)

The assertion helpers of :mod:`etwmc.testing` are re-exported here; their failures list
the session's events, decoded.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .runtime.activity import current_activity_id, reset_activity_id, set_activity_id
from .runtime.backends import BACKEND_ENV, replaced_backend
from .runtime.backends.inproc import InProcBackend
from .runtime.backends.session import Session
from .runtime.provider import unregister_all
from .testing import (
    assert_event,
    assert_event_ids,
    assert_no_event,
    decoded_fields,
    describe_events,
    matching_events,
)

__all__ = [
    "assert_event",
    "assert_event_ids",
    "assert_no_event",
    "decoded_fields",
    "describe_events",
    "etw_session",
    "matching_events",
]


@pytest.fixture
def etw_session(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch
) -> Iterator[Session]:
    """An in-process ETW session on a backend of its own, cleaned up after the test."""
    backend = InProcBackend()
    token = set_activity_id(current_activity_id())
    monkeypatch.setenv(BACKEND_ENV, "inproc")
    with replaced_backend("inproc", backend):
        session = backend.session(f"pytest:{request.node.name}")
        try:
            yield session
        finally:
            unregister_all(backend)
            for leftover in backend.sessions:
                leftover.stop()
            reset_activity_id(token)
