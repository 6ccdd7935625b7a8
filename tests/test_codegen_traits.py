"""Provider traits that cannot be registered are a compile error, not a crash."""

from __future__ import annotations

from pathlib import Path

from etwmc.compile import compile_manifest

MANIFEST = """<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="{name}" guid="{{5b1e7c52-3a4d-4f0b-9c3e-8d2a6f1b4e70}}" symbol="P"
              resourceFileName="p.dll" messageFileName="p.dll">
      <traits includeName="true"/>
      <events><event value="1" level="win:Informational" symbol="E"/></events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def _compile(tmp_path: Path, name: str) -> list[str]:
    man = tmp_path / "p.man"
    man.write_text(MANIFEST.format(name=name), encoding="utf-8")
    result = compile_manifest(man)
    return [d.code for d in result.diagnostics if d.severity.label == "error"]


def test_traits_over_255_bytes_are_an_error(tmp_path: Path) -> None:
    assert _compile(tmp_path, "A" * 253) == ["ETW602"]


def test_traits_that_fit_compile(tmp_path: Path) -> None:
    assert _compile(tmp_path, "A" * 252) == []
