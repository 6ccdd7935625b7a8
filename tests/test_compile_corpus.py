"""Every valid corpus manifest compiles; the modules import, type-check (mypy --strict),
pass ruff's default rules, are exactly what black prints, and are the same bytes run after
run and under other hash seeds."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from codegen_helpers import HELLO, black_check, load

from conftest import CORPUS, corpus_files, expected_failures, require_shared, slow
from etwmc.compile import compile_manifest
from etwmc.options import CompileOptions

SLOW = os.environ.get("ETWMC_SLOW_TESTS") == "1"
# black formats ~3,000 lines/s: the default run checks modules up to this size against
# black (all small and medium ones); ETWMC_SLOW_TESTS=1 checks every module.
BLACK_LIMIT = 3000


def valid_corpus() -> list[Path]:
    bad = expected_failures()
    return [p for p in corpus_files() if p.name not in bad]


@pytest.fixture(scope="module")
def compiled(tmp_path_factory: pytest.TempPathFactory) -> dict[str, tuple[Path, str]]:
    require_shared()
    out = tmp_path_factory.mktemp("corpus")
    modules: dict[str, tuple[Path, str]] = {}
    for man in valid_corpus():
        result = compile_manifest(man, CompileOptions(verify=True))
        assert result.ok, (man.name, [d.message for d in result.diagnostics if d.severity == 2])
        py = [n for n in result.files if n.endswith(".py")]
        assert len(py) == 1 and any(n.endswith("TEMP.BIN") for n in result.files), man.name
        assert any(n.endswith(".rc") for n in result.files)
        (out / py[0]).write_bytes(result.files[py[0]])
        modules[man.name] = (out / py[0], result.files[py[0]].decode("ascii"))
    return modules


@slow
def test_every_valid_corpus_manifest_compiles(compiled: dict[str, tuple[Path, str]]) -> None:
    assert len(compiled) == len(valid_corpus()) > 40


@slow
def test_every_generated_module_imports(compiled: dict[str, tuple[Path, str]]) -> None:
    for name, (path, _) in compiled.items():
        m = load(path)
        assert isinstance(m.PROVIDERS, tuple), name
        assert all(not p.registered for p in m.PROVIDERS), name


@slow
def test_generated_modules_are_what_black_prints(compiled: dict[str, tuple[Path, str]]) -> None:
    checked = 0
    for name, (_, text) in compiled.items():
        if SLOW or text.count("\n") <= BLACK_LIMIT:
            assert black_check(text) == text, f"{name}: output differs from black's"
            checked += 1
    assert checked >= 25


@slow
def test_generated_modules_pass_mypy_strict(compiled: dict[str, tuple[Path, str]]) -> None:
    pytest.importorskip("mypy")
    paths = [
        str(p) for p, text in compiled.values() if SLOW or text.count("\n") <= 60 * BLACK_LIMIT
    ]
    env = dict(os.environ, MYPY_CACHE_DIR=str(Path(paths[0]).parent / ".mypy_cache"))
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-error-summary", *paths],
        capture_output=True,
        text=True,
        env=env,
    )
    assert run.returncode == 0, run.stdout[-3000:]


@slow
def test_generated_modules_pass_ruffs_default_rules(
    compiled: dict[str, tuple[Path, str]],
) -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or shutil.which("ruff")
    if ruff is None:
        pytest.skip("ruff is not installed")
    # --isolated: ruff's own defaults, none of this project's configuration.
    run = subprocess.run(
        [ruff, "check", "--isolated", "--no-cache", *(str(p) for p, _ in compiled.values())],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 0, run.stdout[-3000:]


def _compile_in_subprocess(man: Path, seed: str) -> bytes:
    code = (
        "import sys; from etwmc.compile import compile_manifest\n"
        f"r = compile_manifest({str(man)!r})\n"
        "out = b''.join(k.encode() + b'\\0' + r.files[k] for k in sorted(r.files))\n"
        "sys.stdout.buffer.write(out)"
    )
    env = dict(os.environ, PYTHONHASHSEED=seed)
    return subprocess.run(
        [sys.executable, "-c", code], capture_output=True, check=True, env=env
    ).stdout


@pytest.mark.parametrize("name", ["hello", "gix__event-trace-kit__Large.man"])
def test_output_is_deterministic(name: str) -> None:
    man = HELLO if name == "hello" else CORPUS / name
    if not man.is_file():
        pytest.skip("../shared/corpus is not present next to this checkout")
    first, second = compile_manifest(man).files, compile_manifest(man).files
    assert first == second
    a = _compile_in_subprocess(man, "1")
    b = _compile_in_subprocess(man, "4242")
    assert a == b and len(a) > 1000


def test_module_imports_without_the_compiler_dependencies(tmp_path: Path) -> None:
    result = compile_manifest(HELLO, CompileOptions(binary=False))
    [(name, data)] = result.files.items()
    (tmp_path / name).write_bytes(data)
    probe = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] in ('lxml', 'jinja2', 'black', 'xmlschema'):\n"
        "            raise ImportError('blocked: ' + name)\n"
        "sys.meta_path.insert(0, Block())\n"
        f"sys.path.insert(0, {str(tmp_path)!r})\n"
        "import hello\n"
        "hello.register('inproc')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "('lxml', 'jinja2', 'black', 'xmlschema')))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"
