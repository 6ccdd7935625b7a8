"""One page per diagnostic code: what it means, why it matters, what mc.exe does with the
same input, a failing example and the fix.

The pages are Markdown files beside this module (``ETW401.md``) and ship with the
package: ``etwmc rule`` prints them, the documentation site publishes them at
:func:`url`, and SARIF reports link to them.  A page is plain CommonMark with fenced
code blocks, so it reads the same in a browser and in a terminal
(:func:`to_text`).  Its shape::

    # ETW401: <the code's summary, as in etwmc/codes.py>

    Default severity: error.

    ## What it means
    ## Why it matters
    ## What mc.exe does
    ## Example
    ## Fix

In the example and the fix, a fenced block preceded by a line ```name`:`` is the file of
that name (a block of XML with no such line is ``example.man``), and ``$ etwmc ...``
lines of a ``console`` block are the commands that report the code; the tests run them.
"""

from __future__ import annotations

import pkgutil
import re
from functools import cache
from typing import Final

from ..codes import REGISTRY
from ..record import Record

DOCS_URL: Final = "https://etwmc.github.io/etwmc/"

SECTIONS: Final = ("What it means", "Why it matters", "What mc.exe does", "Example", "Fix")


class RulePage(Record):
    """A code's page: the registry's facts and the page's sections (Markdown)."""

    code: str
    severity: str
    summary: str
    meaning: str
    why: str
    mc: str
    example: str
    fix: str
    markdown: str  # the whole page, as the file holds it

    @property
    def url(self) -> str:
        return url(self.code)

    @property
    def sections(self) -> tuple[tuple[str, str], ...]:
        """(heading, Markdown) for each section, in page order."""
        return tuple(
            zip(SECTIONS, (self.meaning, self.why, self.mc, self.example, self.fix), strict=True)
        )

    @property
    def description(self) -> str:
        """The first paragraph of the explanation, as plain text (SARIF's fullDescription)."""
        return _plain(self.meaning.split("\n\n", 1)[0]).replace("\n", " ")


class PageError(ValueError):
    """A page file that does not have the shape above (a packaging or editing mistake)."""


def url(code_id: str) -> str:
    """The page's address on the documentation site."""
    return f"{DOCS_URL}rules/{code_id}/"


@cache
def page(code_id: str) -> RulePage:
    """The page of a registered code; :class:`KeyError` for an unknown one."""
    code = REGISTRY.get(code_id)
    if code is None:
        raise KeyError(code_id)
    # pkgutil rather than importlib.resources, which imports tempfile and shutil for
    # what a lint never needs; both read a page inside a zip as well as in a folder.
    try:
        data = pkgutil.get_data(__name__, f"{code_id}.md")
    except FileNotFoundError:
        data = None
    if data is None:
        raise PageError(f"{code_id} has no page ({code_id}.md)")
    return parse(code_id, data.decode("utf-8"))


def all_pages() -> tuple[RulePage, ...]:
    """Every registered code's page, in code order."""
    return tuple(page(c) for c in sorted(REGISTRY))


def parse(code_id: str, text: str) -> RulePage:
    """A page from its Markdown; :class:`PageError` if its title, severity line or
    sections do not match the registry and :data:`SECTIONS`."""
    code = REGISTRY[code_id]
    head, *rest = re.split(r"^## ", text, flags=re.MULTILINE)
    title = f"# {code_id}: {code.summary}"
    severity = f"Default severity: {code.severity.label}."
    if [line for line in head.splitlines() if line.strip()] != [title, severity]:
        raise PageError(f"{code_id}.md must begin with {title!r} and {severity!r}")
    found: dict[str, str] = {}
    for chunk in rest:
        heading, _, body = chunk.partition("\n")
        found[heading.strip()] = body.strip()
    if list(found) != list(SECTIONS):
        raise PageError(f"{code_id}.md must have the sections {', '.join(SECTIONS)}, in order")
    empty = [h for h, body in found.items() if not body]
    if empty:
        raise PageError(f"{code_id}.md: empty section {empty[0]!r}")
    meaning, why, mc, example, fix = (found[h] for h in SECTIONS)
    return RulePage(
        code=code_id,
        severity=code.severity.label,
        summary=code.summary,
        meaning=meaning,
        why=why,
        mc=mc,
        example=example,
        fix=fix,
        markdown=text,
    )


# --------------------------------------------------------------------------- plain text

_FENCE = re.compile(r"^```")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)]+)\)")


def _plain(text: str) -> str:
    """Inline Markdown as plain text: links show their address, emphasis and code marks go."""
    text = _LINK.sub(lambda m: f"{m.group(1)} ({m.group(2)})", text)
    return text.replace("**", "").replace("`", "")


def to_text(p: RulePage) -> str:
    """The page for a terminal: headings underlined, code blocks indented, no markup."""
    out = [f"{p.code}: {p.summary}", "=" * len(f"{p.code}: {p.summary}"), ""]
    out.append(f"Default severity: {p.severity}.")
    for heading, body in p.sections:
        out += ["", heading, "-" * len(heading), ""]
        in_code = False
        for line in body.splitlines():
            if _FENCE.match(line):
                in_code = not in_code
                continue
            out.append(f"    {line}".rstrip() if in_code else _plain(line))
    out += ["", f"Online: {p.url}"]
    return "\n".join(out) + "\n"


def to_json_obj(p: RulePage) -> dict[str, str]:
    """Every field of the page, and its address."""
    return {
        "code": p.code,
        "severity": p.severity,
        "summary": p.summary,
        "url": p.url,
        **{key: value for key, (_, value) in zip(_KEYS, p.sections, strict=True)},
        "markdown": p.markdown,
    }


_KEYS: Final = ("meaning", "why", "mc", "example", "fix")
