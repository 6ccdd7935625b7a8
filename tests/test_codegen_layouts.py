"""Generated providers carry their events' payload layouts, so an in-process session can
filter a generated module's events by field name (payload filters, docs/runtime.md)."""

from __future__ import annotations

from pathlib import Path
from types import ModuleType

import pytest
from codegen_helpers import HELLO, generate, load, manifest

from etwmc.runtime import PayloadFilter, decode_payload
from etwmc.runtime.backends.inproc import InProcBackend

NO_PAYLOAD = """
      <templates>
        <template tid="T"><data name="Size" inType="win:UInt32"/></template>
      </templates>
      <events>
        <event value="1" symbol="Sized" level="win:Informational" template="T"/>
        <event value="1" version="2" symbol="SizedAgain" level="win:Informational"
               template="T"/>
        <event value="2" symbol="Bare" level="win:Informational"/>
        <event value="3" symbol="Hidden" level="win:Informational" template="T"
               notLogged="true"/>
      </events>
"""


@pytest.fixture(scope="module")
def hello(tmp_path_factory: pytest.TempPathFactory) -> ModuleType:
    _, path = generate(HELLO, tmp_path_factory.mktemp("hello"))
    return load(path)


def test_payload_filters_on_a_generated_module_select_by_field_name(hello: ModuleType) -> None:
    backend = InProcBackend()
    guid = hello.HELLO_PROVIDER.GUID
    # Before registering: the layouts reach the backend with the registration.
    session = backend.session()
    hello.register(backend)
    try:
        session.enable(
            guid,
            level=5,
            filters=[
                PayloadFilter(1, [("Name", "IS", "World")]),
                PayloadFilter(3, [("Status", "GE", 400), ("Path", "CONTAINS", "/api/")]),
            ],
        )
        mood = hello.HELLO_PROVIDER.Mood.Happy
        hello.write_Hello("world", 1, mood)  # IS ignores case: passes
        hello.write_Hello("someone else", 2, mood)
        act = hello.start_RequestStart(7, "/api/x", 0)  # no filter on event 2: passes
        hello.stop_RequestStop(7, "/api/x", 200, activity=act)  # Status < 400
        act = hello.start_RequestStart(8, "/api/y", 0)
        hello.stop_RequestStop(8, "/api/y", 503, activity=act)  # passes
        act = hello.start_RequestStart(9, "/index.html", 0)
        hello.stop_RequestStop(9, "/index.html", 503, activity=act)  # not /api/
    finally:
        hello.unregister()
    layouts = hello.PROVIDERS[0].layouts
    seen = [(r.id, decode_payload(layouts[(r.id, r.version)], r.user_data)) for r in session]
    assert [(i, p.get("Name") or p["RequestId"]) for i, p in seen] == [
        (1, "world"),
        (2, 7),
        (2, 8),
        (3, 8),
        (2, 9),
    ]


def test_the_layouts_are_the_modules_own_field_specs(hello: ModuleType) -> None:
    layouts = hello.PROVIDERS[0].layouts
    assert set(layouts) == {(1, 0), (2, 0), (3, 0)}
    # Built once with the module: the spec objects the write functions encode with.
    assert layouts[(1, 0)] is hello._T0
    assert layouts[(2, 0)] is layouts[(3, 0)] is hello._T1
    assert [f.name for f in layouts[(2, 0)]] == ["RequestId", "Path", "Status"]


def test_every_logged_event_has_a_layout_and_no_payload_has_no_fields(tmp_path: Path) -> None:
    _, path = generate(manifest(NO_PAYLOAD), tmp_path)
    mod = load(path)
    layouts = mod.PROVIDERS[0].layouts
    assert set(layouts) == {(1, 0), (1, 2), (2, 0)}  # notLogged events are never written
    assert layouts[(2, 0)] == ()
    backend = InProcBackend()
    mod.register(backend)
    try:
        session = backend.session().enable(
            mod.TEST.GUID, filters=[PayloadFilter(1, [("Size", "GT", 10)], version=2)]
        )
        with pytest.raises(ValueError, match="has no field 'Size'"):
            session.enable(mod.TEST.GUID, filters=[PayloadFilter(2, [("Size", "GT", 10)])])
        mod.write_Sized(1)
        mod.write_SizedAgain(5)
        mod.write_SizedAgain(50)
        mod.write_Bare()
    finally:
        mod.unregister()
    assert [(r.id, r.version, r.user_data) for r in session] == [
        (1, 0, (1).to_bytes(4, "little")),
        (1, 2, (50).to_bytes(4, "little")),
        (2, 0, b""),
    ]
