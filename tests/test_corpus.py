"""Every real manifest in ../shared/corpus behaves as EXPECTED.md says: the listed ones fail
with errors that have a location, every other one lints without an error."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from conftest import corpus_files, expected_failures, require_shared, sized_cases
from etwmc.validate import check_file

FILES = corpus_files()


@pytest.mark.parametrize("path", sized_cases(FILES))
def test_corpus_manifest(path: Path) -> None:
    require_shared()
    checked = check_file(path)
    errors = [d for d in checked.diagnostics if d.severity.label == "error"]
    if path.name in expected_failures():
        assert errors, f"{path.name} must fail"
        assert all(d.span.line > 0 for d in errors), [str(d.span) for d in errors]
    else:
        assert not errors, "\n".join(f"{d.span}: {d.code} {d.message}" for d in errors[:10])


def test_corpus_is_present_or_skipped() -> None:
    require_shared()
    assert len(FILES) >= 55
    assert expected_failures() <= {p.name for p in FILES}


# What EXPECTED.md names as the reason each listed file fails.
REASONS = {
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Ntfs.xml": ({"ETW004"}, 47),
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-NetworkProvider.xml": (
        {"ETW004"},
        32,
    ),
    "repnz__etw-providers-docs__Win7-7600_Microsoft-Windows-GroupPolicy.xml": ({"ETW004"}, 29),
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-TCPIP.xml": ({"ETW301"}, None),
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-DxgKrnl.xml": ({"ETW301"}, None),
    "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-PowerShell.xml": (
        {"ETW402", "ETW123"},
        None,
    ),
}


@pytest.mark.parametrize("name", sorted(REASONS))
def test_expected_failures_fail_for_the_stated_reason(name: str) -> None:
    require_shared()
    codes, line = REASONS[name]
    checked = check_file(corpus_path(name))
    found = {d.code for d in checked.diagnostics if d.severity.label == "error"}
    assert codes <= found, (codes, found)
    if line is not None:
        assert any(d.span.line == line for d in checked.diagnostics)


def corpus_path(name: str) -> Path:
    from conftest import CORPUS

    return CORPUS / name


# A string id may hold spaces and parentheses: $(string.ID) runs to the *last* ')'
# (manifest-and-mc.md, strTableRef).  TCPIP has six such references and PowerShell
# eight; all of them name strings the file defines.
@pytest.mark.parametrize(
    ("name", "parenthesised"),
    [
        ("repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-TCPIP.xml", 6),
        ("repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-PowerShell.xml", 8),
    ],
)
def test_string_ids_with_parentheses_resolve(name: str, parenthesised: int) -> None:
    require_shared()
    path = corpus_path(name)
    refs = re.findall(r'message="\$\(string\.([^"]*\([^"]*)\)"', path.read_text("utf-8"))
    assert len(refs) >= parenthesised
    checked = check_file(path)
    assert checked.manifest is not None
    defined = {sid for res in checked.manifest.resources for sid in res.strings}
    assert set(refs) <= defined
    unresolved = [d for d in checked.diagnostics if d.code == "ETW408"]
    assert unresolved == [], [d.message for d in unresolved]


def test_dxgkrnl_reports_four_duplicate_strings() -> None:
    require_shared()
    checked = check_file(
        corpus_path("repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-DxgKrnl.xml")
    )
    assert len([d for d in checked.diagnostics if d.code == "ETW301"]) == 4
