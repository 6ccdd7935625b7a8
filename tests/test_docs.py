"""The README's diagnostic-code table is the registry, and its commands exist."""

from __future__ import annotations

import re
from pathlib import Path

from etwmc.cli import build_parser
from etwmc.commands.lint import codes_table

README = Path(__file__).resolve().parents[1] / "README.md"


def test_code_table_matches_registry() -> None:
    text = README.read_text(encoding="utf-8")
    m = re.search(r"<!-- codes:start -->\n(.*?)<!-- codes:end -->", text, re.S)
    assert m, "README.md lacks the codes:start/codes:end markers"
    assert m.group(1) == codes_table(), (
        "README.md's code table is stale; regenerate it: replace the lines between the markers "
        "with the output of `etwmc lint --list-codes`"
    )


def test_every_registered_code_is_well_formed() -> None:
    rows = codes_table().splitlines()[2:]
    assert rows
    for row in rows:
        code, severity, summary = (c.strip() for c in row.strip("|").split("|"))
        assert re.fullmatch(r"ETW\d{3}", code)
        assert severity in ("error", "warning", "note")
        assert summary and not re.search(r"[^.]\.$", summary)  # a phrase, not a sentence


def test_readme_starts_with_the_two_commands() -> None:
    blocks = re.findall(r"```sh\n(.*?)```", README.read_text(encoding="utf-8"), re.S)
    first = blocks[0].strip().splitlines()
    assert "etwmc compile examples/" in first[0]
    assert "pytest" in first[1]
    ci = (README.parent / ".ci" / "run").read_text()
    assert first[1].strip() in ci


def test_commands_in_the_table_exist() -> None:
    parser = build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    text = README.read_text(encoding="utf-8")
    for name in re.findall(r"^\| `etwmc (\w+)", text, re.M):
        assert name in sub.choices, name  # type: ignore[operator]
