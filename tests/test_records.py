"""etwmc.records: a record behaves as the frozen, slotted dataclass with the same fields."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from typing import ClassVar

import pytest

from etwmc.records import record, record_fields, replace


@record
class Point:
    """A keyword-only record with defaults."""

    LIMIT: ClassVar[int] = 9

    x: int
    y: int = 0
    label: str | None = None

    def norm(self) -> int:
        return abs(self.x) + abs(self.y)


@dataclasses.dataclass(frozen=True, slots=True, kw_only=True)
class PointDC:
    x: int
    y: int = 0
    label: str | None = None


@record(kw_only=False, order=True)
class Place:
    file: str
    line: int = 0
    col: int = 0


@dataclasses.dataclass(frozen=True, slots=True, order=True)
class PlaceDC:
    file: str
    line: int = 0
    col: int = 0


@record(kw_only=False)
class Noted:
    code: str
    note: str | None = None

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Noted) and self.code == other.code

    def __hash__(self) -> int:
        return hash(self.code)


def test_fields_defaults_and_class_variables() -> None:
    assert record_fields(Point) == ("x", "y", "label")
    assert Point.__slots__ == ("x", "y", "label")  # type: ignore[attr-defined]
    p = Point(x=3)
    assert (p.x, p.y, p.label) == (3, 0, None)
    assert Point.LIMIT == 9
    assert p.norm() == 3
    assert not hasattr(p, "__dict__")


def test_keyword_only_and_missing_arguments() -> None:
    with pytest.raises(TypeError):
        Point(1)  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(x=1, z=2)  # type: ignore[call-arg]
    assert Place("f", 2) == Place(file="f", line=2)
    with pytest.raises(TypeError):
        Place()  # type: ignore[call-arg]


def test_repr_equality_and_hash_match_the_dataclass() -> None:
    p, d = Point(x=1, y=2, label="a"), PointDC(x=1, y=2, label="a")
    assert repr(p).replace("Point", "PointDC", 1) == repr(d)
    assert hash(p) == hash(d)
    assert p == Point(x=1, y=2, label="a")
    assert p != Point(x=1, y=2)
    same_fields: object = d
    assert p != same_fields  # another class, even with equal fields
    as_tuple: object = (1, 2, "a")
    assert p != as_tuple
    assert len({p, Point(x=1, y=2, label="a"), Point(x=1)}) == 2


def test_frozen() -> None:
    p = Point(x=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        del p.y
    assert p.x == 1


def test_order_matches_the_dataclass() -> None:
    rows = [("b", 1, 2), ("a", 3, 0), ("a", 1, 5), ("b", 1, 1), ("a", 1, 5)]
    mine = sorted(Place(*r) for r in rows)
    theirs = sorted(PlaceDC(*r) for r in rows)
    assert [(p.file, p.line, p.col) for p in mine] == [(p.file, p.line, p.col) for p in theirs]
    assert Place("a") < Place("a", 1) <= Place("a", 1) < Place("b")
    assert Place("b") > Place("a") >= Place("a")
    with pytest.raises(TypeError):
        _ = Place("a") < PlaceDC("a")  # type: ignore[operator]


def test_methods_written_in_the_class_are_kept() -> None:
    assert Noted("ETW1", "x") == Noted("ETW1", "y")
    assert hash(Noted("ETW1", "x")) == hash(Noted("ETW1"))
    assert Noted("ETW1") != Noted("ETW2")
    assert repr(Noted("ETW1", "x")) == "Noted(code='ETW1', note='x')"


def test_copy_and_pickle() -> None:
    p = Point(x=1, y=2, label="a")
    assert copy.copy(p) == p
    assert copy.deepcopy(p) == p
    assert pickle.loads(pickle.dumps(p)) == p
    assert pickle.loads(pickle.dumps(Place("f", 1, 2))) == Place("f", 1, 2)


def test_no_base_classes() -> None:
    class Base:
        pass

    with pytest.raises(TypeError):

        @record
        class Derived(Base):
            x: int


def test_defaults_must_come_last_when_positional() -> None:
    with pytest.raises(TypeError):

        @record(kw_only=False)
        class Bad:
            x: int = 0
            y: int  # type: ignore[misc]


def test_field_names_are_the_records_own_whatever_they_are() -> None:
    # Records of one shape share compiled code: each must set its own names.
    @record
    class Swapped:
        _1: int
        _0: int = 7

    @record
    class Same:
        b: int
        a: int = 7

    s = Swapped(_1=5)
    assert (s._1, s._0) == (5, 7)
    assert (Same(b=5).b, Same(b=5).a) == (5, 7)
    with pytest.raises(TypeError, match="'_1'"):
        Swapped()  # type: ignore[call-arg]
    assert Swapped.__init__.__qualname__.endswith("Swapped.__init__")


def test_replace_matches_dataclasses_replace() -> None:
    p = Point(x=1, y=2, label="a")
    q = replace(p, y=5)
    assert (q.x, q.y, q.label) == (1, 5, "a") and p.y == 2
    assert dataclasses.replace(PointDC(x=1, y=2, label="a"), y=5) == PointDC(x=1, y=5, label="a")
    with pytest.raises(TypeError, match="no field 'z'"):
        replace(p, z=1)


@record
class Checked:
    low: int
    high: int = 10

    def __post_init__(self) -> None:
        if self.low > self.high:
            raise ValueError(f"{self.low} > {self.high}")


def test_post_init_runs_after_init_and_on_replace() -> None:
    assert Checked(low=3).high == 10
    with pytest.raises(ValueError, match="11 > 10"):
        Checked(low=11)
    with pytest.raises(ValueError, match="3 > 2"):
        replace(Checked(low=3), high=2)


def test_assigning_raises_frozen_instance_error_without_importing_dataclasses_first() -> None:
    import subprocess
    import sys

    code = (
        "import sys\n"
        "from etwmc.records import record\n"
        "assert 'dataclasses' not in sys.modules\n"
        "@record\n"
        "class R:\n"
        "    a: int\n"
        "r = R(a=1)\n"
        "try:\n"
        "    r.a = 2\n"
        "except AttributeError as e:\n"
        "    import dataclasses\n"
        "    assert isinstance(e, dataclasses.FrozenInstanceError)\n"
        "    print('frozen')\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "frozen"


def test_the_shapes_module_is_what_records_generates() -> None:
    # etwmc/record_shapes.py is generated; regenerate it with
    # python -c "from etwmc.records import shapes_module; print(shapes_module(), end='')"
    from pathlib import Path

    import etwmc.records as records

    shipped = Path(records.__file__).with_name("record_shapes.py").read_text(encoding="utf-8")
    assert shipped == records.shapes_module()


def test_records_take_their_init_code_from_the_shapes_module() -> None:
    import etwmc.record_shapes as shapes
    import etwmc.records as records

    for count in (0, 1, 5, records.SHAPES_MAX):
        for kw_only in (False, True):
            made = getattr(shapes, records.shape_name(count, kw_only))
            assert records._init_code(count, kw_only) is made.__code__
    # A larger record still works, its __init__ compiled for it.
    wide = record(type("Wide", (), {"__annotations__": {f"f{i}": "int" for i in range(40)}}))
    w = wide(**{f"f{i}": i for i in range(40)})
    assert (w.f0, w.f39) == (0, 39)
    assert records._init_code(40, True).co_argcount == 1
    assert records._init_code(40, True).co_kwonlyargcount == 40
