"""etwmc.runtime works with the compiler's dependencies absent (standard library only)."""

from __future__ import annotations

import subprocess
import sys
import textwrap

BLOCKED = ("lxml", "jinja2", "black", "xmlschema", "markupsafe", "elementpath")

SCRIPT = textwrap.dedent(
    """
    import sys, uuid

    BLOCKED = {blocked!r}

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] in BLOCKED:
                raise ImportError(f"{{name}} is blocked: the runtime must not need it")
            return None

    sys.meta_path.insert(0, Block())
    before = set(sys.modules)

    import etwmc.runtime as rt
    from etwmc.runtime import encoding, eventfile
    from etwmc.runtime.backends import get_backend
    from etwmc.runtime.backends import inproc, null, windows

    # importing registered nothing and touched no backend singleton
    from etwmc.runtime import provider
    assert len(provider._live) == 0

    backend = get_backend("inproc")
    session = backend.session()
    guid = uuid.UUID(int=42)
    session.enable(guid, level=4)
    flags = []
    p = rt.ProviderRuntime(guid, "Iso", rt.build_traits("Iso"),
                           on_enable=lambda s: flags.append(rt.compute_flags([(4, 0)], s)))
    p.register(backend)
    p.write(rt.pack_descriptor(1, level=4), encoding.utf16z("hi"))
    assert flags == [(True,)], flags
    assert [r.id for r in session.events()] == [1]
    p.unregister()

    import logging
    import etwmc.testing
    handler = rt.EtwLoggingHandler(backend=backend)
    session.enable(handler.provider_guid, level=4)
    log = logging.Logger("iso")
    log.addHandler(handler)
    log.info("via logging")
    etwmc.testing.assert_event(session, 4, Message="via logging")
    handler.close()

    leaked = sorted(m for m in sys.modules if m.split(".")[0] in BLOCKED)
    assert not leaked, leaked
    print("ok")
    """
).format(blocked=BLOCKED)


def test_runtime_imports_without_compiler_dependencies() -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "ok"


def test_blocker_really_blocks() -> None:
    # The same finder makes importing a compiler dependency fail, so the test above
    # would notice if the runtime imported one.
    script = SCRIPT.split("before = set(sys.modules)")[0] + "import lxml\n"
    result = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=60
    )
    assert result.returncode != 0 and "lxml is blocked" in result.stderr
