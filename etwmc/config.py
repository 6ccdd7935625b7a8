"""The project's etwmc configuration, as the command line reads it.

The nearest configuration file, looking from the current folder up to the file
system's root, is used; in one folder ``etwmc.toml`` comes before ``pyproject.toml``:

* ``etwmc.toml``: the keys at its top level;
* ``pyproject.toml``: the ``[tool.etwmc]`` table (the one the setuptools plugin
  reads; a ``pyproject.toml`` without it is passed over).

Compile keys sit at the table's top level, as the build plugins read them
(``wevt-version``, ``legacy-template-ids``, ``python``, ``binaries``,
``resource-dll``, ``c-header``, ``werror``; ``manifests`` and ``package`` are the
plugins' own).  Lint keys sit in a ``lint`` sub-table::

    [tool.etwmc.lint]
    select = ["ETW"]                   # codes or prefixes; default: every code
    ignore = ["ETW483"]
    extend-select = []
    extend-ignore = []
    exclude = ["third_party/"]         # gitignore-style, relative to the file's folder
    per-file-ignores = { "legacy/*.man" = ["ETW2"] }

Command-line flags win over the file: ``--select``/``--ignore`` replace the file's
lists, ``--extend-select``/``--extend-ignore`` add to them.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType

from .selection import Selection, SelectorError, check_selectors

LINT_KEYS = ("select", "ignore", "extend-select", "extend-ignore", "exclude", "per-file-ignores")


class ConfigFileError(ValueError):
    """The configuration file cannot be read or has a wrong value; says where."""


@dataclass(frozen=True, slots=True)
class Config:
    """The project's settings: where they came from, and their compile and lint keys."""

    path: Path | None = None  # the file it came from; None when there is none
    # The compile keys, then the lint keys.
    table: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    lint: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    @property
    def where(self) -> str:
        if self.path is None:
            return "(no configuration file)"
        return f"{self.path} [tool.etwmc]" if self.path.name == "pyproject.toml" else str(self.path)

    def selection(
        self,
        select: Sequence[str] | None = None,
        ignore: Sequence[str] | None = None,
        extend_select: Sequence[str] = (),
        extend_ignore: Sequence[str] = (),
    ) -> Selection:
        """The file's selection with the command line's flags applied over it."""
        where = self.where
        chosen = select if select is not None else self._list("select") or ["ETW"]
        dropped = ignore if ignore is not None else self._list("ignore")
        per_file = self.lint.get("per-file-ignores", {})
        if not isinstance(per_file, Mapping):
            raise ConfigFileError(f"{where}: lint.per-file-ignores must be a table")
        return Selection(
            select=check_selectors([*chosen, *self._list("extend-select"), *extend_select], where),
            ignore=check_selectors([*dropped, *self._list("extend-ignore"), *extend_ignore], where),
            per_file_ignores={
                str(k): check_selectors(_strings(v, f"{where}: per-file-ignores"), where)
                for k, v in per_file.items()
            },
            root=str(self.root),
        )

    def exclude(self) -> tuple[str, ...]:
        return tuple(self._list("exclude"))

    def _list(self, key: str) -> list[str]:
        return _strings(self.lint.get(key, []), f"{self.where}: lint.{key}")


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ConfigFileError(f"{where} must be a list of strings")
    return list(value)


def find_config(start: Path | None = None) -> Config:
    """The nearest configuration from ``start`` (default: the current folder) up."""
    folder = (start or Path.cwd()).resolve()
    for d in (folder, *folder.parents):
        own = d / "etwmc.toml"
        if own.is_file():
            return _load(own, _read(own))
        project = d / "pyproject.toml"
        if project.is_file() and _mentions_etwmc(project):
            tool = _read(project).get("tool", {})
            table = tool.get("etwmc") if isinstance(tool, dict) else None
            if isinstance(table, dict):
                return _load(project, table)
    return Config()


def _mentions_etwmc(path: Path) -> bool:
    """Whether a pyproject.toml can hold an etwmc table at all: most don't, and parsing
    one costs more than the check."""
    try:
        return b"etwmc" in path.read_bytes()
    except OSError:
        return True  # let the reader report it


def _read(path: Path) -> dict[str, object]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (OSError, tomllib.TOMLDecodeError) as e:
        raise ConfigFileError(f"{path}: cannot be read: {e}") from None


def _load(path: Path, table: Mapping[str, object]) -> Config:
    t = {str(k).replace("_", "-"): v for k, v in table.items()}
    lint = t.pop("lint", {})
    if not isinstance(lint, dict):
        raise ConfigFileError(f"{path}: 'lint' must be a table")
    lint = {str(k).replace("_", "-"): v for k, v in lint.items()}
    unknown = sorted(k for k in lint if k not in LINT_KEYS)
    if unknown:
        raise ConfigFileError(
            f"{path}: unknown lint key(s) {', '.join(unknown)}; known: {', '.join(LINT_KEYS)}"
        )
    config = Config(path, t, lint)
    try:
        config.selection()  # report a wrong selector when the file is read, not later
    except SelectorError as e:
        raise ConfigFileError(str(e)) from None
    return config


def show(config: Config, effective: Mapping[str, object]) -> str:
    """``--show-config``: where the configuration came from and every value in force."""
    lines = [f"# configuration: {config.where}"]
    for key, value in effective.items():
        lines.append(f"{key} = {_toml(value)}")
    return "\n".join(lines) + "\n"


def _toml(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, Mapping):
        return "{ " + ", ".join(f"{_toml(str(k))} = {_toml(v)}" for k, v in value.items()) + " }"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    return _toml(str(value))
