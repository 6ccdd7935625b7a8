"""etwmc's pytest plugin, used as users use it: a test file run by pytest in a subprocess,
with the plugin found through the pytest11 entry point that pyproject.toml declares and
the compiler's dependencies blocked."""

from __future__ import annotations

import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from conftest import slow
from etwmc import __version__
from etwmc.runtime import ProviderRuntime, pack_descriptor
from etwmc.runtime.backends.inproc import InProcBackend, Session
from etwmc.runtime.payload import Field, encode
from etwmc.testing import (
    assert_event,
    assert_event_ids,
    assert_no_event,
    describe_events,
    matching_events,
)

ROOT = Path(__file__).resolve().parents[1]
BLOCKED = ("lxml", "jinja2", "black", "xmlschema")

USER_TESTS = """
import os
import uuid

from etwmc.runtime import ProviderRuntime, get_backend, pack_descriptor
from etwmc.runtime.payload import Field, encode
from etwmc.pytest_plugin import assert_event, assert_event_ids, assert_no_event

GUID = uuid.UUID("0b5e55ed-0000-4000-8000-00000000f1f1")
LAYOUT = (Field("Name", 1), Field("Count", 8))
provider = ProviderRuntime(GUID, "Plugin-Test", layouts={(7, 0): LAYOUT})


def test_writes_and_asserts(etw_session):
    assert get_backend() is etw_session.backend  # the default backend while the test runs
    etw_session.enable(GUID, level=4)
    provider.register()
    provider.write(pack_descriptor(7, level=4), encode(LAYOUT, "alpha", 3))
    provider.write(pack_descriptor(8, level=5), b"")  # too verbose for the session
    record = assert_event(etw_session, 7, Name="alpha", Count=3)
    assert record.provider_id == GUID
    assert_event_ids(etw_session, [7])
    assert_no_event(etw_session, 8)
    etw_session.backend.session("second").enable(GUID)


def test_nothing_leaked_from_the_previous_test(etw_session):
    assert not provider.registered  # unregistered at teardown
    assert etw_session.backend.sessions == (etw_session,)  # "second" is gone too
    assert etw_session.events() == []


def test_environment_is_restored():
    assert os.environ.get("ETWMC_BACKEND") is None


def test_failure_shows_decoded_events(etw_session):
    etw_session.enable(GUID)
    provider.register(etw_session.backend)
    provider.write(pack_descriptor(7, level=4), encode(LAYOUT, "beta", 9))
    assert_event(etw_session, 7, Name="gamma")
"""

RUNNER = """
import sys

BLOCKED = {blocked!r}


class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in BLOCKED:
            raise ImportError(f"{{name}} is blocked: the pytest plugin must not need it")
        return None


sys.meta_path.insert(0, Block())
import pytest

status = pytest.main(["-p", "no:cacheprovider", "-q", {tests!r}])
compiler = sorted(
    m for m in sys.modules
    if m.split(".")[0] in BLOCKED
    or m in ("etwmc.compile", "etwmc.python", "etwmc.validate", "etwmc.parse")
)
print("COMPILER-MODULES", compiler)
print("PLUGIN-LOADED", "etwmc.pytest_plugin" in sys.modules)
sys.exit(status)
"""


def _site_with_entry_points(tmp_path: Path) -> Path:
    """A folder whose dist-info declares etwmc's entry points as pyproject.toml does."""
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = tmp_path / "site" / f"etwmc-{__version__}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: etwmc\nVersion: {__version__}\n", encoding="utf-8"
    )
    lines = []
    for group, entries in sorted(meta["entry-points"].items()):
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in sorted(entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return info.parent


@slow
def test_fixture_in_a_pytest_run(tmp_path: Path) -> None:
    tests = tmp_path / "test_user.py"
    tests.write_text(USER_TESTS, encoding="utf-8")
    runner = tmp_path / "run.py"
    runner.write_text(RUNNER.format(blocked=BLOCKED, tests=str(tests)), encoding="utf-8")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "ETWMC_"))}
    env["PYTHONPATH"] = os.pathsep.join([str(_site_with_entry_points(tmp_path)), str(ROOT)])
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    proc = subprocess.run(
        [sys.executable, str(runner)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    out = proc.stdout + proc.stderr
    assert "1 failed, 3 passed" in out, out
    assert "PLUGIN-LOADED True" in out, out
    assert "COMPILER-MODULES []" in out, out
    # the failure names what was wanted and lists the session's events, decoded
    assert "expected an event matching (id=7, Name='gamma'), found 0" in out, out
    assert "id=7 v0 level=4 keyword=0x0: Name='beta' Count=9" in out, out


# -- the helpers on their own -------------------------------------------------------------------


@pytest.fixture
def session_with_events() -> Session:
    backend = InProcBackend()
    layout = (Field("Path", 1), Field("Status", 8))
    guid = "0b5e55ed-0000-4000-8000-00000000f2f2"
    provider = ProviderRuntime(guid, "Helpers", layouts={(1, 0): layout}).register(backend)
    session = backend.session("helpers").enable(guid)
    provider.write(pack_descriptor(1, level=4), encode(layout, "/a", 200))
    provider.write(pack_descriptor(1, level=2), encode(layout, "/b", 500))
    provider.write(pack_descriptor(2, level=4), bytes(range(80)))  # no layout: shown in hex
    return session


def test_matching_by_fields_and_level(session_with_events: Session) -> None:
    s = session_with_events
    assert len(matching_events(s, 1)) == 2
    assert assert_event(s, 1, Status=500).level == 2
    assert_event(s, 1, level=4, count=1)
    assert_no_event(s, 1, Status=404)
    assert_event_ids(s, [1, 1, 2])


def test_failures_list_the_events(session_with_events: Session) -> None:
    s = session_with_events
    with pytest.raises(AssertionError, match=r"expected 3 event\(s\) matching \(id=1\), found 2"):
        assert_event(s, 1, count=3)
    with pytest.raises(AssertionError, match="expected no event matching") as info:
        assert_no_event(s, Path="/a")
    listing = str(info.value)
    assert "holds 3 event(s)" in listing
    assert "Path='/b' Status=500" in listing
    assert "payload=00 01 02" in listing and listing.rstrip().endswith("...")
    with pytest.raises(AssertionError, match=r"expected event ids \[1\], got \[1, 1, 2\]"):
        assert_event_ids(s, [1])
    assert describe_events(s).count("\n") == 3
