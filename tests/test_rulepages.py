"""Every diagnostic code has its page (etwmc/rulepages/ETWnnn.md), every page has each
part, and each page's example still reports its code while its fix does not.

A page's example is run as its reader would run it: the files it shows are written to
a fresh folder and its ``$ etwmc ...`` lines are run there.  A code whose input cannot
be shown as text (a damaged blob or trace, a file of 64 MiB) has a generator below that
writes the input the page describes; a code that no input can raise says so on its page.
"""

from __future__ import annotations

import re
import shlex
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from rulepage_inputs import GENERATED

from etwmc.cli import main
from etwmc.codes import REGISTRY, Severity
from etwmc.rulepages import SECTIONS, all_pages, page, parse, to_text, url

PAGES_DIR = Path(__file__).resolve().parents[1] / "etwmc" / "rulepages"
CODES = sorted(REGISTRY)

NO_SMALL_EXAMPLE = "**No small example.**"
NOTHING_TO_FIX = "**Nothing to fix.**"
# Codes that one input always raises together; any other example raises its code alone
# (no error or warning of another code), as the smallest input that shows it should.
COMPANIONS = {"ETW015": {"ETW401"}, "ETW141": {"ETW140"}}
# Codes no input raises: the page says why (NO_SMALL_EXAMPLE), and nothing is run.
NOT_RAISED = {"ETW023", "ETW200", "ETW601", "ETW613", "ETW854", "ETW856", "ETW857"}


def test_every_code_has_a_page_and_every_page_a_code() -> None:
    files = {p.stem for p in PAGES_DIR.glob("*.md")}
    assert sorted(set(CODES) - files) == [], "codes without a page"
    assert sorted(files - set(CODES)) == [], "pages of no registered code"


@pytest.mark.parametrize("code", CODES)
def test_page_has_every_part(code: str) -> None:
    p = page(code)
    assert (p.code, p.severity, p.summary) == (
        code,
        REGISTRY[code].severity.label,
        REGISTRY[code].summary,
    )
    assert [h for h, _ in p.sections] == list(SECTIONS)
    for heading, body in p.sections:
        assert len(body) > 40, f"{code}: section {heading!r} says too little"
    assert "mc" in p.mc, f"{code}: 'What mc.exe does' must say what mc does (or that it is unknown)"
    assert p.description and "\n" not in p.description
    if NO_SMALL_EXAMPLE in p.example:
        assert code in NOT_RAISED or code in GENERATED, f"{code}: says it has no small example"
    else:
        assert "```" in p.example, f"{code}: the example shows no input or command"
    if p.fix.startswith(NOTHING_TO_FIX):
        assert REGISTRY[code].severity == Severity.NOTE, f"{code}: only a note needs no fix"


def test_pages_are_listed_in_code_order_with_their_address() -> None:
    pages = all_pages()
    assert [p.code for p in pages] == CODES
    assert pages[0].url == url(CODES[0]) == f"https://etwmc.github.io/etwmc/rules/{CODES[0]}/"


def test_a_page_that_lost_a_section_is_rejected() -> None:
    text = page("ETW401").markdown
    broken = re.sub(r"^## What mc.exe does\n", "", text, flags=re.MULTILINE)
    with pytest.raises(ValueError, match="sections"):
        parse("ETW401", broken)
    with pytest.raises(ValueError, match="must begin"):
        parse("ETW401", text.replace("Default severity: error.", "Default severity: note."))


def test_plain_text_has_no_markup() -> None:
    text = to_text(page("ETW401"))
    assert text.startswith("ETW401: an event references an undefined level\n")
    assert "```" not in text and "**" not in text and "## " not in text
    assert "\n    <instrumentationManifest" in text  # code blocks are indented
    assert text.rstrip().endswith("https://etwmc.github.io/etwmc/rules/ETW401/")


# --------------------------------------------------------------------------- examples


def _blocks(markdown: str) -> list[tuple[str | None, str, str]]:
    """(file name or None, info string, text) of each fenced block; a block's name is
    given by a line ```name`:`` just before it."""
    out: list[tuple[str | None, str, str]] = []
    lines = markdown.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].startswith("```"):
            info = lines[i][3:].strip()
            before = next((x for x in reversed(lines[:i]) if x.strip()), "")
            m = re.fullmatch(r"`([\w.-]+)`:", before.strip())
            end = next(j for j in range(i + 1, len(lines)) if lines[j].startswith("```"))
            body = lines[i + 1 : end]
            out.append((m.group(1) if m else None, info, "".join(x + "\n" for x in body)))
            i = end
        i += 1
    return out


def _files(markdown: str) -> dict[str, str]:
    return {
        name or "example.man": text
        for name, info, text in _blocks(markdown)
        if info != "console" and (name or info == "xml")
    }


def _commands(markdown: str) -> list[list[str]]:
    """The ``$ etwmc ...`` lines of the console blocks (a line that runs another program
    shows how the input was made; the code's generator makes it for the test)."""
    return [
        shlex.split(line[2:])
        for _, info, text in _blocks(markdown)
        if info == "console"
        for line in text.splitlines()
        if line.startswith("$ etwmc ")
    ]


def _run(commands: list[list[str]], capsys: pytest.CaptureFixture[str]) -> str:
    out = []
    for argv in commands:
        status = main(argv[1:])
        captured = capsys.readouterr()
        assert "internal error" not in captured.err
        out.append(f"[exit {status}]\n{captured.out}{captured.err}")
    return "\n".join(out)


def _raises(code: str, output: str) -> bool:
    return re.search(rf"\b{code}\b", output) is not None


@pytest.mark.parametrize("code", CODES)
def test_example_raises_its_code_and_fix_does_not(
    code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    p = page(code)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("NO_COLOR", "1")
    if code in NOT_RAISED:
        assert NO_SMALL_EXAMPLE in p.example
        return
    commands = _commands(p.example)
    assert commands, f"{code}: the example names no etwmc command"
    make: Callable[[Path, bool], None] | None = GENERATED.get(code)

    def lay_out(markdowns: list[str], damaged: bool) -> None:
        for markdown in markdowns:
            for name, text in _files(markdown).items():
                (tmp_path / name).write_text(text, encoding="utf-8")
        if make is not None:
            make(tmp_path, damaged)

    lay_out([p.example], True)
    output = _run(commands, capsys)
    assert _raises(code, output), f"{code}: the example does not raise it:\n{output}"
    others = set(re.findall(r" (?:error|warning) (ETW\d{3}):", output)) - {code}
    assert others <= COMPANIONS.get(code, set()), f"{code}: the example raises more:\n{output}"

    if p.fix.startswith(NOTHING_TO_FIX):
        return
    for f in tmp_path.iterdir():
        if f.is_dir() and not f.is_symlink():
            shutil.rmtree(f)
        else:
            f.unlink()
    lay_out([p.example, p.fix], False)
    fixed = _run(_commands(p.fix) or commands, capsys)
    assert not _raises(code, fixed), f"{code}: the fix still raises it:\n{fixed}"
    # What to write instead is clean: no error or warning of any code (notes may remain).
    assert re.findall(r"\[exit (\d+)\]", fixed) == ["0"] * fixed.count("[exit ")
    assert re.search(r" (error|warning) ETW\d{3}:", fixed) is None, fixed


def test_the_wheel_ships_every_page(etwmc_wheel: Path) -> None:
    """The pages are package data: ``etwmc rule`` and SARIF read them from the install."""
    import zipfile

    names = set(zipfile.ZipFile(etwmc_wheel).namelist())
    assert {f"etwmc/rulepages/{c}.md" for c in CODES} <= names
