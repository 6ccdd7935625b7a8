"""docs/editors.md: each editor's configuration is well-formed in its own language, and
starts the command this package provides."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import tomllib
from pathlib import Path

import pytest

PAGE = Path(__file__).resolve().parents[1] / "docs" / "editors.md"


def _blocks(language: str) -> list[str]:
    text = PAGE.read_text(encoding="utf-8")
    return re.findall(rf"```{language}\n(.*?)```", text, re.S)


def test_vs_code_settings_are_json_starting_etwmc_lsp() -> None:
    (block,) = _blocks("json")
    settings = json.loads(block)
    assert settings["glspc.server.command"] == "etwmc"
    assert settings["glspc.server.commandArguments"] == ["lsp"]
    assert settings["files.associations"]["*.man"] in settings["glspc.server.languageId"]


def test_helix_languages_toml() -> None:
    (block,) = _blocks("toml")
    table = tomllib.loads(block)
    assert table["language-server"]["etwmc"] == {"command": "etwmc", "args": ["lsp"]}
    by_name = {lang["name"]: lang for lang in table["language"]}
    assert "man" in by_name["etw-manifest"]["file-types"]
    assert "mc" in by_name["mc-messages"]["file-types"]
    assert all(lang["language-servers"] == ["etwmc"] for lang in table["language"])


def _balanced(code: str, comment: str, pairs: dict[str, str]) -> bool:
    """Brackets balance outside strings and comments (a syntax check for languages the
    test machine may have no reader for)."""
    stack: list[str] = []
    i = 0
    while i < len(code):
        c = code[i]
        if code.startswith(comment, i):
            i = code.find("\n", i)
            if i < 0:
                break
            continue
        if c == '"' or (c == "'" and comment == "--"):
            end = i + 1
            while end < len(code) and code[end] != c:
                end += 2 if code[end] == "\\" else 1
            i = end + 1
            continue
        if c == "?" and comment == ";":  # an Emacs character literal
            i += 2
            continue
        if c in pairs:
            stack.append(pairs[c])
        elif c in pairs.values():
            if not stack or stack.pop() != c:
                return False
        i += 1
    return not stack


def test_neovim_lua() -> None:
    (block,) = _blocks("lua")
    assert _balanced(block, "--", {"(": ")", "{": "}", "[": "]"})
    assert "cmd = { 'etwmc', 'lsp' }" in block and "vim.lsp.enable('etwmc')" in block
    luac = shutil.which("luac5.4") or shutil.which("luac")
    if luac is None:
        pytest.skip("no Lua compiler to check the syntax with")
    done = subprocess.run([luac, "-p", "-"], input=block, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_emacs_lisp(tmp_path: Path) -> None:
    (block,) = _blocks("elisp")
    assert _balanced(block, ";", {"(": ")"})
    assert '("etwmc" "lsp")' in block
    emacs = shutil.which("emacs")
    if emacs is None:
        pytest.skip("no Emacs to load the configuration with")
    init = tmp_path / "init.el"
    init.write_text(block, encoding="utf-8")
    done = subprocess.run([emacs, "--batch", "-Q", "-l", str(init)], capture_output=True)
    assert done.returncode == 0, done.stderr
