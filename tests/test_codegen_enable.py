"""Enable semantics through a generated module: one flag per (level, keyword) pair,
recomputed by the enable callback with mc's rule, tested before any argument is encoded."""

from __future__ import annotations

import uuid
from pathlib import Path
from types import ModuleType

import pytest
from codegen_helpers import generate, load, manifest

from etwmc.runtime.backends.inproc import InProcBackend

BODY = """
      <keywords>
        <keyword name="A" mask="0x1"/>
        <keyword name="B" mask="0x2"/>
      </keywords>
      <templates>
        <template tid="T"><data name="Text" inType="win:UnicodeString"/></template>
      </templates>
      <events>
        <event value="1" symbol="InfoNoKw" level="win:Informational" template="T"/>
        <event value="2" symbol="VerboseA" level="win:Verbose" keywords="A" template="T"/>
        <event value="3" symbol="AlwaysB" level="win:LogAlways" keywords="B" template="T"/>
        <event value="4" symbol="InfoAB" level="win:Informational" keywords="A B" template="T"/>
        <event value="5" symbol="InfoNoKw2" level="win:Informational" template="T"/>
        <event value="6" symbol="Rundown" level="win:Informational" opcode="win:DC_Start"/>
      </events>
"""
GUID = uuid.UUID("0c6a2c4e-1f0b-4c59-9e1a-6b1d0f3a7e21")


class Explodes:
    """An argument whose every use raises: proves a disabled event never touches it."""

    def __getattribute__(self, name: str) -> object:
        raise AssertionError(f"argument touched: {name}")


@pytest.fixture()
def mod(tmp_path: Path) -> ModuleType:
    _, path = generate(manifest(BODY), tmp_path)
    return load(path)


@pytest.fixture()
def backend(mod: ModuleType) -> InProcBackend:
    b = InProcBackend()
    mod.register(b)
    yield b
    mod.unregister()


def enabled(mod: ModuleType) -> dict[str, bool]:
    names = ["InfoNoKw", "VerboseA", "AlwaysB", "InfoAB", "InfoNoKw2"]
    return {n: getattr(mod, f"is_enabled_{n}")() for n in names}


def test_one_flag_per_distinct_level_keyword_pair(mod: ModuleType) -> None:
    # InfoNoKw, InfoNoKw2 and Rundown share (4, 0): mc's deduplicated enable bits.
    assert mod._PAIRS_0 == ((4, 0), (5, 1), (0, 2), (4, 3))
    assert mod.is_enabled_InfoNoKw.__code__.co_names == mod.is_enabled_InfoNoKw2.__code__.co_names


def test_unregistered_module_is_disabled_and_evaluates_nothing(mod: ModuleType) -> None:
    assert not any(enabled(mod).values())
    assert mod.write_VerboseA(Explodes()) == 0


def test_level_and_keyword_rules(mod: ModuleType, backend: InProcBackend) -> None:
    with backend.session() as s:
        s.enable(GUID, level=4, match_any=0x1)
        assert enabled(mod) == {
            "InfoNoKw": True,  # keyword 0 passes any keyword filter
            "VerboseA": False,  # level 5 > 4
            "AlwaysB": False,  # level 0 always passes, but B is not in MatchAny
            "InfoAB": True,
            "InfoNoKw2": True,
        }
        # etw-semantics: level_ok = event level == 0 or session level == 0 or event level <=
        # session level, so a session of level 0 gets every level (whatever its keywords allow).
        s.enable(GUID, level=0, match_any=0x2)
        assert enabled(mod) == {
            "InfoNoKw": True,
            "VerboseA": False,  # level 0 lets level 5 through, but A is not in MatchAny
            "AlwaysB": True,
            "InfoAB": True,
            "InfoNoKw2": True,
        }
        s.enable(GUID, level=0, match_any=0x1)
        assert enabled(mod)["VerboseA"] and not enabled(mod)["AlwaysB"]
        s.enable(GUID, level=5, match_any=0)  # MatchAnyKeyword 0 is not "all keywords"
        assert enabled(mod) == {
            "InfoNoKw": True,
            "VerboseA": False,
            "AlwaysB": False,
            "InfoAB": False,
            "InfoNoKw2": True,
        }


def test_match_all(mod: ModuleType, backend: InProcBackend) -> None:
    with backend.session() as s:
        s.enable(GUID, level=5, match_any=0x3, match_all=0x3)
        got = enabled(mod)
        assert got["InfoAB"] and not got["VerboseA"] and not got["AlwaysB"]
        assert got["InfoNoKw"]  # keyword 0 bypasses MatchAll too


def test_ignore_keyword_0_filters_in_the_session(mod: ModuleType, backend: InProcBackend) -> None:
    with backend.session() as s:
        s.enable(GUID, level=5, ignore_keyword_0=True)
        # The provider's flag stays on (the combined state cannot express the property) ...
        assert mod.is_enabled_InfoNoKw()
        mod.write_InfoNoKw("dropped")
        mod.write_InfoAB("kept")
        # ... but the session filters: only the keyword event arrives.
        assert [e.id for e in s.events()] == [4]


def test_two_sessions_combine_and_one_leaves(mod: ModuleType, backend: InProcBackend) -> None:
    a = backend.session("a").enable(GUID, level=4, match_any=0x1)
    b = backend.session("b").enable(GUID, level=5, match_any=0x2)
    try:
        # Combined: level 5, any = 0x3: VerboseA passes the combined check.
        assert enabled(mod)["VerboseA"] and enabled(mod)["AlwaysB"]
        mod.write_VerboseA("x")
        assert [e.id for e in a.events()] == [] and [e.id for e in b.events()] == []
        b.stop()
        assert enabled(mod) == {
            "InfoNoKw": True,
            "VerboseA": False,
            "AlwaysB": False,
            "InfoAB": True,
            "InfoNoKw2": True,
        }
    finally:
        a.stop()
        b.stop()
    assert not any(enabled(mod).values())  # disable: every flag off


def test_disable_then_arguments_are_not_evaluated(mod: ModuleType, backend: InProcBackend) -> None:
    s = backend.session().enable(GUID, level=5)
    assert mod.is_enabled_VerboseA()
    s.disable(GUID)
    assert not mod.is_enabled_VerboseA()
    assert mod.write_VerboseA(Explodes()) == 0
    s.stop()


def test_enabled_event_is_delivered_and_session_filters(
    mod: ModuleType, backend: InProcBackend
) -> None:
    with backend.session() as s:
        s.enable(GUID, level=4, match_any=0x1)
        mod.write_InfoNoKw("a")
        mod.write_VerboseA("b")  # flag off: nothing
        mod.write_InfoAB("c")
        got = [(e.id, e.level, e.keyword, e.user_data) for e in s.events()]
    assert got == [
        (1, 4, 0, "a\0".encode("utf-16-le")),
        (4, 4, 3, "c\0".encode("utf-16-le")),
    ]


def test_capture_state_reaches_the_hook(mod: ModuleType, backend: InProcBackend) -> None:
    calls: list[tuple[int, int]] = []
    mod.set_capture_state_hook(lambda state: calls.append((state.is_enabled, state.level)))
    with backend.session() as s:
        s.enable(GUID, level=3)
        s.capture_state(GUID)
        mod.write_Rundown()  # level 4 > 3: not written
    assert calls == [(2, 3)]
    assert mod._p0.hook_error is None


def test_registration_context_manager(mod: ModuleType) -> None:
    b = InProcBackend()
    s = b.session().enable(GUID)
    with mod.registration(b):
        assert mod.is_enabled_InfoNoKw()
    assert not mod.is_enabled_InfoNoKw()
    s.stop()


def test_importing_registers_nothing(tmp_path: Path) -> None:
    _, path = generate(manifest(BODY), tmp_path)
    b = InProcBackend()
    s = b.session().enable(GUID)
    m = load(path)
    assert not m.TEST.runtime.registered
    assert not m.is_enabled_InfoNoKw()
    s.stop()
