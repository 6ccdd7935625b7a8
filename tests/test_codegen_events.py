"""An event's block is made from parts its template's events share (etwmc.python.events):
each shortcut it takes for plain text gives what the general docstring path gives."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from etwmc.python import docstrings
from etwmc.python.events import Shape, _args_doc
from etwmc.python.imports import Imports
from etwmc.python.payload import ParamCtx, Plan

NAMES = ["a", "count", "F0_1"]
# Inserts, escapes, formats and stops, beside text that needs an escape or has
# whitespace to join.
MESSAGES = st.text('%!0123459nx \t"\\é', max_size=24)
DOCS = st.text('ab: .,"\\\té', max_size=16)


def _plan(names: list[str], docs: list[str]) -> Plan:
    params = [ParamCtx(n, f"    {n}: int,", d) for n, d in zip(names, docs, strict=False)]
    return Plan("_T0", [], params, [p.name for p in params], None, names)


@given(MESSAGES)
def test_a_message_shows_what_the_general_path_shows(text: str) -> None:
    shape = Shape(_plan(NAMES, []), Imports())
    assert shape.message(text) == docstrings.message(text, NAMES)
    assert Shape(None, Imports()).message(text) == docstrings.message(text, [])


@given(st.lists(DOCS, max_size=3))
def test_the_args_paragraph_is_what_the_general_path_makes(docs: list[str]) -> None:
    plan = _plan(NAMES[: len(docs)], docs)
    lines = [f"    {p.name}: {p.doc}" for p in plan.params]
    lines.append("    activity_id, related_activity_id: see the module's docstring.")
    assert _args_doc(plan) == docstrings.paragraphs_text("    ", [["Args:", *lines]])
