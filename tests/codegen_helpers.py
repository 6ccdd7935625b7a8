"""Helpers for tests of generated provider modules: compile a manifest, import the module,
and black, the oracle for the modules' layout."""

from __future__ import annotations

import functools
import importlib.util
import itertools
import sys
from pathlib import Path
from types import ModuleType

import black

from etwmc.compile import compile_manifest
from etwmc.options import CompileOptions

ROOT = Path(__file__).resolve().parents[1]
HELLO = ROOT / "examples" / "hello.man"

_names = itertools.count()

# The mode generated modules are laid out in (black's defaults, Python 3.11 syntax), for
# the black version the dev extra pins; no user configuration is read.
BLACK_MODE = black.Mode(
    target_versions={black.mode.TargetVersion.PY311},
    line_length=88,
    string_normalization=True,
    magic_trailing_comma=True,
    preview=False,
)


@functools.lru_cache(maxsize=4096)
def black_check(text: str) -> str:
    """``text`` as black prints it: a generated module must be equal to it."""
    return black.format_str(text, mode=BLACK_MODE)


def generate(source: str | Path, tmp_path: Path, *, filename: str = "m.man") -> tuple[str, Path]:
    """Compile a manifest (text or path) to Python only; returns (module text, .py path)."""
    if isinstance(source, str):
        man = tmp_path / filename
        man.write_text(source, encoding="utf-8")
    else:
        man = source
    result = compile_manifest(man, CompileOptions(binary=False, verify=True))
    assert result.ok, [str(d.message) for d in result.diagnostics]
    [(name, data)] = result.files.items()
    out = tmp_path / name
    out.write_bytes(data)
    return data.decode("ascii"), out


def load(path: Path) -> ModuleType:
    """Import a generated module from ``path`` under a fresh, unique name."""
    name = f"_etwmc_generated_{next(_names)}_{path.stem}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def manifest(provider_body: str, *, strings: str = "", guid: str = "") -> str:
    """A one-provider manifest around ``provider_body`` (channels, keywords, events...)."""
    guid = guid or "{0C6A2C4E-1F0B-4C59-9E1A-6B1D0F3A7E21}"
    return f"""<?xml version="1.0" encoding="UTF-8"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events"
    xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <instrumentation><events>
    <provider name="Etwmc-Test" guid="{guid}" symbol="TEST"
              resourceFileName="t.dll" messageFileName="t.dll">
{provider_body}
    </provider>
  </events></instrumentation>
  <localization><resources culture="en-US"><stringTable>
    <string id="dummy" value="x"/>
{strings}
  </stringTable></resources></localization>
</instrumentationManifest>
"""
