"""What ``pip install 'etwmc[compiler]'`` (and ``'etwmc[lsp]'``, the language server)
installs carries no GPL-family licence but the LGPL: the wheel built from this checkout
goes into a fresh virtual environment (from the package index pip is configured with),
and every distribution there is read; and no extra pins a dependency to one version.
The environment is made without pip of its own (this environment's pip installs into it
with ``--python``), so it holds exactly what the install brought.

Every new dependency is checked so (CONTRIBUTING.md)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import pytest
from license_rules import copyleft

from conftest import slow

ROOT = Path(__file__).resolve().parents[1]

# Printed by the fresh environment's interpreter: each distribution's licence metadata.
_LIST = """
import json
from importlib import metadata
out = []
for d in metadata.distributions():
    m = d.metadata
    out.append({
        "name": m["Name"],
        "expression": m.get("License-Expression"),
        "license": m.get("License"),
        "classifiers": [c for c in (m.get_all("Classifier") or []) if c.startswith("License ::")],
    })
print(json.dumps(out))
"""


def _run(argv: list[str], cwd: Path) -> str:
    proc = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"{argv}\n{proc.stdout}\n{proc.stderr}"
    return proc.stdout


@slow
@pytest.mark.skipif(os.environ.get("ETWMC_SKIP_INSTALL") == "1", reason="ETWMC_SKIP_INSTALL=1")
@pytest.mark.parametrize(
    ("extra", "expected"),
    [
        ("compiler", {"etwmc", "lxml", "pathspec"}),
        ("lsp", {"etwmc", "lxml", "pygls", "lsprotocol"}),
    ],
)
def test_an_extra_installs_no_gpl(
    tmp_path: Path, extra: str, expected: set[str], etwmc_wheel: Path
) -> None:
    env = tmp_path / "env"
    venv.EnvBuilder(with_pip=False).create(env)
    python = env / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    pip = [sys.executable, "-m", "pip", "--python", str(python)]
    _run([*pip, "install", "-q", f"{etwmc_wheel}[{extra}]"], tmp_path)
    found = json.loads(_run([str(python), "-c", _LIST], tmp_path))
    names = {d["name"].lower() for d in found}
    assert expected <= names
    assert not any(re.match(r"dissect", n) for n in names), sorted(names)
    bad = [d for d in found if copyleft(d["expression"], d["license"], d["classifiers"])]
    assert bad == [], bad


@pytest.mark.parametrize("extra", ["compiler", "lsp"])
def test_an_extra_pins_nothing_exactly(extra: str) -> None:
    import tomllib

    from packaging.requirements import Requirement

    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    for text in table["project"]["optional-dependencies"][extra]:
        req = Requirement(text)
        assert not any(s.operator in ("==", "===") for s in req.specifier), text
