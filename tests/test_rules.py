"""The semantic rules (etwmc/rules): each is exercised by a fixture in tests/manifests.

Fixture convention (tests/manifests/README.md): in ``invalid/*.man`` (other than the
schema's ``schema_*.man`` and the output stage's ``header_*.man`` and ``mc_*.man``) a
comment ``<!-- expect: ETWnnn ... -->`` marks each line that must carry a diagnostic;
every marked (line, code) must be reported and no unmarked error may be.
``valid/*.man`` must produce neither errors nor warnings.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from conftest import CORPUS, corpus_files, expected_failures, require_shared
from etwmc.codes import REGISTRY
from etwmc.diagnostics import Diagnostic, Severity
from etwmc.msgformat import Insert, inserts, tokens
from etwmc.rules._sddl import sddl_problem
from etwmc.rules._util import name_problem
from etwmc.rules.providers import guid_from_name_tail
from etwmc.validate import check_bytes, check_file

MANIFESTS = Path(__file__).resolve().parent / "manifests"
INVALID = sorted(
    p
    for p in (MANIFESTS / "invalid").glob("*.man")
    if not p.name.startswith(("schema_", "header_", "mc_"))
)
VALID = sorted((MANIFESTS / "valid").glob("*.man"))
EXPECT = re.compile(r"<!-- expect: ((?:ETW\d{3}\s*)+)-->")

# Lowering's codes that no fixture here can show on their own: the schema rejects
# the same input first (ETW12x for unreadable numbers), so a fixture would only pin the
# double report.
UNFIXTURED = {"ETW200"}


def expectations(path: Path) -> set[tuple[int, str]]:
    out: set[tuple[int, str]] = set()
    for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for m in EXPECT.finditer(text):
            out.update((number, c) for c in m.group(1).split())
    return out


def _show(diags: list[Diagnostic]) -> str:
    return "\n".join(f"{d.span.line}: {d.severity.label} {d.code} {d.message}" for d in diags)


@pytest.mark.parametrize("path", INVALID, ids=[p.stem for p in INVALID])
def test_invalid_fixture(path: Path) -> None:
    expected = expectations(path)
    assert expected, f"{path.name} marks no expected diagnostic"
    checked = check_file(path)
    found = {(d.span.line, d.code) for d in checked.diagnostics}
    missing = expected - found
    assert not missing, f"not reported: {sorted(missing)}\n{_show(checked.diagnostics)}"
    unexpected = [
        d
        for d in checked.diagnostics
        if d.severity == Severity.ERROR and (d.span.line, d.code) not in expected
    ]
    assert not unexpected, _show(unexpected)
    lines = path.read_text(encoding="utf-8").splitlines()
    for d in checked.diagnostics:
        assert d.message and d.span.file == str(path)
        if d.attr and d.span.col:
            # The column points at the attribute the diagnostic is about.
            assert lines[d.span.line - 1][d.span.col - 1 :].startswith(f"{d.attr}="), d


@pytest.mark.parametrize("path", VALID, ids=[p.stem for p in VALID])
def test_valid_fixture(path: Path) -> None:
    checked = check_file(path)
    loud = [d for d in checked.diagnostics if d.severity >= Severity.WARNING]
    assert not loud, _show(loud)
    assert checked.ok and checked.manifest is not None and checked.manifest.providers


def test_every_semantic_code_has_a_fixture() -> None:
    semantic = {c for c in REGISTRY if "ETW200" <= c <= "ETW599"}
    marked = {code for p in INVALID for _, code in expectations(p)}
    missing = sorted(semantic - marked - UNFIXTURED)
    assert not missing, f"codes without a fixture in tests/manifests/invalid: {missing}"
    assert UNFIXTURED <= semantic  # the exemptions still name real codes


@pytest.mark.parametrize(
    ("fixture", "code"), [("map_literal_message", "ETW412"), ("schema_maps_outside_maps", "ETW141")]
)
def test_a_literal_map_message_is_one_problem_with_one_diagnostic(fixture: str, code: str) -> None:
    """In <maps> the item is lowered and its text cannot be compiled (ETW412, an error);
    in a map directly inside <provider>, which etwmc does not read (ETW140), the same
    text is a warning (ETW141).  Never both for one attribute."""
    path = MANIFESTS / "invalid" / f"{fixture}.man"
    lines = path.read_text(encoding="utf-8").splitlines()
    literal = [n for n, text in enumerate(lines, 1) if re.search(r'message="[^$]', text)]
    assert literal
    found: dict[int, list[str]] = {}
    for d in check_file(path).diagnostics:
        found.setdefault(d.span.line, []).append(d.code)
    assert {n: found.get(n) for n in literal} == {n: [code] for n in literal}


def test_fixture_rules_report_with_hints() -> None:
    """Every error a rule reports in the fixtures says what would be right."""
    rule_codes = {c for c in REGISTRY if "ETW201" <= c <= "ETW599" and c not in _lowering_codes()}
    for path in INVALID:
        for d in check_file(path).diagnostics:
            if d.code in rule_codes and d.severity == Severity.ERROR:
                assert d.hint, (path.name, d.code, d.message)


def _lowering_codes() -> set[str]:
    import etwmc.lower as lower
    from etwmc.codes import Code

    return {v.id for v in vars(lower).values() if isinstance(v, Code)}


# ------------------------------------------------------------------ corpus


@pytest.mark.parametrize("path", corpus_files(), ids=[p.name for p in corpus_files()])
def test_corpus_files_get_no_rule_error(path: Path) -> None:
    require_shared()
    if path.name in expected_failures():
        pytest.skip("an expected failure")
    checked = check_file(path)
    errors = [d for d in checked.diagnostics if d.severity == Severity.ERROR]
    assert not errors, _show(errors[:10])


def test_reserved_opcode_240_fails_the_application_server_manifest() -> None:
    require_shared()
    path = CORPUS / (
        "repnz__etw-providers-docs__Win10-18990_Microsoft-Windows-Application_Server-Applications.xml"
    )
    lines = path.read_text(encoding="utf-8").splitlines()
    found = [d for d in check_file(path).diagnostics if d.code == "ETW211"]
    assert found
    for d in found:
        assert d.severity == Severity.ERROR
        assert 'value="240"' in lines[d.span.line - 1]


# ------------------------------------------------------------------ helpers


def test_inserts_follow_formatmessage() -> None:
    assert inserts("%1 and %2!x! and %%3 and %10") == [
        Insert(1, None),
        Insert(2, "x"),
        Insert(10, None),
    ]
    assert inserts("%n%t%r%b%.%!%0") == []
    assert inserts("%100") == [Insert(10, None)]  # two digits at most; the 0 is text
    assert inserts("%3!d") == [Insert(3, "d", closed=False)]
    assert inserts("100%") == []


@given(st.text(alphabet="%!102x ", max_size=30))
@example("%1!%2!x")
@example("%1!x%2")
@example("a%0%1%%2%3!")
def test_inserts_are_the_insert_tokens(text: str) -> None:
    # The rules read inserts as the decoder's tokenizer reads them.
    assert inserts(text) == [t for t in tokens(text) if isinstance(t, Insert)]


@given(st.text())
def test_inserts_never_raise(text: str) -> None:
    for i in inserts(text):
        assert 1 <= i.number <= 99


@pytest.mark.parametrize(
    "sddl",
    [
        "O:BAG:SYD:(A;;0xf0007;;;SY)(A;;0x7;;;BA)(A;;0x3;;;BO)(A;;0x5;;;SO)(A;;0x1;;;IU)",
        "D:(A;;0x1;;;S-1-5-32-573)(A;;0x2;;;S-1-5-33)",
        "D:PAI(A;OICI;GA;;;BA)(D;;GW;;;WD)",
        "O:SYG:SYD:(A;;0xf0007;;;SY)S:(ML;;NW;;;LW)",
        'D:(XA;;FX;;;S-1-1-0;(@User.Title=="PM"))',
        "D:(OA;;CR;ab721a53-1e2f-11d0-9819-00aa0040529b;;WD)",
    ],
)
def test_sddl_accepts_real_descriptors(sddl: str) -> None:
    assert sddl_problem(sddl) is None


@pytest.mark.parametrize(
    "sddl",
    [
        "",
        "bogus",
        "O:",
        "O:BAG:",
        "D:(A;;0x1;;SY)",
        "D:(Q;;0x1;;;SY)",
        "D:(A;;0x1;;;SY",
        "D:(A;;ZZ;;;SY)",
        "D:(A;XX;0x1;;;SY)",
        "D:(A;;0x1;not-a-guid;;SY)",
        "D:(A;;0x1;;;S-1)",
    ],
)
def test_sddl_rejects_malformed_descriptors(sddl: str) -> None:
    assert sddl_problem(sddl) is not None


@given(st.text(alphabet='OGDS:();AXPIRCY0x1-5 "@', max_size=40))
def test_sddl_check_never_raises(text: str) -> None:
    result = sddl_problem(text)
    assert result is None or isinstance(result, str)


def test_guid_from_name_tail_reads_backwards_skipping_other_characters() -> None:
    assert guid_from_name_tail("P{646E035B+4651-4D15-BC40-1897CC99E967)") == (
        "646e035b46514d15bc401897cc99e967"
    )
    assert guid_from_name_tail("short-abc") is None


def test_name_problem() -> None:
    assert name_problem("Company-Product/Operational") is None
    assert name_problem("") is not None
    assert name_problem("x" * 256) is not None
    assert name_problem("a\tb") is not None
    for c in "><&\"|\\:'?*":
        assert name_problem(f"a{c}b") is not None


def test_rules_survive_a_partial_model() -> None:
    """Rules run on whatever lowering could build, even after errors."""
    data = b"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
      <instrumentation><events>
        <provider name="" guid="{bad}" symbol="P">
          <templates><template tid="T">
            <data name="A" inType="x:Y" count="A"/>
          </template></templates>
          <events><event value="1" template="T" message="$(string.M)"/></events>
        </provider>
      </events></instrumentation>
      <localization><resources culture="en-US"><stringTable>
        <string id="M" value="%1 %7 %2!x"/></stringTable></resources></localization>
    </instrumentationManifest>"""
    checked = check_bytes(data, "partial.man")
    assert not checked.ok
    codes = {d.code for d in checked.diagnostics}
    assert {"ETW520", "ETW521", "ETW502"} <= codes


def _one_event(attrs: str, channels: str = "") -> bytes:
    return f"""<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events"
        xmlns:win="http://manifests.microsoft.com/win/2004/08/windows/events">
      <instrumentation><events>
        <provider name="Acme" guid="{{3F3A1D6B-0C7E-4C2B-9E55-6B8E2C1D4A10}}" symbol="ACME"
            resourceFileName="a.dll" messageFileName="a.dll">
          <channels>{channels}</channels>
          <events><event value="7" symbol="Spun" {attrs}/></events>
        </provider>
      </events></instrumentation>
    </instrumentationManifest>""".encode()


@pytest.mark.parametrize(
    ("attrs", "code", "suggestion"),
    [
        ('level="win:Informationl"', "ETW401", "win:Informational"),
        ('task="win:Nnoe"', "ETW402", "win:None"),
        ('opcode="win:Strat"', "ETW403", "win:Start"),
        ('keywords="win:AuditSucess"', "ETW404", "win:AuditSuccess"),
        ('channel="Aplication"', "ETW405", "Application"),
    ],
)
def test_unknown_references_suggest_win_names(attrs: str, code: str, suggestion: str) -> None:
    found = [d for d in check_bytes(_one_event(attrs), "x.man").diagnostics if d.code == code]
    assert len(found) == 1
    assert found[0].hint == f"did you mean '{suggestion}'?"


def test_an_unknown_level_is_not_also_a_missing_one() -> None:
    """ETW401 says the level is unknown; the advice about events without a level
    (ETW290) and the Admin-level rule (ETW208) are about levels that are not written."""
    admin = '<importChannel name="System" chid="sys"/>'
    data = _one_event('level="win:Informationl" channel="sys" message="$(string.M)"', admin)
    codes = [d.code for d in check_bytes(data, "x.man").diagnostics]
    assert "ETW401" in codes
    assert "ETW290" not in codes and "ETW208" not in codes
    codes = [d.code for d in check_bytes(_one_event('channel="sys"', admin), "x.man").diagnostics]
    assert "ETW290" in codes and "ETW208" in codes


def test_an_admin_event_without_a_level_is_a_warning() -> None:
    """mc compiles Admin-channel events that name no level (event-trace-kit's
    ImportChannelFromProvider.man at 8587e71, whose mc outputs are public)."""
    data = _one_event('channel="sys"', '<importChannel name="System" chid="sys"/>')
    checked = check_bytes(data, "x.man")
    found = [d for d in checked.diagnostics if d.code == "ETW208"]
    assert [d.severity for d in found] == [Severity.WARNING]
    assert checked.ok
