"""The project's etwmc configuration: one model for the command line and the build plugins.

Where it is read from:

* ``etwmc.toml``: the keys at its top level;
* ``pyproject.toml``: the ``[tool.etwmc]`` table and, in a hatchling project, the build
  hook's table ``[tool.hatch.build.hooks.etwmc]``.  The two are read as one: a key may be
  written in either, not in both.

The command line uses the nearest of these files, looking from the current folder up to
the file system's root (in one folder ``etwmc.toml`` comes before ``pyproject.toml``, and
a ``pyproject.toml`` without either table is passed over); ``--config FILE`` names one
and ``--isolated`` reads none.  The build plugins read the project's ``pyproject.toml``.

Every key is listed in :data:`KEY_HELP` and :data:`LINT_KEY_HELP` with its type, default and
meaning (the documentation's configuration reference is generated from them).  A key
that is not there is an error with a did-you-mean, at the top level as in the ``lint``
table, as ruff reports its own.  Keys are spelled with ``-``; ``_`` is accepted too.
Paths (``manifests``, ``lint.exclude``, ``lint.per-file-ignores``) are relative to the
configuration file's folder, wherever the command runs.

Command-line flags win over the file: ``--select``/``--ignore`` replace the file's
lists, ``--extend-select``/``--extend-ignore`` add to them.
"""

from __future__ import annotations

import difflib
import re
import tomllib
from collections.abc import Mapping, Sequence
from pathlib import Path, PurePosixPath
from types import MappingProxyType
from typing import Final

from .options import KEYS as COMPILE_KEYS
from .options import CompileOptions, OptionsError, options_from_table
from .record import Record, field
from .selection import Selection, SelectorError, check_selectors


class KeyHelp(Record):
    """What the configuration reference says of a key."""

    type: str
    default: str
    meaning: str


# Every key of the top level ([tool.etwmc], etwmc.toml, the hatchling hook's table),
# in the order the reference lists them.
KEY_HELP: Final[Mapping[str, KeyHelp]] = MappingProxyType(
    {
        "manifests": KeyHelp(
            "string or list of strings",
            "none",
            "glob patterns of the project's manifests, relative to the configuration file's "
            "folder; each must match a file. The build plugins compile them; required there",
        ),
        "package": KeyHelp(
            "string",
            "none",
            "the dotted package the outputs go into (`acme._etw`); in the source tree that is "
            "`src/acme/_etw` or `acme/_etw`. Required by the build plugins",
        ),
        "wevt-version": KeyHelp(
            "integer: 3 or 5",
            "5 (3 with `legacy-template-ids`)",
            "the WEVT_TEMPLATE layout: 5 as mc 10.0.16299 and later write it, 3 as earlier mc",
        ),
        "legacy-template-ids": KeyHelp(
            "boolean",
            "false",
            "give templates mc 8.1's MD5-based ids, to reproduce a blob built by the Windows 8.1 "
            "SDK byte for byte (mc 8.1 wrote layout 3, so `wevt-version = 5` is refused with it)",
        ),
        "python": KeyHelp("boolean", "true", "write the Python provider modules"),
        "binaries": KeyHelp(
            "boolean",
            "true",
            "write `<base>TEMP.BIN`, the message tables and the `.rc`",
        ),
        "resource-dll": KeyHelp(
            "boolean",
            "false",
            "also write the resource-only DLL named by the manifest's `resourceFileName`",
        ),
        "c-header": KeyHelp(
            'boolean, "um" or "km"',
            "false",
            'also write `<base>.h`, the C/C++ header `mc -um` writes (`true` or `"um"`), or '
            '`mc -km`\'s (`"km"`)',
        ),
        "werror": KeyHelp(
            "boolean", "false", "warnings fail too: in `etwmc lint`, `etwmc compile` and builds"
        ),
        "version-comment": KeyHelp(
            "boolean",
            "true",
            "name etwmc's version in the first line of each generated module; `false` keeps "
            "committed modules current across an upgrade of etwmc that changes nothing else "
            "(`etwmc compile --no-version-comment`)",
        ),
        "lint": KeyHelp("table", "empty", "the settings of `etwmc lint` (below)"),
    }
)

# The keys of the ``lint`` table.
LINT_KEY_HELP: Final[Mapping[str, KeyHelp]] = MappingProxyType(
    {
        "select": KeyHelp(
            "list of codes or prefixes",
            '["ETW"] (every code)',
            "the codes reported (`ETW401`, or a prefix: `ETW4`, `ETW`)",
        ),
        "ignore": KeyHelp("list of codes or prefixes", "[]", "codes not reported"),
        "extend-select": KeyHelp(
            "list of codes or prefixes", "[]", "codes reported in addition to `select`"
        ),
        "extend-ignore": KeyHelp(
            "list of codes or prefixes", "[]", "codes left out in addition to `ignore`"
        ),
        "exclude": KeyHelp(
            "list of patterns",
            "[]",
            "files and folders skipped when folders are searched (gitignore syntax, relative "
            "to the configuration file's folder)",
        ),
        "per-file-ignores": KeyHelp(
            "table of pattern = list of codes",
            "{}",
            "codes not reported in the files a pattern matches (gitignore syntax, relative to "
            "the configuration file's folder)",
        ),
    }
)

# Keys hatchling reads from every build hook's table; they are not etwmc's to check.
HATCH_HOOK_KEYS: Final = frozenset(
    {
        "enable-by-default",
        "require-runtime-dependencies",
        "require-runtime-features",
        "dependencies",
    }
)
OWN_TABLE: Final = "[tool.etwmc]"
HATCH_TABLE: Final = "[tool.hatch.build.hooks.etwmc]"

_PACKAGE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*\Z")


class ConfigFileError(ValueError):
    """The configuration cannot be read or has a wrong key or value; says where."""


class Config(Record):
    """One project's settings, as read from one file (``path``; None when there is none)."""

    path: Path | None = None
    table: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))  # compile
    lint: Mapping[str, object] = field(default_factory=lambda: MappingProxyType({}))
    manifests: tuple[str, ...] = ()  # glob patterns, relative to root
    package: str | None = None
    source: str = ""  # the table(s) read, as the messages name them

    @property
    def root(self) -> Path:
        return self.path.parent if self.path is not None else Path.cwd()

    @property
    def where(self) -> str:
        return _where(self.path, self.source)

    def options(self) -> CompileOptions:
        """The compile options the configuration sets (the defaults for the others)."""
        try:
            return options_from_table(self.table, self.where)
        except OptionsError as e:
            raise ConfigFileError(str(e)) from None

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

    def outputs(self) -> dict[Path, Path]:
        """The project's manifests (``manifests``, matched from :attr:`root`), each with
        the folder its outputs go to: ``package``'s folder in the source tree, where the
        build plugins write them in an editable install and where committed outputs
        live.  Empty when the configuration names no manifest."""
        if not self.manifests:
            return {}
        if self.package is None:
            raise ConfigFileError(
                f"{self.where}: 'manifests' needs 'package', the package the outputs go into"
            )
        target = source_package_dir(self.root, self.package)
        return {self.root / m: target for m in find_manifests(self.root, self.manifests)}

    def _list(self, key: str) -> list[str]:
        return _strings(self.lint.get(key, []), f"{self.where}: lint.{key}")


def _where(path: Path | None, source: str) -> str:
    if path is None:
        return source or "(no configuration file)"
    return f"{path} {source}" if source else str(path)


def _strings(value: object, where: str) -> list[str]:
    if isinstance(value, str):
        return [value]
    if not isinstance(value, list) or not all(isinstance(x, str) for x in value):
        raise ConfigFileError(f"{where} must be a list of strings")
    return list(value)


# ----------------------------------------------------------------------------- finding


def find_config(start: Path | None = None) -> Config:
    """The nearest configuration from ``start`` (default: the current folder) up."""
    folder = (start or Path.cwd()).resolve()
    for d in (folder, *folder.parents):
        own = d / "etwmc.toml"
        if own.is_file():
            return _from_etwmc_toml(own)
        project = d / "pyproject.toml"
        if project.is_file() and _mentions_etwmc(project):
            config = read_pyproject(project)
            if config is not None:
                return config
    return Config()


def load_config(path: Path) -> Config:
    """The configuration in the file ``--config`` names: a ``pyproject.toml`` (its
    etwmc tables, which it must have) or any other name, read as ``etwmc.toml`` is."""
    path = path.resolve()
    if path.name != "pyproject.toml":
        return _from_etwmc_toml(path)
    config = read_pyproject(path)
    if config is None:
        raise ConfigFileError(f"{path}: has no {OWN_TABLE} or {HATCH_TABLE} table")
    return config


def read_pyproject(path: Path, hook: Mapping[str, object] | None = None) -> Config | None:
    """The etwmc configuration of a ``pyproject.toml``, or None when it has none.

    ``hook`` is the hatchling hook's table as hatchling hands it to the hook (it may come
    from ``hatch.toml``); it stands for the file's ``[tool.hatch.build.hooks.etwmc]``."""
    data = _read(path) if path.is_file() else {}
    tool = data.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    own = tool.get("etwmc")
    if own is not None and not isinstance(own, dict):
        raise ConfigFileError(f"{path}: {OWN_TABLE} must be a table")
    if hook is None:
        hook = _hatch_hook_table(tool, path)
    if own is None and hook is None:
        return None
    own_keys = _normal(own or {}, f"{path} {OWN_TABLE}", KEY_HELP)
    hook_keys = _normal(hook or {}, f"{path} {HATCH_TABLE}", KEY_HELP, ignored=HATCH_HOOK_KEYS)
    if "lint" in hook_keys:
        raise ConfigFileError(
            f"{path}: the lint settings go in [tool.etwmc.lint], not in {HATCH_TABLE}"
        )
    twice = sorted(set(own_keys) & set(hook_keys))
    if twice:
        raise ConfigFileError(
            f"{path}: {', '.join(repr(k) for k in twice)} set in both {OWN_TABLE} and "
            f"{HATCH_TABLE}; keep one"
        )
    source = ", ".join(
        name for name, table in ((OWN_TABLE, own), (HATCH_TABLE, hook)) if table is not None
    )
    return _build(path, {**own_keys, **hook_keys}, source)


def _hatch_hook_table(tool: Mapping[str, object], path: Path) -> Mapping[str, object] | None:
    table: object = tool
    for name in ("hatch", "build", "hooks", "etwmc"):
        if not isinstance(table, Mapping) or name not in table:
            return None
        table = table[name]
    if not isinstance(table, Mapping):
        raise ConfigFileError(f"{path}: {HATCH_TABLE} must be a table")
    return table


def from_table(
    table: Mapping[str, object], where: str, *, ignored: frozenset[str] = frozenset()
) -> Config:
    """A configuration from a table given whole (a build hook's), without a file;
    ``where`` names it in messages."""
    return _build(None, _normal(table, where, KEY_HELP, ignored=ignored), where)


def _from_etwmc_toml(path: Path) -> Config:
    return _build(path, _normal(_read(path), str(path), KEY_HELP), "")


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


# ----------------------------------------------------------------------------- checking


def _normal(
    table: Mapping[str, object],
    where: str,
    known: Mapping[str, object],
    *,
    ignored: frozenset[str] = frozenset(),
) -> dict[str, object]:
    """The table with its keys spelled with ``-``; an unknown key is an error."""
    t = {str(k).replace("_", "-"): v for k, v in table.items()}
    unknown = [k for k in t if k not in known and k not in ignored]
    if unknown:
        raise ConfigFileError(f"{where}: {unknown_keys(unknown, known)}")
    return {k: v for k, v in t.items() if k not in ignored}


def unknown_keys(unknown: Sequence[str], known: Sequence[str] | Mapping[str, object]) -> str:
    """``unknown key 'werorr' (did you mean 'werror'?)``, for each key, then the known ones."""
    parts = []
    for key in unknown:
        close = difflib.get_close_matches(key, list(known), n=1, cutoff=0.6)
        parts.append(f"'{key}'" + (f" (did you mean '{close[0]}'?)" if close else ""))
    noun = "key" if len(unknown) == 1 else "keys"
    return f"unknown {noun} {', '.join(parts)}; the keys are: {', '.join(known)}"


def _build(path: Path | None, t: Mapping[str, object], source: str) -> Config:
    where = _where(path, source)
    lint = t.get("lint", {})
    if not isinstance(lint, Mapping):
        raise ConfigFileError(f"{where}: 'lint' must be a table")
    if OWN_TABLE in source:
        lint_where = f"{path} [tool.etwmc.lint]"
    else:
        lint_where = f"{where} [lint]"
    config = Config(
        path,
        MappingProxyType({k: v for k, v in t.items() if k in COMPILE_KEYS}),
        MappingProxyType(_normal(lint, lint_where, LINT_KEY_HELP)),
        _manifests(t.get("manifests"), where),
        _package(t.get("package"), where),
        source,
    )
    # Report a wrong value when the file is read, not when a command needs it.
    config.options()
    try:
        config.selection()
    except SelectorError as e:
        raise ConfigFileError(str(e)) from None
    return config


def _manifests(value: object, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items or not all(isinstance(x, str) and x for x in items):
        raise ConfigFileError(f"{where}: 'manifests' must be a glob pattern or a list of them")
    return tuple(items)


def _package(value: object, where: str) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not _PACKAGE.match(value):
        raise ConfigFileError(
            f"{where}: 'package' must be a dotted package name such as 'acme._etw'"
        )
    return value


# ----------------------------------------------------------------------------- paths


def find_manifests(root: Path, patterns: Sequence[str]) -> list[Path]:
    """The manifests the patterns match, relative to ``root``, sorted and unique."""
    found: list[Path] = []
    for pattern in patterns:
        if Path(pattern).is_absolute() or ".." in PurePosixPath(pattern).parts:
            raise ConfigFileError(f"manifest pattern '{pattern}' must stay inside the project")
        hits = sorted(p.relative_to(root) for p in root.glob(pattern) if p.is_file())
        if not hits:
            raise ConfigFileError(
                f"manifest pattern '{pattern}' matches no file under {root.name}/"
            )
        found.extend(h for h in hits if h not in found)
    return sorted(found)


def source_package_dir(root: Path, package: str) -> Path:
    """Where the package lives in the source tree (``src`` layout or flat)."""
    parts = package.split(".")
    for base in (root / "src", root):
        if (base / parts[0]).is_dir():
            return base.joinpath(*parts)
    base = root / "src" if (root / "src").is_dir() else root
    return base.joinpath(*parts)


# ----------------------------------------------------------------------------- showing


def show(config: Config, effective: Mapping[str, object]) -> str:
    """``--show-config``: where the configuration came from, the project's manifests and
    package when it names them, and every value in force."""
    lines = [f"# configuration: {config.where}"]
    if config.manifests:
        lines.append(f"manifests = {_toml(list(config.manifests))}")
    if config.package is not None:
        lines.append(f"package = {_toml(config.package)}")
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
