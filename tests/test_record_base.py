"""etwmc.record.Record: the one way records are declared, and what it promises."""

from __future__ import annotations

import subprocess
import sys

import pytest

from etwmc.record import FrozenRecordError, Record, field, fields, replace, slot_setters


class Point(Record, order=True):
    x: int
    y: int = 0
    label: str = field(default="", compare=False)


class Node(Record, kw_only=True):
    name: str
    children: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)
    size: int = field(init=False)

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a node needs a name")
        object.__setattr__(self, "size", len(self.children))


class Point3(Point):
    z: int = 0


def test_positional_fields_take_their_defaults_and_keywords() -> None:
    assert (Point(1).x, Point(1).y) == (1, 0)
    assert Point(1, 2) == Point(1, y=2) == Point(x=1, y=2)
    with pytest.raises(TypeError):
        Point()  # type: ignore[call-arg]
    with pytest.raises(TypeError):
        Point(1, 2, "a", 4)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="both by position and by name"):
        Point(1, x=2)  # type: ignore[misc]
    with pytest.raises(TypeError, match="unknown fields \\['w'\\]"):
        Point(1, w=2)  # type: ignore[call-arg]


def test_keyword_only_records_refuse_positions() -> None:
    assert Node(name="a").children == ()
    with pytest.raises(TypeError, match="keywords only"):
        Node("a")  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="missing \\['name'\\]"):
        Node(children=("b",))  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="unknown fields \\['size'\\]"):
        Node(name="a", size=3)  # type: ignore[call-arg]


def test_assignment_and_deletion_are_refused_and_there_is_no_dict() -> None:
    p = Point(1)
    with pytest.raises(FrozenRecordError):
        p.x = 2  # type: ignore[misc]
    with pytest.raises(FrozenRecordError):
        del p.x
    with pytest.raises(AttributeError):
        p.other = 1
    assert not hasattr(p, "__dict__") and p.x == 1
    assert issubclass(FrozenRecordError, AttributeError)


def test_equality_hashing_and_order_use_the_compared_fields_of_one_class() -> None:
    assert Point(1, 2, "a") == Point(1, 2, "b") and hash(Point(1, 2, "a")) == hash(Point(1, 2))
    assert Point(1, 2) != Point(1, 3) and Point(1, 2) != (1, 2)
    assert Point3(1, 2) != Point(1, 2)  # a subclass is another kind of value
    assert sorted([Point(2), Point(1, 5), Point(1, 2)]) == [Point(1, 2), Point(1, 5), Point(2)]
    with pytest.raises(TypeError):
        _ = Point(1) < Point3(1)
    with pytest.raises(TypeError):
        _ = Node(name="a") < Node(name="b")  # type: ignore[operator]  # no order=True


def test_derived_slots_and_factories() -> None:
    a, b = Node(name="a", children=("x", "y")), Node(name="a", children=("x", "y"))
    assert a.size == 2 and a == b and a.notes is not b.notes
    assert "size" not in repr(a) and "size" not in fields(a)
    with pytest.raises(ValueError, match="needs a name"):
        Node(name="")


def test_replace_copies_and_checks_again() -> None:
    a = Node(name="a", children=("x",))
    b = replace(a, children=("x", "y"))
    assert (b.name, b.children, b.size) == ("a", ("x", "y"), 2) and a.size == 1
    with pytest.raises(ValueError):
        replace(a, name="")
    moved = replace(Point(1, 2, "l"), y=5)
    assert moved == Point(1, 5) and moved.label == "l"


def test_fields_repr_and_inheritance() -> None:
    assert fields(Point3) == ("x", "y", "label", "z") == fields(Point3(1))
    assert repr(Point3(1, z=4)) == "Point3(x=1, y=0, label='', z=4)"
    assert Point3(1, 2, "", 3).z == 3


def test_a_field_without_a_default_after_one_with_is_refused() -> None:
    with pytest.raises(TypeError, match="without a default follows"):

        class Bad(Record):
            a: int = 0
            b: int  # type: ignore[misc]

    class Fine(Record, kw_only=True):  # keyword-only: any order
        a: int = 0
        b: int

    assert Fine(b=1).a == 0


def test_a_written_out_init_is_kept() -> None:
    class Pair(Record):
        a: int
        b: int

        def __init__(self, a: int, b: int) -> None:
            object.__setattr__(self, "a", a * 10)
            object.__setattr__(self, "b", b)

    assert Pair(1, 2).a == 10 and Pair(1, 2) == Pair(1, 2)


def test_slot_setters_set_every_field_in_order_inherited_ones_first() -> None:
    setters = slot_setters(Point3)
    assert len(setters) == len(fields(Point3)) == 4
    p = Point3(0)
    for setter, value in zip(setters, (1, 2, "p", 3), strict=True):
        setter(p, value)
    assert (p.x, p.y, p.label, p.z) == (1, 2, "p", 3)


def test_declaring_records_imports_no_dataclasses() -> None:
    """The point of the base: defining the model and the diagnostics compiles no code
    and loads neither dataclasses nor inspect."""
    probe = (
        "import sys\nimport etwmc.record, etwmc.model, etwmc.diagnostics, etwmc.options\n"
        "print(sorted(m for m in ('dataclasses', 'inspect') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_copies_and_pickles_are_equal_records() -> None:
    import copy
    import pickle

    node = Node(name="a", children=("x",), notes=["n"])
    for twin in (copy.copy(node), copy.deepcopy(node), pickle.loads(pickle.dumps(node))):
        assert twin == node and twin.size == 1 and type(twin) is Node
    assert pickle.loads(pickle.dumps(Point(1, 2, "l"))).label == "l"
