"""Importing a generated module loads only what it uses: no backend until one is chosen,
and nothing that a module whose events are never enabled does not need (no typing,
dataclasses, uuid, re, threading; no sessions, filters, event files, decoding or win:
tables).  What stands in for those (lazy GUIDs, namedtuples for type checkers' NamedTuple
classes) behaves as they did."""

from __future__ import annotations

import ast
import subprocess
import sys
import uuid
from pathlib import Path
from types import ModuleType

import pytest
from codegen_helpers import HELLO, generate, load

from etwmc.runtime import Activity, ProviderRuntime, Registration, current_activity_id
from etwmc.runtime.activity import start_event, stop_event
from etwmc.runtime.backends.inproc import InProcBackend
from etwmc.runtime.guids import GuidConstant
from etwmc.runtime.payload import EventError

RUNTIME = Path(__file__).resolve().parents[1] / "etwmc" / "runtime"

# What importing a generated module must not load: each costs import time and serves
# only a registered provider, an enabled event, a session or a decoder.
NOT_ON_IMPORT = (
    "typing", "dataclasses", "inspect", "uuid", "platform", "re", "datetime", "threading",
    "weakref", "contextlib", "importlib", "etwmc.winmeta", "etwmc.records",
    "etwmc.runtime.backends", "etwmc.runtime.backends.base", "etwmc.runtime.backends.inproc",
    "etwmc.runtime.backends.session", "etwmc.runtime.backends.windows",
    "etwmc.runtime.filters", "etwmc.runtime.eventfile", "etwmc.runtime.decoding",
    "etwmc.runtime.encoder", "etwmc.runtime.encoding", "etwmc.runtime.loghandler",
    "etwmc.runtime.traits", "ctypes",
)  # fmt: skip
# Registering with the null backend (the default off Windows) loads its module only.
NOT_ON_NULL_REGISTRATION = tuple(n for n in NOT_ON_IMPORT if n != "etwmc.runtime.backends")


def _loaded_by(folder: Path, code: str) -> set[str]:
    probe = (
        "import sys\n"
        f"sys.path.insert(0, {str(folder)!r})\n"
        "before = set(sys.modules)\n"
        f"{code}\n"
        "print('\\n'.join(sorted(set(sys.modules) - before)))\n"
    )
    run = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    return set(run.stdout.split())


@pytest.fixture(scope="module")
def hello_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("hello")
    generate(HELLO, folder)
    return folder


def test_importing_a_generated_module_loads_nothing_it_does_not_use(hello_folder: Path) -> None:
    loaded = _loaded_by(hello_folder, "import hello")
    assert "hello" in loaded and "etwmc.runtime.provider" in loaded
    assert sorted(loaded & set(NOT_ON_IMPORT)) == []


def test_registering_with_the_null_backend_loads_only_that_backend(hello_folder: Path) -> None:
    loaded = _loaded_by(
        hello_folder,
        "import hello\nhello.register('null')\nassert hello.write_Hello('x', 1, 2) == 0",
    )
    assert "etwmc.runtime.backends.null" in loaded
    assert sorted(loaded & set(NOT_ON_NULL_REGISTRATION)) == []


@pytest.fixture(scope="module")
def hello_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    _, path = generate(HELLO, tmp_path_factory.mktemp("hello2"))
    return path


@pytest.fixture
def hello(hello_path: Path) -> ModuleType:
    """The generated module imported afresh for each test: reading a lazy GUID replaces it
    in its class, and registering changes the provider's state."""
    return load(hello_path)


def test_a_guid_constant_reads_as_its_uuid(hello: ModuleType) -> None:
    expected = uuid.UUID("5b1e7c52-3a4d-4f0b-9c3e-8d2a6f1b4e70")
    assert isinstance(vars(hello.HELLO_PROVIDER)["GUID"], GuidConstant)
    assert hello.HELLO_PROVIDER.GUID == expected
    assert vars(hello.HELLO_PROVIDER)["GUID"] == expected  # replaced by the value
    assert hello.HELLO_PROVIDER.CONTROL_GUID is None
    assert hello.HELLO_PROVIDER.runtime.guid == expected  # a text GUID, parsed on use

    class Holder:
        G = GuidConstant("00000000-0000-0000-0000-000000000001")

    assert Holder().G == uuid.UUID(int=1)  # through an instance too
    assert repr(GuidConstant("x")) == "GuidConstant('x')"


def test_registration_registers_for_the_block(hello: ModuleType) -> None:
    backend = InProcBackend()
    with backend.session() as session:
        session.enable(hello.HELLO_PROVIDER.GUID)
        with hello.registration(backend):
            assert hello.HELLO_PROVIDER.runtime.backend is backend
            hello.write_Hello("x", 1, 2)
        assert not hello.HELLO_PROVIDER.runtime.registered
        assert [e.id for e in session.events()] == [1]
    provider = ProviderRuntime(uuid.UUID(int=7), "P")
    with Registration([provider], backend):
        assert provider.registered
    assert not provider.registered


def test_start_and_stop_helpers_end_the_activity_on_bad_arguments() -> None:
    def refuse(*values: object, **ids: object) -> int:
        raise EventError("E", "f", "bad")

    with pytest.raises(EventError):
        start_event(True, refuse, None, 1)
    assert current_activity_id() is None  # the activity started, then ended again
    act = Activity().start()
    with pytest.raises(EventError):
        stop_event(True, refuse, act, 1)
    assert current_activity_id() is None
    seen: list[dict[str, object]] = []
    act = start_event(False, lambda *v, **ids: seen.append(ids) or 0, None)
    assert seen == [] and current_activity_id() == act.id  # disabled: no write, no uuid
    assert stop_event(False, refuse, act) == 0 and current_activity_id() is None


def _stub_fields(source: Path, cls: str) -> list[tuple[str, str | None]]:
    """(field, default source) of the NamedTuple class type checkers see in ``source``."""
    tree = ast.parse(source.read_text(encoding="utf-8"))
    [node] = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == cls]
    return [
        (s.target.id, ast.unparse(s.value) if s.value is not None else None)
        for s in node.body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    ]


@pytest.mark.parametrize(
    ("module", "cls"),
    [("state", "EnableState"), ("payload", "Field"), ("descriptor", "EventDescriptor")],
)
def test_namedtuples_have_the_fields_type_checkers_see(module: str, cls: str) -> None:
    runtime = getattr(__import__(f"etwmc.runtime.{module}", fromlist=[cls]), cls)
    # the module that defines the class (the runtime re-exports the event descriptor)
    stub = _stub_fields(Path(sys.modules[runtime.__module__].__file__ or ""), cls)
    assert list(runtime._fields) == [name for name, _ in stub]
    defaults = {name: eval(value) for name, value in stub if value is not None}  # noqa: S307
    assert runtime._field_defaults == defaults
