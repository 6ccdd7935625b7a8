"""The pre-commit hook ``etwmc-lint`` checks what ``etwmc lint`` of the repository's
folders checks: pre-commit names every file its pattern takes, and the hook's
``--force-exclude`` gives them the folder search's rules (a Windows application's
``app.manifest`` and other XML skipped, ``.xml`` instrumentation manifests found).

The hook's entry is run as pre-commit runs it (its ``files``/``exclude``/``types``
applied to a repository's tracked files, then ``entry`` + ``args`` + the names); and,
when pre-commit is installed and a local package index can install the hook without
the network, through ``pre-commit try-repo`` itself."""

from __future__ import annotations

import importlib.util
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from conftest import slow

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "examples" / "lint-demo"
HELLO = ROOT / "examples" / "hello.man"

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def _hook(hook_id: str) -> dict[str, object]:
    hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    return next(h for h in hooks if h["id"] == hook_id)


def _git(repo: Path, *args: str) -> str:
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(repo.parent),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    return subprocess.run(
        ["git", *args], cwd=repo, env=env, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """examples/lint-demo as a git repository, with an instrumentation manifest named
    .xml beside its application manifest, component manifest and other XML."""
    r = tmp_path / "repo"
    shutil.copytree(DEMO, r)
    shutil.copy(HELLO, r / "src" / "hello.xml")
    _git(r, "init", "-q")
    _git(r, "add", "-A")
    _git(r, "commit", "-q", "-m", "init")
    return r


def _selected(hook: dict[str, object], repo: Path) -> list[str]:
    """The tracked files pre-commit passes to ``hook``."""
    files = re.compile(str(hook.get("files", "")))
    exclude = re.compile(str(hook.get("exclude", "^$")))
    types = set(hook.get("types", ["file"]))  # type: ignore[call-overload]
    assert types <= {"file"}, f"this test knows only the 'file' type, not {types - {'file'}}"
    assert not hook.get("types_or") and not hook.get("exclude_types")
    out = []
    for name in _git(repo, "ls-files", "-z").split("\0"):
        if not name or not files.search(name) or exclude.search(name):
            continue
        mode = os.lstat(repo / name).st_mode
        if stat.S_ISREG(mode):  # identify's 'file' tag: a regular file, not a link
            out.append(name)
    return out


def _etwmc() -> list[str]:
    script = Path(sys.executable).parent / "etwmc"
    return [str(script)] if script.exists() else [sys.executable, "-m", "etwmc"]


def _run(repo: Path, command: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command,
        cwd=repo,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "NO_COLOR": "1"},
    )


def _as_pre_commit_runs_it(repo: Path, names: list[str]) -> subprocess.CompletedProcess[str]:
    hook = _hook("etwmc-lint")
    entry = shlex.split(str(hook["entry"]))
    assert entry[0] == "etwmc"
    args = [str(a) for a in hook.get("args", [])]  # type: ignore[attr-defined]
    return _run(repo, [*_etwmc(), *entry[1:], *args, *names])


def test_the_lint_hook_checks_what_a_folder_lint_checks(repo: Path) -> None:
    names = _selected(_hook("etwmc-lint"), repo)
    # Every extension a folder search looks at reaches the hook; lint sorts them out.
    assert {"src/hello.xml", "src/app.manifest", "pom.xml", "src/widgets/widgets.manifest"} <= set(
        names
    )
    hooked = _as_pre_commit_runs_it(repo, names)
    searched = _run(repo, [*_etwmc(), "lint", "."])
    assert "ETW008" not in hooked.stdout, hooked.stdout  # app.manifest, pom.xml: skipped
    assert (hooked.returncode, hooked.stdout, hooked.stderr) == (
        searched.returncode,
        searched.stdout,
        searched.stderr,
    )
    assert hooked.returncode == 1 and "src/acme/events.man:41:38: error ETW401" in hooked.stdout
    assert hooked.stderr.strip().endswith("in 4 files")  # hello.xml is one of them


def test_a_commit_without_manifests_passes_the_hook(repo: Path) -> None:
    proc = _as_pre_commit_runs_it(repo, ["pom.xml", "src/app.manifest", "src/app.config.xml"])
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout == ""


def test_force_exclude_applies_the_search_rules_to_named_files(repo: Path) -> None:
    (repo / ".hidden").mkdir()
    shutil.copy(DEMO / "src" / "acme" / "events.man", repo / ".hidden" / "broken.man")
    (repo / "vendor").mkdir()
    shutil.copy(DEMO / "src" / "acme" / "events.man", repo / "vendor" / "broken.man")
    names = ["src/hello.xml", ".hidden/broken.man", "vendor/broken.man"]
    proc = _run(repo, [*_etwmc(), "lint", "--force-exclude", "--exclude", "vendor/", *names])
    assert proc.returncode == 0 and proc.stdout == "", proc.stdout + proc.stderr
    assert proc.stderr.strip().endswith("in 1 file")
    # Without the flag a named file is always checked, whatever it is.
    proc = _run(repo, [*_etwmc(), "lint", "--exclude", "vendor/", *names, "src/app.manifest"])
    assert proc.returncode == 1 and "ETW008" in proc.stdout and "vendor/broken.man" in proc.stdout


def test_the_hooks_install_no_decoding_dependency() -> None:
    for hook_id in ("etwmc-lint", "etwmc-compile-check"):
        deps = _hook(hook_id)["additional_dependencies"]
        assert isinstance(deps, list) and {d.split(">")[0] for d in deps} == {"lxml", "pathspec"}


# --------------------------------------------------------------------------- try-repo


def _local_indexes() -> list[str]:
    """The file:// package indexes pip is configured with: they install the hook
    without the network."""
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "config", "list"], capture_output=True, text=True, timeout=60
    )
    urls = re.findall(r"file://[^\s'\"]+", proc.stdout)
    return [u for u in dict.fromkeys(urls) if Path(u.removeprefix("file://")).is_dir()]


@slow
def test_pre_commit_try_repo_offline(repo: Path, tmp_path: Path) -> None:
    if importlib.util.find_spec("pre_commit") is None:
        pytest.skip("pre-commit is not installed")
    indexes = _local_indexes()
    if not indexes:
        pytest.skip("no local package index to install the hook from without the network")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home"),
        "PIP_INDEX_URL": indexes[0],
        "PIP_EXTRA_INDEX_URL": " ".join(indexes[1:]),
        "PIP_NO_INPUT": "1",
        "NO_COLOR": "1",
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.invalid",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.invalid",
    }
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(ROOT), "etwmc-lint", "--all-files"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    out = proc.stdout + proc.stderr
    assert proc.returncode == 1, out  # the demo's typo, and nothing else
    assert "src/acme/events.man:41:38: error ETW401" in out
    assert "ETW008" not in out
    assert "1 error, 0 warnings, 0 notes in 4 files" in out


# --------------------------------------------------------------------------- rev


def test_autoupdate_pins_the_documented_main_to_a_commit(tmp_path: Path) -> None:
    """What the pages tell users to run, against a tagless copy of a hook repository."""
    pytest.importorskip("pre_commit")
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    shutil.copy(ROOT / ".pre-commit-hooks.yaml", hooks)
    _git(hooks, "init", "-q", "-b", "main")
    _git(hooks, "add", "-A")
    _git(hooks, "commit", "-q", "-m", "hooks")
    head = _git(hooks, "rev-parse", "HEAD").strip()
    project = tmp_path / "project"
    project.mkdir()
    _git(project, "init", "-q")
    config = project / ".pre-commit-config.yaml"
    config.write_text(
        f"repos:\n  - repo: {hooks}\n    rev: main\n    hooks:\n      - id: etwmc-lint\n"
    )
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "autoupdate", "--repo", str(hooks)],
        cwd=project,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "home"), "HOME": str(tmp_path)},
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert f"rev: {head}" in config.read_text()
