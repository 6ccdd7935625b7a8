"""Compile the module template (Jinja) into plain Python, once, at development time.

``etwmc/templates/provider.py.j2`` is the source of the generated module's text.  A
compile must not pay for Jinja (importing it and compiling the template cost more than
rendering), so this translator turns the template into ``etwmc/python/template.py``: one
function per macro and a ``render`` function that append the template's text and
values to a list, in the template's order.  That module is committed; a test fails when
it is not what this translator makes of the template, and another renders the template
with Jinja itself and compares.  Regenerate with::

    python -m etwmc.python.precompile

The translator knows the part of Jinja the template uses and refuses anything else
(:class:`TranslationError`): output of names, attributes, constant subscripts and
macro calls; ``for`` (with ``else`` and ``loop.index0``), ``if``/``elif``/``else``;
``not``, ``and``, ``or``, ``==``, ``!=``, ``+``, ``is none``; the ``length``, ``join``
and ``indent`` filters; macros with positional parameters.  Whitespace control is
Jinja's own: the template is parsed by :func:`environment`.
"""

from __future__ import annotations

import argparse
import functools
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path

import jinja2
from jinja2 import meta, nodes

TEMPLATE = Path(__file__).resolve().parents[1] / "templates" / "provider.py.j2"
OUTPUT = Path(__file__).resolve().parent / "template.py"
COMMAND = "python -m etwmc.python.precompile"


class TranslationError(Exception):
    """The template uses something the translator does not know."""


@functools.cache
def environment() -> jinja2.Environment:
    """The one Jinja environment (package templates, StrictUndefined, trimmed blocks):
    the translator parses with it, and the tests render with it."""
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATE.parent),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )


# Jinja's ``indent`` filter (jinja2.filters.do_indent, without Markup), for the
# generated module: it cannot import Jinja.
_INDENT = """

def _indent(s: str, width: int = 4, first: bool = False, blank: bool = False) -> str:
    indention = " " * width
    s += "\\n"  # as Jinja does, so that splitlines() keeps a final empty line
    if blank:
        rv = ("\\n" + indention).join(s.splitlines())
    else:
        lines = s.splitlines()
        rv = lines.pop(0)
        if lines:
            rv += "\\n" + "\\n".join(indention + line if line else line for line in lines)
    if first:
        rv = indention + rv
    return rv
"""

_COMPARE = {"eq": "==", "ne": "!="}
_SIMPLE = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.[]() ")


def translate(source: str, name: str = TEMPLATE.name) -> str:
    """The Python module for the template ``source`` (named ``name`` in its docstring)."""
    tree = environment().parse(source)
    return _Translator(name).module(tree)


class _Translator:
    def __init__(self, name: str) -> None:
        self.name = name
        self.out: list[str] = []
        self.depth = 0
        self.counter = 0
        self.macros: set[str] = set()
        self.loops: list[str | None] = []  # per enclosing for: its index variable
        self.local: list[set[str]] = []  # names bound in each enclosing scope
        self.uses_indent = False

    # -- statements ------------------------------------------------------------

    def module(self, tree: nodes.Template) -> str:
        body = [n for n in tree.body if not isinstance(n, nodes.Macro)]
        macros = [n for n in tree.body if isinstance(n, nodes.Macro)]
        self.macros = {m.name for m in macros}
        params = sorted(meta.find_undeclared_variables(tree) - self.macros)
        functions: list[str] = []
        for m in macros:
            self.function(f"_macro_{m.name}", [a.name for a in m.args], m.body, m)
            functions.append("\n".join(self.take()))
        keywords = ", ".join(f"{p}: Any" for p in params)
        self.function("render", params, body, tree, signature=f"*, {keywords}")
        functions.append("\n".join(self.take()))
        helpers = _INDENT if self.uses_indent else ""
        head = (
            f'"""The module template, compiled from etwmc/templates/{self.name}: do not edit.\n\n'
            f"Regenerate with ``{COMMAND}``; see :mod:`etwmc.python.precompile`.\n"
            '"""\n\n'
            "from __future__ import annotations\n\n"
            "from typing import Any\n"
        )
        return head + helpers + "".join(f"\n\n{f}\n" for f in functions)

    def take(self) -> list[str]:
        out, self.out = self.out, []
        return out

    def line(self, text: str) -> None:
        self.out.append("    " * self.depth + text)

    def function(
        self,
        name: str,
        params: Sequence[str],
        body: Sequence[nodes.Node],
        node: nodes.Node,
        signature: str | None = None,
    ) -> None:
        for p in params:
            _check_name(p, node)
        if signature is None:
            signature = ", ".join(f"{p}: Any" for p in params)
        self.line(f"def {name}({signature}) -> str:")
        self.depth += 1
        self.local.append(set(params))
        self.line("_o: list[str] = []")
        self.line("_w = _o.append")
        self.block(body)
        self.line('return "".join(_o)')
        self.local.pop()
        self.depth -= 1

    def block(self, body: Sequence[nodes.Node]) -> None:
        start = len(self.out)
        for node in body:
            self.statement(node)
        if len(self.out) == start:
            self.line("pass")

    def statement(self, node: nodes.Node) -> None:
        if isinstance(node, nodes.Output):
            self.output(node.nodes)
        elif isinstance(node, nodes.For):
            self.loop(node)
        elif isinstance(node, nodes.If):
            self.branch(node)
        else:
            raise _unsupported(node)

    def loop(self, node: nodes.For) -> None:
        if node.test is not None or node.recursive:
            raise _unsupported(node, "a filtered or recursive loop")
        targets = _targets(node.target)
        iterable = self.expr(node.iter)
        n = self.counter
        self.counter += 1
        index = f"_i{n}" if _uses_loop(node.body) else None
        empty = f"_empty{n}"
        if node.else_:
            self.line(f"{empty} = True")
        target = ", ".join(targets)
        if index:
            self.line(f"for {index}, {target} in enumerate({iterable}):")
        else:
            self.line(f"for {target} in {iterable}:")
        self.depth += 1
        self.loops.append(index)
        self.local.append(set(targets))
        if node.else_:
            self.line(f"{empty} = False")
        self.block(node.body)
        self.local.pop()
        self.loops.pop()
        self.depth -= 1
        if node.else_:
            self.line(f"if {empty}:")
            self.depth += 1
            self.block(node.else_)
            self.depth -= 1

    def branch(self, node: nodes.If) -> None:
        self.line(f"if {_bare(self.expr(node.test))}:")
        self.depth += 1
        self.block(node.body)
        self.depth -= 1
        for elif_ in node.elif_:
            self.line(f"elif {_bare(self.expr(elif_.test))}:")
            self.depth += 1
            self.block(elif_.body)
            self.depth -= 1
        if node.else_:
            self.line("else:")
            self.depth += 1
            self.block(node.else_)
            self.depth -= 1

    def output(self, parts: Sequence[nodes.Node]) -> None:
        """One ``_w(...)`` of the text and values, one literal per line of output."""
        lines: list[list[tuple[bool, str]]] = [[]]  # (is an expression, text or source)
        for part in parts:
            if isinstance(part, nodes.TemplateData):
                for i, piece in enumerate(part.data.split("\n")):
                    if i:
                        lines[-1].append((False, "\n"))
                        lines.append([])
                    if piece:
                        lines[-1].append((False, piece))
            else:
                source = self.expr(part)
                if not set(source) <= _SIMPLE:
                    # Quotes or backslashes cannot go inside an f-string (Python 3.11).
                    temp = f"_t{self.counter}"
                    self.counter += 1
                    self.line(f"{temp} = {source}")
                    source = temp
                lines[-1].append((True, source))
        literals = [_literal(line) for line in lines if line]
        if len(literals) == 1:
            self.line(f"_w({literals[0]})")
            return
        self.line("_w(")
        for literal in literals:
            self.line(f"    {literal}")
        self.line(")")

    # -- expressions -----------------------------------------------------------

    def expr(self, node: nodes.Node) -> str:
        if isinstance(node, nodes.Name):
            if node.name == "loop" or not any(node.name in s for s in self.local):
                raise _unsupported(node, f"the name {node.name!r} here")
            return node.name
        if isinstance(node, nodes.Const):
            if not isinstance(node.value, (str, int, bool, type(None))):
                raise _unsupported(node, f"the constant {node.value!r}")
            return repr(node.value)
        if isinstance(node, nodes.Getattr):
            if isinstance(node.node, nodes.Name) and node.node.name == "loop":
                return self.loop_attribute(node)
            return f"{self.expr(node.node)}.{_check_name(node.attr, node)}"
        if isinstance(node, nodes.Getitem):
            if not isinstance(node.arg, nodes.Const) or not isinstance(node.arg.value, int):
                raise _unsupported(node, "a subscript other than a constant int")
            return f"{self.expr(node.node)}[{node.arg.value!r}]"
        if isinstance(node, nodes.Call):
            return self.call(node)
        if isinstance(node, nodes.Filter):
            return self.filter(node)
        if isinstance(node, nodes.Test):
            if node.name != "none" or node.args or node.kwargs:
                raise _unsupported(node, f"the test {node.name!r}")
            return f"({self.expr(node.node)} is None)"
        if isinstance(node, nodes.Not):
            if isinstance(node.node, nodes.Test) and node.node.name == "none":
                return self.expr(node.node).replace(" is None)", " is not None)")
            return f"(not {self.expr(node.node)})"
        if isinstance(node, (nodes.And, nodes.Or, nodes.Add)):
            op = {nodes.And: "and", nodes.Or: "or", nodes.Add: "+"}[type(node)]
            return f"({self.expr(node.left)} {op} {self.expr(node.right)})"
        if isinstance(node, nodes.Compare):
            if len(node.ops) != 1 or node.ops[0].op not in _COMPARE:
                raise _unsupported(node, "a comparison other than one == or !=")
            op = _COMPARE[node.ops[0].op]
            return f"({self.expr(node.expr)} {op} {self.expr(node.ops[0].expr)})"
        raise _unsupported(node)

    def loop_attribute(self, node: nodes.Getattr) -> str:
        index = self.loops[-1] if self.loops else None
        if index is None or node.attr != "index0":
            raise _unsupported(node, f"loop.{node.attr} here")
        return index

    def call(self, node: nodes.Call) -> str:
        if (
            not isinstance(node.node, nodes.Name)
            or node.node.name not in self.macros
            or node.kwargs
            or node.dyn_args
            or node.dyn_kwargs
        ):
            raise _unsupported(node, "a call other than a macro's with positional arguments")
        return f"_macro_{node.node.name}({', '.join(self.expr(a) for a in node.args)})"

    def filter(self, node: nodes.Filter) -> str:
        if node.node is None or node.kwargs or node.dyn_args or node.dyn_kwargs:
            raise _unsupported(node, f"the filter {node.name!r} used this way")
        value = self.expr(node.node)
        args = [self.expr(a) for a in node.args]
        if node.name == "length" and not args:
            return f"len({value})"
        if node.name == "join" and len(args) <= 1:
            return f"{args[0] if args else repr('')}.join(map(str, {value}))"
        if node.name == "indent" and len(args) <= 3:
            self.uses_indent = True
            return f"_indent({', '.join([value, *args])})"
        raise _unsupported(node, f"the filter {node.name!r}")


def _literal(parts: list[tuple[bool, str]]) -> str:
    """A Python string literal (an f-string when it has values) for one output line."""
    values = any(is_expr for is_expr, _ in parts)
    out = []
    for is_expr, text in parts:
        if is_expr:
            out.append("{" + text + "!s}")
            continue
        escaped = text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
        out.append(escaped.replace("{", "{{").replace("}", "}}") if values else escaped)
    literal = ("f" if values else "") + '"' + "".join(out) + '"'
    if not literal.isascii() or not literal.isprintable():
        raise TranslationError(f"the template text {literal!r} is not printable ASCII")
    return literal


def _bare(source: str) -> str:
    """``source`` without the parentheses around all of it (a condition needs none)."""
    if source.startswith("(") and source.endswith(")"):
        depth = 0
        for i, ch in enumerate(source):
            depth += ch == "("
            depth -= ch == ")"
            if depth == 0 and i < len(source) - 1:
                return source  # "(a) + (b)": the first parenthesis closes early
        return source[1:-1]
    return source


def _targets(node: nodes.Node) -> list[str]:
    if isinstance(node, nodes.Name):
        return [_check_name(node.name, node)]
    if isinstance(node, nodes.Tuple) and all(isinstance(n, nodes.Name) for n in node.items):
        return [_check_name(n.name, n) for n in node.items if isinstance(n, nodes.Name)]
    raise _unsupported(node, "a loop target other than names")


def _check_name(name: str, node: nodes.Node) -> str:
    # The compiled code's own names start with "_"; the template's may not.
    if not name.isidentifier() or name.startswith("_"):
        raise _unsupported(node, f"the name {name!r}")
    return name


def _uses_loop(body: Sequence[nodes.Node]) -> bool:
    """Whether ``loop`` is used in ``body`` outside the loops nested in it."""

    def names(node: nodes.Node) -> Iterator[nodes.Name]:
        for child in node.iter_child_nodes():
            if isinstance(child, nodes.For):
                yield from names(child.iter)
                for n in child.else_:
                    yield from names(n)
            elif isinstance(child, nodes.Name):
                yield child
            else:
                yield from names(child)

    wrapper = nodes.Output(list(body))
    return any(n.name == "loop" for n in names(wrapper))


def _unsupported(node: nodes.Node, what: str | None = None) -> TranslationError:
    what = what or f"a {type(node).__name__} node"
    return TranslationError(f"line {node.lineno}: the translator does not support {what}")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument(
        "--check", action="store_true", help="exit 1 when the compiled template is stale"
    )
    args = parser.parse_args(argv)
    text = translate(TEMPLATE.read_text(encoding="utf-8"))
    current = OUTPUT.read_text(encoding="utf-8") if OUTPUT.is_file() else None
    if args.check:
        if current != text:
            print(f"{OUTPUT} is stale; regenerate with: {COMMAND}", file=sys.stderr)
            return 1
        return 0
    if current != text:
        OUTPUT.write_text(text, encoding="utf-8", newline="\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
