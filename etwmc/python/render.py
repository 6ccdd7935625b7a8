"""The one Jinja environment and black-exact formatting.

Formatting: the templates emit code already in black's style, and split the module into
top-level chunks with a marker line (:data:`CHUNK`).  A chunk whose lines all fit in
black's line length is what black prints; any other chunk (a very long name, a long
literal) is formatted with black, once per distinct chunk text.  So black runs only on
the few chunks that need it, and the module is still exactly what black prints for it,
which the tests check against black on whole modules.
"""

from __future__ import annotations

import functools
from typing import TYPE_CHECKING, Any

from .literals import pystr

if TYPE_CHECKING:
    import jinja2

LINE_LENGTH = 88
CHUNK = "#@etwmc-chunk"  # a marker line the templates put between top-level chunks


@functools.cache
def environment() -> jinja2.Environment:
    """The Jinja environment: package templates, StrictUndefined, no autoescape."""
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.PackageLoader("etwmc", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    env.filters["pystr"] = pystr
    return env


def render(template: str, **context: Any) -> str:
    """Render a template and format the result (see the module docstring)."""
    return format_chunks(environment().get_template(template).render(**context))


@functools.cache
def _mode() -> Any:
    import black

    return black.Mode(
        target_versions={black.mode.TargetVersion.PY311},
        line_length=LINE_LENGTH,
        string_normalization=True,
        magic_trailing_comma=True,
        preview=False,
    )


@functools.lru_cache(maxsize=4096)
def black_format(text: str) -> str:
    """``text`` as black prints it, with etwmc's fixed mode (no user configuration)."""
    import black

    return black.format_str(text, mode=_mode())


def format_chunks(text: str) -> str:
    """Join the chunks of a rendered module, formatting with black only where needed."""
    out: list[str] = []
    for piece in text.split(CHUNK + "\n"):
        body = piece.strip("\n")
        if not body:
            continue  # an empty section: its blank lines would double the next one's
        if any(len(line) > LINE_LENGTH for line in body.split("\n")):
            lead = piece[: len(piece) - len(piece.lstrip("\n"))]
            trail = piece[len(piece.rstrip("\n")) :]
            piece = lead + black_format(body + "\n").rstrip("\n") + trail
        out.append(piece)
    return "".join(out)


def black_check(text: str) -> str:
    """The whole module formatted by black: for tests that prove :func:`format_chunks`
    prints exactly what black prints."""
    return black_format(text)
