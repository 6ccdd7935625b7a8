"""Each statement shape that etwmc.python.layout lays out by hand is exactly what black
prints for it, at every length: the one-line form goes through black (the oracle, the
version the dev extra pins) and must come out as the layout function wrote it."""

from __future__ import annotations

from codegen_helpers import black_check
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import slow
from etwmc.python import layout

# Names and literals from 1 to 200 characters cross every threshold of every shape.
NAMES = st.integers(1, 200).map(lambda n: "N" * n)
LITERALS = st.integers(0, 200).map(lambda n: '"' + "x" * n + '"')
SCALARS = ["int", "float", "bool", "str", "bytes", "uuid.UUID", "datetime", "str | bytes"]
ANNOTATIONS = st.sampled_from(SCALARS + [f"Sequence[{t}]" for t in SCALARS] + ["_Struct12"])
EXAMPLES = settings(max_examples=150, deadline=None)


def _in_class(depth: int, body: str) -> tuple[str, str]:
    """``body`` (at ``4 * depth`` spaces) inside ``depth`` nested classes."""
    head = "".join(f"{'    ' * i}class C{i}:\n" for i in range(depth))
    return head, head + body + "\n"


@EXAMPLES
@given(st.integers(0, 2), st.one_of(NAMES, st.just("SOURCE: Final")), LITERALS)
def test_assign(depth: int, target: str, atom: str) -> None:
    head, text = _in_class(depth, layout.assign("    " * depth, target, atom))
    one_line = head + f"{'    ' * depth}{target} = {atom}\n"
    assert black_check(one_line) == text


@EXAMPLES
@given(st.integers(0, 2), NAMES, st.sampled_from(["0", "0x1F", "0xFFFFFFFFFFFFFFFF", "255"]))
def test_assign_number(depth: int, target: str, value: str) -> None:
    head, text = _in_class(depth, layout.assign("    " * depth, target, value))
    assert black_check(head + f"{'    ' * depth}{target} = {value}\n") == text


@EXAMPLES
@given(NAMES)
def test_descriptor(name: str) -> None:
    args = ["id=65535", "version=255", "channel=16", "level=4", "opcode=1", "task=1"]
    args.append("keyword=0x8000000000000000")
    text = layout.descriptor(name, "\n".join(f"    {a}," for a in args)) + "\n"
    exploded = f"{name}: Final = EventDescriptor(\n" + "".join(f"    {a},\n" for a in args) + ")\n"
    assert black_check(exploded) == text


@EXAMPLES
@given(NAMES)
def test_is_enabled(name: str) -> None:
    body = '    """Whether any session wants this event (one flag test)."""\n    return _on_0\n'
    text = layout.is_enabled(name) + "\n" + body
    assert black_check(f"def {name}() -> bool:\n{body}") == text


@EXAMPLES
@given(NAMES, ANNOTATIONS)
def test_parameter(name: str, annotation: str) -> None:
    def signature(param: str) -> str:
        return f"def write_E(\n{param}\n    _kw: _KeywordOnly = _KW,\n) -> int:\n    return 0\n"

    assert black_check(signature(f"    {name}: {annotation},")) == signature(
        layout.parameter(name, annotation)
    )


ARGS = st.lists(
    st.one_of(LITERALS, st.sampled_from(["1", "count_ref=0", "derived=True"])),
    min_size=2,
    max_size=8,
)


@slow
@EXAMPLES
@given(st.booleans(), ARGS)
def test_call_in_a_field_list(member: bool, args: list[str]) -> None:
    # A field spec, and one in a struct's member list.
    if member:
        head = '_T0: Final = _fields(\n    _Field(\n        "S",\n        0,\n'
        head += "        members=_fields(\n"
        tail = "        ),\n    ),\n)\n"
    else:
        head, tail = "_T0: Final = _fields(\n", ")\n"
    indent = " " * (12 if member else 4)
    one_line = f"{indent}_Field({', '.join(args)}),\n"
    text = layout.call(indent, "_Field", args, ",") + "\n"
    assert black_check(head + one_line + tail) == head + text + tail


@EXAMPLES
@given(
    st.integers(1, 12),
    st.lists(st.integers(0, 2**64 - 1).map("0x{:X}".format), min_size=2, max_size=9),
)
def test_call_assigned(digits: int, args: list[str]) -> None:
    head = f"_d{'9' * digits}: Final = pack_descriptor"
    one_line = f"{head}({', '.join(args)})\n"
    assert black_check(one_line) == layout.call("", head, args) + "\n"


@EXAMPLES
@given(st.sampled_from(["_s0", "_s12345"]), st.integers(1, 200), st.booleans())
def test_struct_assign(name: str, width: int, pointers: bool) -> None:
    fmt = '"<' + "IqP"[width % 3] * width + '"'
    argument = f"_pointers({fmt})" if pointers else fmt
    text = layout.struct_assign(name, fmt, pointers) + "\n"
    assert black_check(f"{name}: Final = struct.Struct({argument})\n") == text


@EXAMPLES
@given(st.sampled_from(["_Struct0", "_Struct12345"]), st.lists(ANNOTATIONS, max_size=30))
def test_type_alias(name: str, members: list[str]) -> None:
    tup = f"tuple[{', '.join(members)}]" if members else "tuple[()]"
    text = layout.type_alias(name, members) + "\n"
    assert black_check(f"{name}: TypeAlias = {tup} | dict[str, object]\n") == text


@EXAMPLES
@given(
    st.booleans(),
    st.sampled_from(["_payload =", "_payload +="]),
    st.sampled_from([("_u16", 'b"\\x00\\x00"'), ("_ansi", 'b"\\x00"'), (None, 'b"\\x00"')]),
    st.integers(1, 200).map(lambda n: "p" * n),
)
def test_concat(nested: bool, target: str, kind: tuple[str | None, str], name: str) -> None:
    function, right = kind
    head = "def f():\n    if x:\n        try:\n" if nested else "def f():\n    try:\n"
    indent = " " * (12 if nested else 8)
    tail = f"{indent[4:]}except Exception:\n{indent}pass\n"
    left = f"{function}({name})[0]" if function else f"{name}.encode()"
    one_line = f"{indent}{target} {left} + {right}\n"
    text = layout.concat(indent, target, function, name, right) + "\n"
    assert black_check(head + one_line + tail) == head + text + tail


@EXAMPLES
@given(NAMES, st.sampled_from(["enum.IntEnum", "enum.IntFlag"]))
def test_class_head(name: str, base: str) -> None:
    body = "        V = 1\n"
    text = "class P:\n" + layout.class_head("    ", name, base) + "\n" + body
    assert black_check(f"class P:\n    class {name}({base}):\n{body}") == text


STRING_PIECES = st.sampled_from(
    [("_u16", 'b"\\x00\\x00"'), ("_ansi", 'b"\\x00"'), (None, 'b"\\x00"')]
)


@slow
@EXAMPLES
@given(
    st.booleans(),
    st.lists(
        st.one_of(
            st.tuples(st.just("call"), st.sampled_from(["_s0.pack", "_s12.pack"]),
                      st.lists(NAMES.map(lambda n: n.lower()[:60]), min_size=1, max_size=12)),
            st.tuples(STRING_PIECES, st.integers(1, 200).map(lambda n: "p" * n)),
        ),
        min_size=2,
        max_size=4,
    ),
)  # fmt: skip
def test_join(nested: bool, parts: list[tuple[object, ...]]) -> None:
    pieces: list[layout.Piece] = []
    for part in parts:
        if part[0] == "call":
            pieces.append(("call", str(part[1]), list(part[2])))  # type: ignore[arg-type]
        else:
            (function, end), name = part  # type: ignore[misc]
            pieces += [("encode", function, name), ("atom", None, end)]
    head = "def f():\n    if x:\n        try:\n" if nested else "def f():\n    try:\n"
    indent = " " * (12 if nested else 8)
    tail = f"{indent[4:]}except Exception:\n{indent}pass\n"
    texts = ", ".join(layout._piece(p) for p in pieces)
    one_line = f'{indent}_payload = b"".join(({texts}))\n'
    text = layout.join(indent, "_payload =", pieces) + "\n"
    assert black_check(head + one_line + tail) == head + text + tail


@EXAMPLES
@given(
    st.sampled_from(["", "    ", "        "]),
    st.lists(st.integers(1, 40).map(lambda n: "a" * n), min_size=1, max_size=4),
    st.lists(st.integers(1, 40).map(lambda n: "b" * n), max_size=8),
)
def test_call_shared_is_call_of_all_its_arguments(
    indent: str, first: list[str], rest: list[str]
) -> None:
    # Calls that share their last arguments are laid out as call() lays out the whole.
    if len(first) + len(rest) < 2:
        rest = ["b"]
    for head, tail in (("raise _fail", " from None"), ("return _start", "")):
        want = layout.call(indent, head, [*first, *rest], tail)
        assert layout.call_shared(indent, head, first, layout.Shared(indent, rest), tail) == want
