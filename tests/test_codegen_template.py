"""The module template is etwmc/templates/provider.py.j2; a compile runs its compiled form,
etwmc/python/template.py.  The committed compiled form is what the translator makes of
the template, and it renders exactly what Jinja renders from the template."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest
from codegen_helpers import HELLO

from conftest import CORPUS
from etwmc.python import build_context, template
from etwmc.python.precompile import (
    COMMAND,
    OUTPUT,
    TEMPLATE,
    TranslationError,
    environment,
    translate,
)
from etwmc.validate import check_bytes, check_file

VALID = sorted((Path(__file__).parent / "manifests" / "valid").glob("*.man"))
# Corpus manifests that reach every branch of the template: structs and aliases,
# pointers, control and group GUIDs, bitmaps, start/stop events, several providers.
CORPUS_CASES = [
    "microsoft__perfview__ClrEtwAll.man",
    "gix__event-trace-kit__ProviderTraits.man",
    "gix__event-trace-kit__TypeMangling.man",
    "microsoft__Windows-classic-samples__AdvancedProvider.man",
    "gix__event-trace-kit__Empty.man",
]


def test_the_compiled_template_is_current() -> None:
    want = translate(TEMPLATE.read_text(encoding="utf-8"))
    have = OUTPUT.read_text(encoding="utf-8")
    if have != want:
        diff = "".join(
            difflib.unified_diff(have.splitlines(True), want.splitlines(True), "committed", "new")
        )
        raise AssertionError(f"{OUTPUT.name} is stale:\n{diff}\nfix: {COMMAND}")


def _cases() -> list[Path]:
    return [HELLO, *VALID, *(CORPUS / name for name in CORPUS_CASES)]


@pytest.mark.parametrize("man", _cases(), ids=lambda p: p.name)
def test_compiled_template_renders_what_jinja_renders(man: Path) -> None:
    if not man.is_file():
        pytest.skip("../shared/corpus is not present next to this checkout")
    checked = check_file(man)
    assert checked.ok and checked.manifest is not None
    ctx, _ = build_context(checked.manifest, version="9.9", source=man.name)
    jinja = environment().get_template(TEMPLATE.name).render(m=ctx)
    assert template.render(m=ctx) == jinja


NO_PROVIDERS = b"""<?xml version="1.0"?>
<instrumentationManifest xmlns="http://schemas.microsoft.com/win/2004/08/events">
  <instrumentation><events/></instrumentation>
</instrumentationManifest>
"""


def test_a_manifest_without_providers_renders_the_same() -> None:
    checked = check_bytes(NO_PROVIDERS, "e.man")
    assert checked.ok and checked.manifest is not None and not checked.manifest.providers
    ctx, _ = build_context(checked.manifest, version="", source="e.man")
    assert template.render(m=ctx) == environment().get_template(TEMPLATE.name).render(m=ctx)


@pytest.mark.parametrize(
    "source",
    [
        "{% set x = 1 %}",  # assignments
        "{{ m.items | sort }}",  # a filter it does not know
        "{{ m.f(1) }}",  # calling something other than a macro
        "{% for x in m.xs if x %}{{ x }}{% endfor %}",  # a filtered loop
        "{{ loop.index }}",  # loop outside a loop
        "{{ m.x[m.y] }}",  # a subscript that is not a constant
        "{{ _private }}",  # a name the compiled code could shadow
        "{% include 'other.j2' %}",
    ],
)
def test_the_translator_refuses_what_it_does_not_know(source: str) -> None:
    with pytest.raises(TranslationError, match="does not support"):
        translate(source)


def test_the_translator_keeps_jinja_semantics() -> None:
    source = (
        "{% macro item(x) %}<{{ x }}>\n{% endmacro %}"
        "{% for x in m.xs %}{{ loop.index0 }}{{ item(x) | indent(2, true) }}"
        "{% else %}none\n{% endfor %}"
        "{% if m.a is none and not m.b or m.xs | length == 2 %}{{ m.xs | join(', ') }}{% endif %}"
        '{{ m.t[1] }} {{ m.s + "!" }}\n'
    )

    class M:
        def __init__(self, xs: list[object], a: object, b: bool) -> None:
            self.xs, self.a, self.b, self.t, self.s = xs, a, b, ("p", "q"), "{s}"

    namespace: dict[str, object] = {}
    exec(translate(source), namespace)  # the translator's output for a test template
    compiled = namespace["render"]
    assert callable(compiled)
    for m in (M([1, "two"], None, False), M([], 1, True), M([None], None, True)):
        assert compiled(m=m) == environment().from_string(source).render(m=m)
