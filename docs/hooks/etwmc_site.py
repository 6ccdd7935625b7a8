"""MkDocs hook: the documentation pages that etwmc itself knows, made at build time.

Nothing here is committed as a page; each build reads the package it documents:

* ``<!-- etwmc:commands -->`` (in cli.md): every command with its usage and every option,
  from the argument parsers the ``etwmc`` command builds (:mod:`etwmc.commands`);
* ``<!-- etwmc:configuration -->`` and ``<!-- etwmc:lint-configuration -->`` (in
  configuration.md): every key with its type, default and meaning
  (:data:`etwmc.config.KEY_HELP`, :data:`etwmc.config.LINT_KEY_HELP`);
* ``<!-- etwmc:rules -->`` (in rules/index.md): the table of every diagnostic code
  (:data:`etwmc.codes.REGISTRY`), and one page per code at ``rules/ETWnnn/``: the
  code's explanation from the package's ``etwmc/rulepages/ETWnnn.md`` where there is
  one, else its registry entry;
* ``changelog.md`` and ``contributing.md``: the repository's CHANGELOG.md and
  CONTRIBUTING.md.

The hook is named in mkdocs.yml (``hooks:``) and excluded from the pages
(``exclude_docs``).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.resources
import io
from collections.abc import Callable, Iterator, Mapping
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.structure.files import File, Files, InclusionLevel
from mkdocs.structure.pages import Page

from etwmc.cli import main
from etwmc.codes import REGISTRY
from etwmc.commands import COMMANDS
from etwmc.config import KEY_HELP, LINT_KEY_HELP, KeyHelp

REPOSITORY = Path(__file__).resolve().parents[2]
HELP_WIDTH = 78  # usage text fits the page's code blocks, whatever the terminal
FROM_REPOSITORY = {"changelog.md": "CHANGELOG.md", "contributing.md": "CONTRIBUTING.md"}


# ----------------------------------------------------------------------------- events


def on_files(files: Files, config: MkDocsConfig) -> Files:
    """Add the rule pages and the repository's changelog and contributing notes."""
    for code in REGISTRY.values():
        files.append(
            File.generated(
                config,
                f"rules/{code.id}.md",
                content=rule_page(code.id),
                # Reached from the rules table; 170 entries would drown the navigation.
                inclusion=InclusionLevel.NOT_IN_NAV,
            )
        )
    for page, source in FROM_REPOSITORY.items():
        text = (REPOSITORY / source).read_text(encoding="utf-8")
        files.append(File.generated(config, page, content=text))
    return files


def on_page_markdown(markdown: str, page: Page, config: MkDocsConfig, files: Files) -> str:
    for marker, render in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, render())
    return markdown


# ----------------------------------------------------------------------------- commands


class _RecordingParser(argparse.ArgumentParser):
    """An argument parser that keeps the arguments added to it, in order: argparse
    gives no public way to list them, but ``add_argument`` returns each one."""

    def __init__(self, prog: str) -> None:
        self.recorded: list[tuple[argparse.Action, dict[str, Any]]] = []
        # -h/--help is every command's; the reference says so once.
        super().__init__(prog=prog, formatter_class=_formatter, add_help=False)

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        action = super().add_argument(*args, **kwargs)
        self.recorded.append((action, kwargs))
        return action

    def add_argument_group(self, *args: Any, **kwargs: Any) -> Any:
        return self._recording(super().add_argument_group(*args, **kwargs))

    def add_mutually_exclusive_group(self, *args: Any, **kwargs: Any) -> Any:
        return self._recording(super().add_mutually_exclusive_group(*args, **kwargs))

    def _recording(self, group: Any) -> Any:
        add: Callable[..., argparse.Action] = group.add_argument

        def recorded(*args: Any, **kwargs: Any) -> argparse.Action:
            action = add(*args, **kwargs)
            self.recorded.append((action, kwargs))
            return action

        group.add_argument = recorded
        return group


def _formatter(prog: str) -> argparse.HelpFormatter:
    return argparse.HelpFormatter(prog, width=HELP_WIDTH)


def commands_reference() -> str:
    parts = []
    for command in COMMANDS:
        module = importlib.import_module(command.module)
        parts.append(f"## `etwmc {command.name}`\n\n{_sentence(command.summary)}\n")
        if command.raw:
            # mc's command line is parsed by the command itself (mc.exe's syntax): its
            # own usage text is the reference.
            parts.append(_console(_help_output([command.name, "-?"])))
            continue
        parser = _RecordingParser(f"etwmc {command.name}")
        module.configure(parser)
        parts.append(_console(parser.format_usage().strip()))
        parts.append(f"{_text(module.DESCRIPTION)}\n")
        parts.append(_arguments_table(parser.recorded))
    return "\n".join(parts)


def _help_output(argv: list[str]) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), _columns(HELP_WIDTH):
        main(argv)
    return out.getvalue().strip()


@contextlib.contextmanager
def _columns(width: int) -> Iterator[None]:
    import os

    saved = os.environ.get("COLUMNS")
    os.environ["COLUMNS"] = str(width)
    try:
        yield
    finally:
        if saved is None:
            del os.environ["COLUMNS"]
        else:
            os.environ["COLUMNS"] = saved


def _arguments_table(recorded: list[tuple[argparse.Action, dict[str, Any]]]) -> str:
    rows = ["| argument | value | default | meaning |", "|---|---|---|---|"]
    for action, given in recorded:
        repeatable = given.get("action") in ("append", "extend")
        cells = [_names(action), _value(action), _default(action, repeatable), _cell(_help(action))]
        rows.append("| " + " | ".join(cells) + " |")
    return "\n".join(rows) + "\n"


def _names(action: argparse.Action) -> str:
    if not action.option_strings:
        name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        return f"`{name}`"
    return ", ".join(f"`{s}`" for s in action.option_strings)


def _value(action: argparse.Action) -> str:
    if action.nargs == 0:
        return ""
    if action.choices is not None:
        choices = ", ".join(f"`{c}`" for c in action.choices)
        return f"{choices} (optional)" if action.nargs == "?" else choices
    if action.option_strings:
        name = action.metavar if isinstance(action.metavar, str) else action.dest.upper()
        return f"`{name}`"
    return {"*": "any number", "+": "one or more", "?": "optional"}.get(str(action.nargs), "")


def _default(action: argparse.Action, repeatable: bool) -> str:
    extra = "repeatable" if repeatable else ""
    value = action.default
    if value in (None, False, [], argparse.SUPPRESS) or action.nargs == 0:
        return extra
    shown = f"`{value}`"
    return f"{shown}; {extra}" if extra else shown


def _help(action: argparse.Action) -> str:
    text = action.help or ""
    if "%(" in text:
        text = text % {**vars(action), "prog": "etwmc"}
    return text


# ----------------------------------------------------------------------------- configuration


def configuration_reference() -> str:
    return _keys_table(KEY_HELP)


def lint_configuration_reference() -> str:
    return _keys_table(LINT_KEY_HELP)


def _keys_table(keys: Mapping[str, KeyHelp]) -> str:
    rows = ["| key | type | default | meaning |", "|---|---|---|---|"]
    for name, help in keys.items():
        rows.append(
            f"| `{name}` | {_cell(help.type)} | {_cell(help.default)} | "
            f"{_cell(_sentence(help.meaning))} |"
        )
    return "\n".join(rows) + "\n"


# ----------------------------------------------------------------------------- rules


def rules_table() -> str:
    rows = ["| code | severity | meaning |", "|---|---|---|"]
    for code in REGISTRY.values():
        rows.append(
            f"| [{code.id}]({code.id}.md) | {code.severity.label} | {_cell(code.summary)}"
            f"{' (retired)' if code.retired else ''} |"
        )
    return "\n".join(rows) + "\n"


def rule_page(code_id: str, written: Traversable | None = None) -> str:
    """The code's page: its explanation from ``written`` (default: the package's
    ``etwmc/rulepages/``) when there is one, else what the registry says of it."""
    folder = written if written is not None else _rule_pages()
    page = folder / f"{code_id}.md" if folder is not None else None
    code = REGISTRY[code_id]
    if page is not None and page.is_file():
        text = page.read_text(encoding="utf-8")
        title, _, body = text.lstrip().partition("\n")
        if not title.startswith("# "):
            return f"# {code.id}: {_text(code.summary)}\n\n{text}"
        # The title is the registry's summary, which may name an element (<maps>).
        return f"{_text(title)}\n{body}"
    return (
        f"# {code.id}: {_text(code.summary)}\n\n"
        f"**Severity:** {code.severity.label}\n\n"
        f"{_text(_sentence(code.summary))}\n\n"
        "## Selecting it\n\n"
        f"`etwmc lint --select {code.id}` reports only this code, and `--ignore {code.id}` "
        "leaves it out (or `select`/`ignore` in the [configuration](../configuration.md)). "
        "In a manifest, a comment silences it at one place (see "
        "[suppressions](../linting.md#suppression-comments)):\n\n"
        f"```xml\n<!-- etwmc: ignore[{code.id}] -->\n```\n\n"
        "[Every code](index.md)\n"
    )


def _rule_pages() -> Traversable | None:
    """The explanations shipped with the package, one ``ETWnnn.md`` per code."""
    try:
        return importlib.resources.files("etwmc.rulepages")
    except ModuleNotFoundError:
        return None


# ----------------------------------------------------------------------------- helpers


def _text(text: str) -> str:
    """Plain text as Markdown shows it: ``<base>`` is a name here, not an HTML tag, and
    ``{...}`` a GUID's braces, not an attribute list.  Code spans stay as written."""
    pieces = text.split("`")
    for i in range(0, len(pieces), 2):  # the even pieces are outside code spans
        pieces[i] = pieces[i].replace("<", "&lt;").replace("{", "\\{").replace("}", "\\}")
    return "`".join(pieces)


def _cell(text: str) -> str:
    """Text safe inside a Markdown table cell."""
    return _text(text).replace("|", "\\|").replace("\n", " ")


def _sentence(text: str) -> str:
    """A summary as a sentence.  A first word that is a file or program name (``mc.exe``)
    keeps its case."""
    text = text.strip()
    first = text.split(" ", 1)[0]
    if "." not in first.rstrip("."):
        text = text[:1].upper() + text[1:]
    return text + ("" if text.endswith((".", "?", "!")) else ".")


def _console(text: str) -> str:
    return f"```text\n{text}\n```\n"


MARKERS: dict[str, Callable[[], str]] = {
    "<!-- etwmc:commands -->": commands_reference,
    "<!-- etwmc:configuration -->": configuration_reference,
    "<!-- etwmc:lint-configuration -->": lint_configuration_reference,
    "<!-- etwmc:rules -->": rules_table,
}
