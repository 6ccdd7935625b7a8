"""What `etwmc[lsp]` installs carries a permissive licence: every distribution its
requirements pull in (as this environment holds them), read from its metadata's
License-Expression, License and classifiers, is free of the GPL family (the LGPL
aside), and none is pinned to one version by etwmc."""

from __future__ import annotations

import re
import tomllib
from importlib.metadata import PackageNotFoundError, distribution
from pathlib import Path

from packaging.requirements import Requirement

ROOT = Path(__file__).resolve().parents[1]
_COPYLEFT = re.compile(r"\b(A?GPL|GNU (Affero )?General Public)", re.I)
_LESSER = re.compile(r"\b(LGPL|Lesser General Public|Library General Public)", re.I)


def _extra(name: str) -> list[Requirement]:
    table = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = table["project"]["optional-dependencies"]
    out: list[Requirement] = []
    for text in extras[name]:
        req = Requirement(text)
        if req.name == "etwmc":
            for inner in sorted(req.extras):
                out.extend(_extra(inner))
        else:
            out.append(req)
    return out


def _closure(roots: list[Requirement]) -> dict[str, str]:
    """Each distribution the requirements reach -> its licence text, as installed."""
    found: dict[str, str] = {}
    todo = list(roots)
    while todo:
        req = todo.pop()
        key = req.name.lower().replace("_", "-")
        if key in found:
            continue
        try:
            meta = distribution(req.name).metadata
        except PackageNotFoundError:
            raise AssertionError(f"{req.name} is required but not installed") from None
        classifiers = [c for c in meta.get_all("Classifier") or [] if c.startswith("License")]
        found[key] = " | ".join(
            v for v in (meta.get("License-Expression"), meta.get("License"), *classifiers) if v
        )
        for text in meta.get_all("Requires-Dist") or []:
            inner = Requirement(text)
            if inner.marker is None or inner.marker.evaluate({"extra": ""}):
                todo.append(inner)
    return found


def test_the_lsp_extra_installs_no_copyleft_licence() -> None:
    licences = _closure(_extra("lsp"))
    assert {"pygls", "lsprotocol", "lxml"} <= set(licences)
    for name, text in licences.items():
        assert text, f"{name} declares no licence"
        # The first line of a full licence text names it.
        head = text.splitlines()[0] if "\n" in text else text
        assert not (_COPYLEFT.search(head) and not _LESSER.search(head)), f"{name}: {head}"


def test_the_lsp_extra_pins_nothing_exactly() -> None:
    for req in _extra("lsp"):
        assert not any(s.operator in ("==", "===") for s in req.specifier), str(req)
