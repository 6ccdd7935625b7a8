"""The setuptools plugin (``[tool.etwmc]`` in ``pyproject.toml``).

setuptools calls :func:`finalize_distribution_options` for *every* project it builds
while etwmc is installed, so it does nothing unless the project's ``pyproject.toml``
has a ``[tool.etwmc]`` table.  When it has one, the function adds the ``build_etwmc``
command to ``build``'s sub-commands; ``pip install .``, ``python -m build`` and
``pip install -e .`` then compile the manifests (keys: see :mod:`etwmc.buildhooks`).

``build_etwmc`` follows setuptools' SubCommand protocol: a regular build writes the
outputs into ``build_lib`` under the package's path; an editable build writes them in
place into the package's source folder and maps them in
:meth:`BuildEtwmc.get_output_mapping`.  The manifests are its source files, so an
sdist carries them.

Errors surface as setuptools errors, which setuptools prints as one ``error: ...``
report (the diagnostics) and exits 1.

setuptools cannot learn a new requirement this late, so a project lists ``etwmc``
(the runtime the generated modules import) in its own ``dependencies``.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from setuptools import Command  # type: ignore[import-untyped]
from setuptools.errors import BaseError, SetupError  # type: ignore[import-untyped]

from ..config import OWN_TABLE, Config, find_manifests, read_pyproject
from . import BuildFailed, ConfigError, Options, generate, options_from_config

COMMAND = "build_etwmc"
_ATTR = "_etwmc_options"


def _read_config(root: Path) -> Config | None:
    """The project's configuration when its pyproject.toml has a [tool.etwmc] table."""
    try:
        project = read_pyproject(root / "pyproject.toml")
    except ConfigError as e:
        raise SetupError(f"etwmc: {e}") from None
    return project if project is not None and OWN_TABLE in project.source else None


def finalize_distribution_options(dist: Any) -> None:
    """Entry point (``setuptools.finalize_distribution_options``): wire ``build_etwmc``
    in when the project configures etwmc; otherwise leave the build untouched."""
    root = Path(getattr(dist, "src_root", None) or os.getcwd())
    project = _read_config(root)
    if project is None:
        return
    try:
        options = options_from_config(project)
    except ConfigError as e:
        raise SetupError(f"etwmc: {e}") from None
    setattr(dist, _ATTR, (root, options))
    dist.cmdclass.setdefault(COMMAND, BuildEtwmc)
    build = dist.get_command_class("build")
    if not any(name == COMMAND for name, _ in build.sub_commands):
        build.sub_commands = [*build.sub_commands, (COMMAND, _configured)]


def _configured(cmd: Command) -> bool:
    # The sub-command list lives on a class shared by every project built in this
    # process; only projects with [tool.etwmc] run the command.
    return hasattr(cmd.distribution, _ATTR)


class BuildEtwmc(Command):  # type: ignore[misc]  # setuptools ships no type information
    """Compile the instrumentation manifests named in ``[tool.etwmc]``."""

    description = "compile ETW instrumentation manifests with etwmc"
    user_options: list[tuple[str, str | None, str]] = []

    def initialize_options(self) -> None:
        self.build_lib: str | None = None
        self.editable_mode = False
        self._written: dict[str, Path] | None = None

    def finalize_options(self) -> None:
        self.set_undefined_options("build_py", ("build_lib", "build_lib"))

    def _config(self) -> tuple[Path, Options]:
        config: tuple[Path, Options] | None = getattr(self.distribution, _ATTR, None)
        if config is None:  # run by hand in a project without [tool.etwmc]
            root = Path(os.getcwd())
            project = _read_config(root)
            if project is None:
                raise SetupError("etwmc: pyproject.toml has no [tool.etwmc] table")
            try:
                config = (root, options_from_config(project))
            except ConfigError as e:
                raise SetupError(f"etwmc: {e}") from None
        return config

    def _generate(self, out_dir: Path | None) -> dict[str, Path]:
        root, options = self._config()
        try:
            return generate(root, options, out_dir=out_dir).files
        except BuildFailed as e:
            raise BaseError("etwmc: the manifests have errors\n" + e.report) from None
        except ConfigError as e:
            raise SetupError(f"etwmc: {e}") from None

    def run(self) -> None:
        out = None if self.editable_mode else Path(self.build_lib or "build/lib")
        self._written = self._generate(out)
        where = "in place" if self.editable_mode else str(out)
        self.announce(f"etwmc: generated {len(self._written)} file(s) {where}", level=2)

    def _planned(self) -> dict[str, Path]:
        if self._written is None:
            # get_* must answer without run(): generate into a scratch folder to learn
            # the file names.
            with tempfile.TemporaryDirectory(prefix="etwmc-plan-") as scratch:
                return {k: Path(k) for k in self._generate(Path(scratch))}
        return self._written

    def get_outputs(self) -> list[str]:
        lib = self.build_lib or "build/lib"
        return [os.path.join(lib, *dest.split("/")) for dest in sorted(self._planned())]

    def get_output_mapping(self) -> dict[str, str]:
        if not self.editable_mode or self._written is None:
            return {}
        root, _ = self._config()
        lib = self.build_lib or "build/lib"
        return {
            os.path.join(lib, *dest.split("/")): str(src.relative_to(root))
            for dest, src in sorted(self._written.items())
        }

    def get_source_files(self) -> list[str]:
        root, options = self._config()
        try:
            return [p.as_posix() for p in find_manifests(root, options.manifests)]
        except ConfigError:
            return []
