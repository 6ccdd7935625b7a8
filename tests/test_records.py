"""Record types (etwmc.record.Record: frozen, slotted values): what callers rely on.

The model is built once and shared by every rule and generator, so its nodes must
refuse assignment; diagnostics are de-duplicated and sorted by value; ``replace()``
makes the changed copies selections and options are built from.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from etwmc.diagnostics import Diagnostic, Severity, Span
from etwmc.model import Event, Field, String, XmlNode
from etwmc.options import CompileOptions, OptionsError
from etwmc.record import FrozenRecordError, fields, replace
from etwmc.selection import Selection
from etwmc.validate import check_file

VALID = Path(__file__).resolve().parent / "manifests" / "valid" / "real_world_forms.man"


def _model_nodes() -> list[object]:
    result = check_file(VALID)
    assert result.manifest is not None
    provider = result.manifest.providers[0]
    return [result.manifest, provider, provider.events[0], provider.events[0].span]


def test_model_nodes_refuse_assignment_and_have_no_instance_dict() -> None:
    for node in _model_nodes():
        name = fields(node)[0]  # type: ignore[arg-type]
        before = getattr(node, name)
        with pytest.raises(FrozenRecordError):
            setattr(node, name, None)
        with pytest.raises(FrozenRecordError):
            delattr(node, name)
        assert getattr(node, name) is before
        assert not hasattr(node, "__dict__"), type(node).__name__


def test_model_nodes_compare_and_hash_by_value() -> None:
    first, second = _model_nodes(), _model_nodes()
    for a, b in zip(first, second, strict=True):
        assert a is not b and a == b
    # A manifest holds its string tables as read-only mappings, so only its parts hash.
    for a, b in zip(first[1:], second[1:], strict=True):
        assert hash(a) == hash(b)
    assert first[2] != first[1] and first[3] != Span(first[3].file)  # type: ignore[attr-defined]


def test_spans_order_by_file_line_column() -> None:
    spans = [Span("b.man", 1, 1), Span("a.man", 3), Span("a.man", 1, 9), Span("a.man", 1, 2)]
    assert sorted(spans) == [
        Span("a.man", 1, 2),
        Span("a.man", 1, 9),
        Span("a.man", 3),
        Span("b.man", 1, 1),
    ]
    assert Span("a.man", 1) != ("a.man", 1, 0)


def test_diagnostics_are_equal_whatever_attribute_they_point_at() -> None:
    a = Diagnostic("ETW401", Severity.ERROR, Span("m.man", 2, 3), "bad", attr="level")
    b = Diagnostic("ETW401", Severity.ERROR, Span("m.man", 2, 3), "bad")
    c = Diagnostic("ETW401", Severity.ERROR, Span("m.man", 2, 3), "bad", hint="fix it")
    assert a == b and hash(a) == hash(b)
    assert a != c
    assert len({a, b, c}) == 2


def test_selection_extended_is_a_copy_with_the_other_fields_kept() -> None:
    base = Selection(select=("ETW4",), ignore=("ETW401",), root="/proj")
    more = base.extended(select=["ETW5"], ignore=["ETW502"])
    assert (more.select, more.ignore, more.root) == (
        ("ETW4", "ETW5"),
        ("ETW401", "ETW502"),
        "/proj",
    )
    assert more.per_file_ignores is base.per_file_ignores
    assert (base.select, base.ignore) == (("ETW4",), ("ETW401",))


def test_options_are_checked_on_construction_and_on_replace() -> None:
    opts = CompileOptions(wevt_version=3, legacy_template_ids=True)
    with pytest.raises(OptionsError, match="version 3"):
        replace(opts, wevt_version=5)
    with pytest.raises(OptionsError, match="nothing to write"):
        CompileOptions(python=False, binary=False)
    with pytest.raises(TypeError):
        CompileOptions(3)  # type: ignore[misc]  # keyword-only


@pytest.mark.parametrize("cls", [Span, String, Field, XmlNode, Event])
def test_written_out_constructors_set_each_field_from_its_own_argument(cls: type) -> None:
    # These records write their __init__ out, one slot setter per field by position: a
    # setter out of order would put one field's value in another.
    values = {name: f"value of {name}" for name in fields(cls)}
    built = cls(*values.values()) if cls is Span else cls(**values)
    assert {name: getattr(built, name) for name in fields(cls)} == values
    assert replace(built) == built
