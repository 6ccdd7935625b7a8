"""The build plugins: the example packages built into wheels through hatchling's and
setuptools' real PEP 517 backends (no network, no build isolation), unpacked,
imported and run; editable builds; manifest errors that fail the build; the
configuration; the pre-commit hooks and ``etwmc compile --check``."""

from __future__ import annotations

import importlib.machinery
import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

from conftest import slow
from etwmc import __version__
from etwmc.buildhooks import (
    BuildFailed,
    ConfigError,
    Options,
    find_manifests,
    generate,
    parse_options,
    runtime_requirement,
    source_package_dir,
)

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = ROOT / "examples"


# --------------------------------------------------------------------------- harness


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    """A PYTHONPATH under which etwmc's entry points are visible, as if it were installed.

    The entry points are read from pyproject.toml, so the test also checks what the
    project declares.
    """
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    site = tmp_path_factory.mktemp("site")
    info = site / f"etwmc-{__version__}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: etwmc\nVersion: {__version__}\n", encoding="utf-8"
    )
    lines = []
    for group, entries in sorted(meta["entry-points"].items()):
        lines.append(f"[{group}]")
        lines += [f"{name} = {target}" for name, target in sorted(entries.items())]
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return os.pathsep.join([str(site), str(ROOT)])


def _env(pythonpath: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTHON", "HATCH_", "PIP_"))}
    env["PYTHONPATH"] = pythonpath
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env["SOURCE_DATE_EPOCH"] = "1700000000"
    return env


def _backend(
    project: Path, backend: str, hook: str, plugin_path: str
) -> subprocess.CompletedProcess[str]:
    """Call a PEP 517 hook the way a frontend without build isolation does."""
    code = f"import {backend} as b, sys; print('WHEEL=' + b.{hook}('dist'))"
    return subprocess.run(
        [sys.executable, "-c", code],
        cwd=project,
        env=_env(plugin_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


def _wheel(proc: subprocess.CompletedProcess[str], project: Path) -> Path:
    assert proc.returncode == 0, proc.stdout + proc.stderr
    name = re.findall(r"^WHEEL=(.+)$", proc.stdout, re.M)[-1]
    return project / "dist" / name


def _has_module(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def _copy_example(name: str, tmp_path: Path) -> Path:
    dest = tmp_path / name
    shutil.copytree(EXAMPLES / name, dest, ignore=shutil.ignore_patterns("dist", "build", "_etw"))
    return dest


def _run_python(code: str, pythonpath: str) -> dict[str, object]:
    proc = subprocess.run(
        [sys.executable, "-c", code],
        env=_env(pythonpath),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result: dict[str, object] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


# Imports the example package, captures its events with an in-process session and
# reports what it found.
_USE = """
import json, sys
import {pkg}
from etwmc.runtime.backends.inproc import InProcBackend
backend = InProcBackend()
session = backend.session("test")
session.enable({pkg}.events.{cls}.GUID)
{pkg}.events.register(backend)
{pkg}.spin(1200, label="t")
events = [(e.id, e.opcode, len(e.user_data)) for e in session.events()]
print(json.dumps({{"module": {pkg}.events.__file__, "events": events}}))
"""


def _check_used(result: dict[str, object], where: Path) -> None:
    assert Path(str(result["module"])).is_relative_to(where)
    # SpinStarted (Start, payload: u32 + u8 + "t\\0" in UTF-16) then SpinStopped (Stop).
    assert result["events"] == [[1, 1, 4 + 1 + 4], [2, 2, 0]]


# --------------------------------------------------------------------------- hatchling


@pytest.fixture(scope="module")
def hatch_wheel(tmp_path_factory: pytest.TempPathFactory, plugin_path: str) -> tuple[Path, Path]:
    """examples/hatch-package, copied and built into a wheel once: (project, wheel), read
    only."""
    project = _copy_example("hatch-package", tmp_path_factory.mktemp("hatch"))
    wheel = _wheel(_backend(project, "hatchling.build", "build_wheel", plugin_path), project)
    return project, wheel


@slow
def test_hatch_wheel_holds_module_and_binaries(
    tmp_path: Path, plugin_path: str, hatch_wheel: tuple[Path, Path]
) -> None:
    project, wheel = hatch_wheel
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        meta = z.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
        z.extractall(tmp_path / "unpacked")
    etw = "acme_widget/_etw/"
    expected = {"__init__.py", "widget.py", "widgetTEMP.BIN", "widget_MSG00001.bin", "widget.rc"}
    expected.add("acme_widget_events.dll")
    assert {n[len(etw) :] for n in names if n.startswith(etw)} == expected
    assert "Requires-Dist: etwmc" in meta
    # The source tree stays clean: regular builds generate into a scratch folder.
    assert not (project / "src" / "acme_widget" / "_etw").exists()

    unpacked = tmp_path / "unpacked"
    from etwmc.compile import compile_manifest

    planned = compile_manifest(project / "src" / "acme_widget" / "widget.man").files
    for name in ("widgetTEMP.BIN", "widget_MSG00001.bin", "widget.rc"):
        assert (unpacked / etw / name).read_bytes() == planned[name]

    pefile = pytest.importorskip("pefile")
    pe = pefile.PE(str(unpacked / etw / "acme_widget_events.dll"))
    blobs = {}
    for t in pe.DIRECTORY_ENTRY_RESOURCE.entries:
        leaf = t.directory.entries[0].directory.entries[0].data.struct
        blobs[str(t.name) if t.name else t.id] = pe.get_data(leaf.OffsetToData, leaf.Size)
    assert blobs == {"WEVT_TEMPLATE": planned["widgetTEMP.BIN"], 11: planned["widget_MSG00001.bin"]}

    result = _run_python(
        _USE.format(pkg="acme_widget", cls="ACME_WIDGET"),
        os.pathsep.join([str(unpacked), str(ROOT)]),
    )
    _check_used(result, unpacked)
    files = _run_python(
        "import acme_widget, json; print(json.dumps(acme_widget.metadata_files()))",
        os.pathsep.join([str(unpacked), str(ROOT)]),
    )
    assert files == sorted(expected - {"__init__.py", "widget.py"})


@slow
def test_hatch_wheel_is_reproducible(
    tmp_path: Path, plugin_path: str, hatch_wheel: tuple[Path, Path]
) -> None:
    _, w1 = hatch_wheel  # built from a copy in another folder
    second = _copy_example("hatch-package", tmp_path / "b")
    w2 = _wheel(_backend(second, "hatchling.build", "build_wheel", plugin_path), second)
    assert w1.read_bytes() == w2.read_bytes()


def _assert_byte_compiled(folder: Path, modules: set[str]) -> None:
    """Each module has bytecode beside it that the import system takes as it is: a
    loader that cannot compile still gets the module's code."""

    class NoCompiling(importlib.machinery.SourceFileLoader):
        def source_to_code(self, data, path, *, _optimize=-1):  # type: ignore[no-untyped-def, override]
            raise AssertionError(f"{path} was compiled: its bytecode was not used")

    cached = {p.name for p in (folder / "__pycache__").iterdir()}
    assert cached == {f"{m}.{sys.implementation.cache_tag}.pyc" for m in modules}
    for m in modules:
        loader = NoCompiling(m, str(folder / f"{m}.py"))
        assert loader.get_code(m) is not None


def test_hatch_editable_generates_in_place(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("hatch-package", tmp_path)
    wheel = _wheel(_backend(project, "hatchling.build", "build_editable", plugin_path), project)
    assert wheel.exists()
    generated = project / "src" / "acme_widget" / "_etw"
    assert (generated / "widget.py").is_file() and (generated / "widgetTEMP.BIN").is_file()
    _assert_byte_compiled(generated, {"widget", "__init__"})
    # What the editable install's .pth puts on sys.path: the source folder.
    result = _run_python(
        _USE.format(pkg="acme_widget", cls="ACME_WIDGET"),
        os.pathsep.join([str(project / "src"), str(ROOT)]),
    )
    _check_used(result, project / "src")


def test_hatch_sdist_ships_the_manifest_not_outputs(tmp_path: Path, plugin_path: str) -> None:
    import tarfile

    project = _copy_example("hatch-package", tmp_path)
    proc = _backend(project, "hatchling.build", "build_sdist", plugin_path)
    sdist = _wheel(proc, project)
    with tarfile.open(sdist) as t:
        names = t.getnames()
    assert any(n.endswith("src/acme_widget/widget.man") for n in names)
    assert not any("_etw" in n for n in names)


BROKEN = ('template="T_Spin"', 'template="T_Missing"')


def test_hatch_manifest_error_fails_the_build_with_the_diagnostic(
    tmp_path: Path, plugin_path: str
) -> None:
    project = _copy_example("hatch-package", tmp_path)
    man = project / "src" / "acme_widget" / "widget.man"
    man.write_text(man.read_text(encoding="utf-8").replace(*BROKEN), encoding="utf-8")
    proc = _backend(project, "hatchling.build", "build_wheel", plugin_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert re.search(r"src/acme_widget/widget\.man:\d+(:\d+)?: error ETW\d{3}: .*T_Missing", out)
    assert "Traceback" not in out
    assert not (project / "dist").exists() or not list((project / "dist").glob("*.whl"))


def test_hatch_bad_configuration_is_one_message(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("hatch-package", tmp_path)
    cfg = project / "pyproject.toml"
    cfg.write_text(cfg.read_text().replace('package = "acme_widget._etw"', 'package = "1bad"'))
    proc = _backend(project, "hatchling.build", "build_wheel", plugin_path)
    assert proc.returncode != 0
    assert "'package' must be a dotted package name" in proc.stdout + proc.stderr
    assert "Traceback" not in proc.stdout + proc.stderr


# --------------------------------------------------------------------------- setuptools

# setuptools before 70.1 builds wheels only with the `wheel` package installed; the
# `build` command (what bdist_wheel and pip run first) needs nothing more.
needs_wheel = pytest.mark.skipif(
    not _has_module("wheel"), reason="the 'wheel' package is not installed"
)


def _setup(project: Path, *args: str, plugin_path: str) -> subprocess.CompletedProcess[str]:
    """``setup.py <args>`` for a project configured by pyproject.toml alone."""
    return subprocess.run(
        [sys.executable, "-c", "import setuptools; setuptools.setup()", *args],
        cwd=project,
        env=_env(plugin_path),
        capture_output=True,
        text=True,
        timeout=120,
    )


GADGET_FILES = {"__init__.py", "gadget.py", "gadgetTEMP.BIN", "gadget_MSG00001.bin", "gadget.rc"}


def test_setuptools_build_compiles_manifests(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("setuptools-package", tmp_path)
    lib = tmp_path / "lib"
    proc = _setup(project, "build", "--build-lib", str(lib), plugin_path=plugin_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert {p.name for p in (lib / "acme_gadget" / "_etw").iterdir()} == GADGET_FILES
    assert not (project / "src" / "acme_gadget" / "_etw").exists()
    result = _run_python(
        _USE.format(pkg="acme_gadget", cls="ACME_GADGET"), os.pathsep.join([str(lib), str(ROOT)])
    )
    _check_used(result, lib)


@slow
@needs_wheel
def test_setuptools_wheel_holds_module_and_binaries(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("setuptools-package", tmp_path)
    proc = _backend(project, "setuptools.build_meta", "build_wheel", plugin_path)
    wheel = _wheel(proc, project)
    with zipfile.ZipFile(wheel) as z:
        names = set(z.namelist())
        z.extractall(tmp_path / "unpacked")
    etw = "acme_gadget/_etw/"
    assert {n[len(etw) :] for n in names if n.startswith(etw)} == GADGET_FILES
    result = _run_python(
        _USE.format(pkg="acme_gadget", cls="ACME_GADGET"),
        os.pathsep.join([str(tmp_path / "unpacked"), str(ROOT)]),
    )
    _check_used(result, tmp_path / "unpacked")


@slow
@needs_wheel
def test_setuptools_editable_wheel_generates_in_place(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("setuptools-package", tmp_path)
    proc = _backend(project, "setuptools.build_meta", "build_editable", plugin_path)
    assert _wheel(proc, project).exists()
    assert (project / "src" / "acme_gadget" / "_etw" / "gadget.py").is_file()


_EDITABLE = """
import json, sys
from distutils.core import run_setup
dist = run_setup("setup.py", stop_after="config")
cmd = dist.get_command_obj("build_etwmc")
cmd.editable_mode = True
cmd.ensure_finalized()
cmd.run()
print(json.dumps({"outputs": cmd.get_outputs(), "mapping": cmd.get_output_mapping(),
                  "sources": cmd.get_source_files()}))
"""


@slow
def test_setuptools_editable_mode_generates_in_place(tmp_path: Path, plugin_path: str) -> None:
    """The SubCommand protocol as setuptools' editable_wheel drives it."""
    project = _copy_example("setuptools-package", tmp_path)
    (project / "setup.py").write_text("import setuptools\nsetuptools.setup()\n")
    proc = subprocess.run(
        [sys.executable, "-c", _EDITABLE],
        cwd=project,
        env=_env(plugin_path),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    report = json.loads(proc.stdout.strip().splitlines()[-1])
    generated = project / "src" / "acme_gadget" / "_etw"
    assert {p.name for p in generated.iterdir()} == GADGET_FILES | {"__pycache__"}
    _assert_byte_compiled(generated, {"gadget", "__init__"})
    assert sorted(report["mapping"].values()) == sorted(
        f"src/acme_gadget/_etw/{n}" for n in GADGET_FILES
    )
    assert sorted(report["outputs"]) == sorted(report["mapping"])
    assert report["sources"] == ["src/acme_gadget/gadget.man"]
    result = _run_python(
        _USE.format(pkg="acme_gadget", cls="ACME_GADGET"),
        os.pathsep.join([str(project / "src"), str(ROOT)]),
    )
    _check_used(result, project / "src")


@slow
def test_setuptools_manifest_error_fails_the_build(tmp_path: Path, plugin_path: str) -> None:
    project = _copy_example("setuptools-package", tmp_path)
    man = project / "src" / "acme_gadget" / "gadget.man"
    man.write_text(man.read_text(encoding="utf-8").replace(*BROKEN), encoding="utf-8")
    proc = _setup(project, "build", "--build-lib", str(tmp_path / "lib"), plugin_path=plugin_path)
    out = proc.stdout + proc.stderr
    assert proc.returncode != 0
    assert re.search(r"src/acme_gadget/gadget\.man:\d+(:\d+)?: error ETW\d{3}: .*T_Missing", out)
    assert "Traceback" not in out


@slow
def test_setuptools_project_without_table_is_untouched(tmp_path: Path, plugin_path: str) -> None:
    project = tmp_path / "plain"
    (project / "src" / "plain_pkg").mkdir(parents=True)
    (project / "src" / "plain_pkg" / "__init__.py").write_text("VALUE = 1\n")
    (project / "pyproject.toml").write_text(
        '[build-system]\nrequires = ["setuptools>=64"]\nbuild-backend = "setuptools.build_meta"\n'
        '[project]\nname = "plain-pkg"\nversion = "1.0"\n'
        '[tool.setuptools.packages.find]\nwhere = ["src"]\n'
    )
    lib = tmp_path / "lib"
    proc = _setup(project, "build", "--build-lib", str(lib), plugin_path=plugin_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert sorted(p.relative_to(lib).as_posix() for p in lib.rglob("*") if p.is_file()) == [
        "plain_pkg/__init__.py"
    ]
    # The plugin says nothing.  setuptools' own warnings name files by path, and the
    # checkout (so also a venv inside it) may well sit in a folder named etwmc: those
    # paths are not the plugin speaking.
    assert "etwmc" not in _without_paths(proc.stdout + proc.stderr, plugin_path)


def _without_paths(text: str, plugin_path: str) -> str:
    paths = {str(ROOT), sys.prefix, sys.base_prefix, *plugin_path.split(os.pathsep)}
    for path in sorted(paths, key=len, reverse=True):
        text = text.replace(path, "<path>")
    return text


def test_setuptools_finalize_ignores_unconfigured_projects(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from etwmc.buildhooks.setuptools import finalize_distribution_options

    class FakeDist:
        src_root = str(tmp_path)
        cmdclass: dict[str, object] = {}

        def get_command_class(self, name: str) -> object:
            raise AssertionError("must not touch the build of an unconfigured project")

    (tmp_path / "pyproject.toml").write_text('[project]\nname = "x"\n')
    dist = FakeDist()
    finalize_distribution_options(dist)
    assert dist.cmdclass == {} and not hasattr(dist, "_etwmc_options")
    (tmp_path / "pyproject.toml").unlink()
    finalize_distribution_options(dist)
    assert dist.cmdclass == {}


# --------------------------------------------------------------------------- shared core


def test_parse_options_defaults_and_errors() -> None:
    opts = parse_options({"manifests": "a/*.man", "package": "acme._etw"}, "[t]")
    assert opts == Options(manifests=("a/*.man",), package="acme._etw")
    assert str(opts.package_path) == "acme/_etw"
    full = parse_options(
        {
            "manifests": ["x.man"],
            "package": "p",
            "wevt_version": 3,
            "binaries": False,
            "resource-dll": True,
            "werror": True,
            "enable-by-default": True,
        },
        "[t]",
    )
    assert (full.wevt_version, full.binaries, full.resource_dll, full.werror) == (
        3,
        False,
        True,
        True,
    )
    legacy = parse_options({"manifests": "x", "package": "p", "legacy-template-ids": True}, "t")
    assert (legacy.legacy_template_ids, legacy.wevt_version) == (True, 3)
    bad = [
        {"manifests": "x", "package": "p", "legacy-template-ids": True, "wevt-version": 5},
        {"manifests": "x", "package": "p", "legacy-template-ids": "yes"},
        {"package": "p"},
        {"manifests": [], "package": "p"},
        {"manifests": "x", "package": "a..b"},
        {"manifests": "x", "package": "p", "wevt-version": 4},
        {"manifests": "x", "package": "p", "python": "yes"},
        {"manifests": "x", "package": "p", "surprise": 1},
        {"manifests": "x", "package": "p", "python": False, "binaries": False},
    ]
    for table in bad:
        with pytest.raises(ConfigError, match=r"\[t\]"):
            parse_options(table, "[t]")


def test_find_manifests(tmp_path: Path) -> None:
    (tmp_path / "src" / "p").mkdir(parents=True)
    for name in ("b.man", "a.man"):
        (tmp_path / "src" / "p" / name).write_text("x")
    assert find_manifests(tmp_path, ["src/p/*.man", "src/p/a.man"]) == [
        Path("src/p/a.man"),
        Path("src/p/b.man"),
    ]
    for pattern in ("nothing/*.man", "../x.man", str(tmp_path / "src/p/a.man")):
        with pytest.raises(ConfigError):
            find_manifests(tmp_path, [pattern])


def test_source_package_dir(tmp_path: Path) -> None:
    assert source_package_dir(tmp_path, "acme._etw") == tmp_path / "acme" / "_etw"
    (tmp_path / "src" / "acme").mkdir(parents=True)
    assert source_package_dir(tmp_path, "acme._etw") == tmp_path / "src" / "acme" / "_etw"
    (tmp_path / "acme").mkdir()
    assert source_package_dir(tmp_path, "acme._etw") == tmp_path / "src" / "acme" / "_etw"


def test_generate_into_scratch_and_errors(tmp_path: Path) -> None:
    project = _copy_example("hatch-package", tmp_path)
    opts = parse_options({"manifests": "src/acme_widget/*.man", "package": "acme_widget._etw"}, "t")
    out = tmp_path / "out"
    first = generate(project, opts, out_dir=out)
    assert sorted(first.files) == [
        f"acme_widget/_etw/{n}"
        for n in sorted(
            ["__init__.py", "widget.py", "widgetTEMP.BIN", "widget_MSG00001.bin", "widget.rc"]
        )
    ]
    assert all(p.is_relative_to(out) for p in first.files.values())
    before = {p: p.read_bytes() for p in first.files.values()}
    generate(project, opts, out_dir=out)
    assert {p: p.read_bytes() for p in first.files.values()} == before

    man = project / "src" / "acme_widget" / "widget.man"
    man.write_text(man.read_text(encoding="utf-8").replace(*BROKEN), encoding="utf-8")
    with pytest.raises(BuildFailed) as info:
        generate(project, opts, out_dir=tmp_path / "out2")
    assert "T_Missing" in info.value.report
    assert not (tmp_path / "out2").exists()


def test_two_manifests_with_one_output_name_are_refused(tmp_path: Path) -> None:
    project = _copy_example("hatch-package", tmp_path)
    other = project / "other" / "widget.man"
    other.parent.mkdir()
    shutil.copy(project / "src" / "acme_widget" / "widget.man", other)
    opts = parse_options(
        {"manifests": ["src/acme_widget/*.man", "other/*.man"], "package": "w"}, "t"
    )
    with pytest.raises(ConfigError, match="both produce"):
        generate(project, opts, out_dir=tmp_path / "out")


def test_runtime_requirement() -> None:
    assert runtime_requirement(["requests"]) is not None
    assert runtime_requirement(["etwmc>=0.1"]) is None
    assert runtime_requirement(["ETWMC [compiler]"]) is None
    assert runtime_requirement(["etwmc-extras"]) is not None


# --------------------------------------------------------------------------- pre-commit


def _hooks() -> list[dict[str, object]]:
    """The hook list of .pre-commit-hooks.yaml (its flat subset of YAML: a list of
    mappings of scalars and flow lists)."""
    hooks: list[dict[str, object]] = []
    for raw in (ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8").splitlines():
        line = raw.split(" #")[0].rstrip() if not raw.lstrip().startswith("#") else ""
        if not line:
            continue
        if line.startswith("- "):
            hooks.append({})
            line = "  " + line[2:]
        key, _, value = line.strip().partition(": ")
        hooks[-1][key] = _scalar(value)
    return hooks


def _scalar(value: str) -> object:
    value = value.strip()
    if value.startswith("[") and value.endswith("]"):
        return [_scalar(v) for v in value[1:-1].split(",") if v.strip()]
    if value in ("true", "false"):
        return value == "true"
    if value[:1] in "'\"" and value[-1:] == value[:1]:
        return value[1:-1]
    return value


def test_pre_commit_hooks_are_declared() -> None:
    hooks = {h["id"]: h for h in _hooks()}
    assert set(hooks) == {"etwmc-lint", "etwmc-compile-check"}
    for h in hooks.values():
        assert {"id", "name", "entry", "language"} <= set(h)
        assert h["language"] == "python"
    check = hooks["etwmc-compile-check"]
    assert check["entry"] == "etwmc compile --check"
    assert check["pass_filenames"] is False
    # Every extension a folder search looks at; lint --force-exclude skips what is not a
    # manifest (tests/test_precommit.py runs the hook).
    for name in ("src/acme/events.man", "src/acme/build.xml", "src/Widgets.MANIFEST"):
        assert re.search(str(hooks["etwmc-lint"]["files"]), name)
    assert hooks["etwmc-lint"]["entry"] == "etwmc lint --force-exclude"
    # What lint and compile need of the compiler extra: the trace decoder's dependencies
    # are not theirs.
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    needed = [r for r in extra["compiler"] if not str(r).startswith("dissect")]
    for h in hooks.values():
        assert h["additional_dependencies"] == needed


def test_compile_check_both_ways(tmp_path: Path) -> None:
    """What the etwmc-compile-check hook runs: exit 0 when the outputs on disk are
    current, 1 when one is stale or missing."""
    from etwmc.cli import main

    project = _copy_example("hatch-package", tmp_path)
    man = str(project / "src" / "acme_widget" / "widget.man")
    out = tmp_path / "gen"
    assert main(["compile", "-o", str(out), man]) == 0
    hook_args = str(_hooks()[1]["entry"]).split()[1:]
    assert main([*hook_args, "-o", str(out), man]) == 0
    stale = out / "widgetTEMP.BIN"
    stale.write_bytes(stale.read_bytes() + b"\0")
    assert main([*hook_args, "-o", str(out), man]) == 1
    assert main(["compile", "-o", str(out), man]) == 0
    (out / "widget.py").unlink()
    assert main([*hook_args, "-o", str(out), man]) == 1


ETK = ROOT.parent / "shared" / "golden" / "event-trace-kit"


@slow
@pytest.mark.skipif(not ETK.is_dir(), reason="../shared/golden is not available")
def test_hatch_legacy_template_ids_ship_mc_8_1_bytes(tmp_path: Path, plugin_path: str) -> None:
    """``legacy-template-ids = true`` in the hook's table: the wheel carries the blob that
    mc 8.1 built for wpf-etw.man, byte for byte."""
    project = tmp_path / "wpf"
    (project / "src" / "wpf").mkdir(parents=True)
    (project / "src" / "wpf" / "__init__.py").write_text("", encoding="utf-8")
    shutil.copy(ETK / "wpf-etw.man", project / "wpf-etw.man")
    (project / "pyproject.toml").write_text(
        """[build-system]
requires = ["hatchling"]
build-backend = "hatchling.build"

[project]
name = "wpf"
version = "1.0"

[tool.hatch.build.targets.wheel]
packages = ["src/wpf"]

[tool.hatch.build.hooks.etwmc]
manifests = ["wpf-etw.man"]
package = "wpf._etw"
python = false
legacy-template-ids = true
""",
        encoding="utf-8",
    )
    wheel = _wheel(_backend(project, "hatchling.build", "build_wheel", plugin_path), project)
    with zipfile.ZipFile(wheel) as z:
        blob = z.read("wpf/_etw/wpf-etwTEMP.BIN")
        table = z.read("wpf/_etw/wpf-etw_MSG00001.bin")
    assert blob == (ETK / "wpf-etw.wevt.v3-8.1-compat.bin").read_bytes()
    assert table == (ETK / "wpf-etw.msg.v3-8.1-compat.bin").read_bytes()
