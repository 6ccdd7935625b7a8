"""``etwmc compile`` with the generated module made the plain way, for bench/run.py.

Run: ``python bench/plain_render.py WAY compile MANIFEST -o OUT`` where WAY is

* ``jinja``: the module template (etwmc/templates/provider.py.j2) rendered by Jinja,
  instead of etwmc/python/template.py, the template compiled to Python ahead of time;
* ``black``: the compiled template's text formatted by black, as if the generator
  left the layout to black instead of laying statements out as black does
  (etwmc/python/layout.py);
* ``jinja+black``: both.

Everything else is the ``etwmc`` command as installed, run and ended as it is.  The
text is the same every way (the tests hold the compiled template to Jinja's rendering
and the layout to black's), so only the cost differs.  The layout functions still run
in the ``black`` ways (the context is built as it is): they cost a few milliseconds,
which the ``black`` ways overstate by.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any


def _renderer(way: str) -> Callable[..., str]:
    from etwmc.python import template

    render: Callable[..., str] = template.render
    if "jinja" in way:
        from etwmc.python.precompile import TEMPLATE, environment

        render = environment().get_template(TEMPLATE.name).render
    if "black" not in way:
        return render
    import black

    # The mode generated modules are laid out in; no user configuration is read.
    mode = black.Mode(
        target_versions={black.mode.TargetVersion.PY311},
        line_length=88,
        string_normalization=True,
        magic_trailing_comma=True,
        preview=False,
    )

    def formatted(**context: Any) -> str:
        return black.format_str(render(**context), mode=mode)

    return formatted


def main() -> None:
    way = sys.argv.pop(1)
    if way not in ("jinja", "black", "jinja+black"):
        raise SystemExit(f"unknown way {way!r}")
    from etwmc.python import template

    template.render = _renderer(way)  # type: ignore[method-assign]
    from etwmc.cli import console

    sys.argv[0] = "etwmc"
    console()


if __name__ == "__main__":
    main()
