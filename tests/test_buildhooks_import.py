"""The build plugins load where only etwmc's runtime is installed.

hatchling and setuptools load every installed plugin of theirs, for every project they
build, so etwmc's plugins are imported wherever etwmc is: also in an application's
environment that holds the runtime alone, without lxml (etwmc[compiler]).  Loading them
must not need the compiler; compiling (for a project that asks for it) does.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import pytest

SCRIPT = textwrap.dedent(
    """
    import sys

    class Block:
        def find_spec(self, name, path=None, target=None):
            if name.split(".")[0] == "lxml":
                raise ImportError(f"{name} is blocked: only the runtime is installed")
            return None

    sys.meta_path.insert(0, Block())
    import MODULE
    assert not any(m.split(".")[0] == "lxml" for m in sys.modules)
    print("loaded")
    """
)


@pytest.mark.parametrize("module", ["etwmc.buildhooks.hatch", "etwmc.buildhooks.setuptools"])
def test_a_plugin_loads_without_the_compiler(module: str) -> None:
    result = subprocess.run(
        [sys.executable, "-c", SCRIPT.replace("MODULE", module)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "loaded"


def test_compiling_needs_the_compiler() -> None:
    # The same blocker stops a compile: the test above would see a plugin that compiled
    # (or imported the compiler) when loaded.
    script = SCRIPT.replace("MODULE", "etwmc.buildhooks").replace(
        'print("loaded")', "from etwmc.compile import compile_manifest"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert result.returncode != 0 and "lxml is blocked" in result.stderr
