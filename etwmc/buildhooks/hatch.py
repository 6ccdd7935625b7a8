"""The hatchling build hook (``[tool.hatch.build.hooks.etwmc]``).

Registered through the ``hatch`` entry point group, so a project only needs
``etwmc[compiler]`` in ``build-system.requires`` and the table::

    [tool.hatch.build.hooks.etwmc]
    manifests = ["src/acme/*.man"]
    package = "acme._etw"

See :mod:`etwmc.buildhooks` for every key.  The hook acts on the ``wheel`` target only
(an sdist ships the manifests themselves).  A regular wheel gets the outputs through
``force_include`` from a scratch folder that :meth:`finalize` removes; an editable
wheel has them generated in place (see :mod:`etwmc.buildhooks`).  When the generated
modules are part of the wheel and the project does not depend on etwmc already, the
hook adds ``etwmc>=<this version>`` to the wheel's requirements, because the modules
import :mod:`etwmc.runtime`.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.config import BuilderConfig
from hatchling.builders.hooks.plugin.interface import BuildHookInterface
from hatchling.plugin import hookimpl

from ..config import read_pyproject
from ..diagnostics import Severity
from . import BuildFailed, ConfigError, Options, generate, options_from_config, runtime_requirement


class EtwmcBuildHook(BuildHookInterface[BuilderConfig]):
    PLUGIN_NAME = "etwmc"

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._scratch: str | None = None

    def _options(self) -> Options:
        # The hook's table as hatchling hands it over, read with the rest of the
        # project's configuration ([tool.etwmc]) as one.
        try:
            project = read_pyproject(Path(self.root) / "pyproject.toml", hook=self.config)
            assert project is not None  # a hook table is given
            return options_from_config(project)
        except ConfigError as e:
            self.app.abort(f"etwmc: {e}")
            raise  # abort exits; this keeps type checkers informed

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        opts = self._options()
        root = Path(self.root)
        editable = version == "editable"
        if not editable:
            self._scratch = tempfile.mkdtemp(prefix="etwmc-build-")
        try:
            generated = generate(
                root, opts, out_dir=None if editable else Path(self._scratch or "")
            )
        except (BuildFailed, ConfigError) as e:
            self._remove_scratch()
            report = e.report if isinstance(e, BuildFailed) else str(e)
            self.app.display_error(report.rstrip("\n"))
            why = "the manifests have errors" if isinstance(e, BuildFailed) else str(e)
            self.app.abort(f"etwmc: the wheel was not built: {why}")
            return
        for d in generated.diagnostics:
            line = f"{d.span}: {d.severity.label} {d.code}: {d.message}"
            if d.severity == Severity.WARNING:
                self.app.display_warning(line)
            else:
                self.app.display_info(line)
        if editable:
            self.app.display_info(
                f"etwmc: generated {len(generated.files)} file(s) in place for {opts.package}"
            )
        else:
            force = build_data.setdefault("force_include", {})
            for dest, src in generated.files.items():
                force[str(src)] = dest
        if opts.python:
            req = runtime_requirement(list(self.metadata.core.dependencies))
            if req is not None:
                build_data.setdefault("dependencies", []).append(req)

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        self._remove_scratch()

    def _remove_scratch(self) -> None:
        if self._scratch is not None:
            shutil.rmtree(self._scratch, ignore_errors=True)
            self._scratch = None


@hookimpl
def hatch_register_build_hook() -> type[EtwmcBuildHook]:
    return EtwmcBuildHook
