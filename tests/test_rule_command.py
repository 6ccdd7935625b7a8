"""``etwmc rule``: a code's page in the terminal and as JSON; what SARIF and lint's text
output take from the pages."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from etwmc.cli import main
from etwmc.codes import REGISTRY
from etwmc.diagnostics import Diagnostic, Severity, Span, render_sarif, render_text
from etwmc.rulepages import page

BAD = """<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
    xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
  <instrumentation><events>
    <provider name="Acme-Demo" guid="{bf688b01-5137-4e58-b45a-3eac04969709}" symbol="ACME_DEMO"
        resourceFileName="demo.dll" messageFileName="demo.dll">
      <events>
        <event value="1" level="Chatty"/>
        <event value="2" level="Loud"/>
        <event value="3" level="win:Informational" keywords="Disk"/>
      </events>
    </provider>
  </events></instrumentation>
</instrumentationManifest>
"""


def test_rule_prints_the_page_as_plain_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "ETW401"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("ETW401: an event references an undefined level\n=====")
    for heading in ("What it means", "Why it matters", "What mc.exe does", "Example", "Fix"):
        assert f"\n{heading}\n{'-' * len(heading)}\n" in out
    assert "```" not in out and "**" not in out
    assert "\n    $ etwmc lint example.man\n" in out
    assert out.rstrip().endswith("Online: https://etwmc.github.io/etwmc/rules/ETW401/")


def test_rule_takes_a_code_in_any_case(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "etw401"]) == 0
    assert capsys.readouterr().out.startswith("ETW401: ")


def test_rule_json_has_every_field(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "ETW201", "--format", "json"]) == 0
    obj = json.loads(capsys.readouterr().out)
    p = page("ETW201")
    assert obj == {
        "code": "ETW201",
        "severity": "error",
        "summary": REGISTRY["ETW201"].summary,
        "url": "https://etwmc.github.io/etwmc/rules/ETW201/",
        "meaning": p.meaning,
        "why": p.why,
        "mc": p.mc,
        "example": p.example,
        "fix": p.fix,
        "markdown": p.markdown,
    }


def test_rule_all(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "--all", "--format", "json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert [i["code"] for i in items] == sorted(REGISTRY)
    assert main(["rule", "--all"]) == 0
    text = capsys.readouterr().out
    assert all(f"\n{c}: " in "\n" + text for c in REGISTRY)


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        (["rule", "ETW4O1"], "unknown code 'ETW4O1'; did you mean ETW401?"),
        (["rule", "401"], "unknown code '401'; did you mean ETW401?"),
        (["rule", "ETW409x"], "unknown code 'ETW409x' (etwmc lint --list-codes lists them)"),
        (["rule", "nonsense"], "unknown code 'nonsense' (etwmc lint --list-codes lists them)"),
        (["rule"], "give one code (e.g. ETW401) or --all"),
        (["rule", "ETW401", "--all"], "give one code (e.g. ETW401) or --all"),
    ],
)
def test_rule_usage_errors(
    argv: list[str], expected: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert expected in captured.err and captured.out == ""


def test_rule_runs_as_a_console_command() -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "etwmc", "rule", "ETW001"], capture_output=True, text=True
    )
    assert proc.returncode == 0 and proc.stdout.startswith("ETW001: the file cannot be read")


# --------------------------------------------------------------------------- reports


def _diags() -> list[Diagnostic]:
    return [
        Diagnostic("ETW401", Severity.ERROR, Span("a.man", 7, 9), "first", "a hint"),
        Diagnostic("ETW401", Severity.ERROR, Span("a.man", 8, 9), "second"),
        Diagnostic("ETW404", Severity.ERROR, Span("a.man", 9, 9), "third"),
    ]


def test_sarif_rules_carry_their_pages() -> None:
    doc = json.loads(render_sarif(_diags(), tool_version="0"))
    rules = {r["id"]: r for r in doc["runs"][0]["tool"]["driver"]["rules"]}
    rule = rules["ETW401"]
    p = page("ETW401")
    assert rule["helpUri"] == "https://etwmc.github.io/etwmc/rules/ETW401/"
    assert rule["shortDescription"] == {"text": p.summary}
    assert rule["fullDescription"]["text"] == p.description
    assert p.description.startswith("An event's level names a level")
    assert "`" not in rule["fullDescription"]["text"]
    markdown = rule["help"]["markdown"]
    assert p.meaning in markdown and p.why in markdown and rule["helpUri"] in markdown
    assert "```" not in markdown  # the examples stay on the page
    assert len(json.dumps(rule)) < 4000


def test_text_help_urls_follow_the_first_diagnostic_of_each_code() -> None:
    plain = render_text(_diags())
    assert "etwmc.github.io" not in plain  # the default output does not change
    linked = render_text(_diags(), help_urls=True).splitlines()
    assert linked == [
        "a.man:7:9: error ETW401: first",
        "a.man:7:9: note: a hint",
        "a.man:7:9: note: see https://etwmc.github.io/etwmc/rules/ETW401/",
        "a.man:8:9: error ETW401: second",
        "a.man:9:9: error ETW404: third",
        "a.man:9:9: note: see https://etwmc.github.io/etwmc/rules/ETW404/",
    ]


def test_lint_show_help_url(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.man"
    bad.write_text(BAD)
    assert main(["lint", str(bad)]) == 1
    assert "rules/ETW401/" not in capsys.readouterr().out
    assert main(["lint", "--show-help-url", str(bad)]) == 1
    out = capsys.readouterr().out
    assert out.count("note: see https://etwmc.github.io/etwmc/rules/ETW401/") == 1
    assert out.count("note: see https://etwmc.github.io/etwmc/rules/ETW404/") == 1
