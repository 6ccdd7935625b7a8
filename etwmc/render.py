"""The one Jinja environment, the literal filters, and black-exact formatting.

Literals: :func:`pystr` and :func:`pybytes` turn any text or bytes into an ASCII Python
literal spelled exactly as black spells it (double quotes unless single quotes need
fewer escapes; lowercase hex escapes), so manifest text only ever reaches the output
inside a string literal.

Formatting: the templates emit code already in black's style, and split the module into
top-level chunks with a marker line (:data:`CHUNK`).  A chunk whose lines all fit in
black's line length is what black prints; any other chunk (a very long name, a long
literal) is formatted with black, once per distinct chunk text.  So black runs only on
the few chunks that need it, and the module is still exactly what black prints for it,
which the tests check against black on whole modules.
"""

from __future__ import annotations

import functools
import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import jinja2

LINE_LENGTH = 88
CHUNK = "#@etwmc-chunk"  # a marker line the templates put between top-level chunks


def _escape(s: str, quote: str) -> str:
    out = []
    for ch in s:
        o = ord(ch)
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + quote)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ch == "\t":
            out.append("\\t")
        elif 0x20 <= o < 0x7F:
            out.append(ch)
        elif o < 0x100:
            out.append(f"\\x{o:02x}")
        elif o < 0x10000:
            out.append(f"\\u{o:04x}")
        else:
            out.append(f"\\U{o:08x}")
    return "".join(out)


def _quote(s: str) -> str:
    # black keeps double quotes unless single quotes need fewer backslashes.
    return "'" if s.count("'") < s.count('"') else '"'


# What a literal made here can contain: one closed string token of printable ASCII and
# the escapes above.  Every literal is checked against it, so none can end early and
# let text after it become code (checked, not assumed: the check is cheap).
_ESCAPES = r"\\(?:[\\nrt]|x[0-9a-f]{2}|u[0-9a-f]{4}|U[0-9a-f]{8})"
_SAFE = {
    '"': re.compile(rf'b?"(?:[ !#-\[\]-~]|\\"|{_ESCAPES})*"'),
    "'": re.compile(rf"b?'(?:[ -&(-\[\]-~]|\\'|{_ESCAPES})*'"),
}


def _checked(literal: str, quote: str) -> str:
    if not _SAFE[quote].fullmatch(literal):
        raise ValueError(f"unsafe literal {literal!r}")  # a bug in _escape, never input
    return literal


def pystr(s: str) -> str:
    """An ASCII ``str`` literal for ``s``, as black prints it."""
    q = _quote(s)
    return _checked(f"{q}{_escape(s, q)}{q}", q)


def pybytes(b: bytes) -> str:
    """An ASCII ``bytes`` literal for ``b``, as black prints it."""
    text = b.decode("latin-1")
    q = _quote(text)
    return _checked(f"b{q}{_escape(text, q)}{q}", q)


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
