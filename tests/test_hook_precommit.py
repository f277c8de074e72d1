"""The real ``pre-commit`` tool running remask through a ``repo: local`` config.

pre-commit cannot fetch hooks from GitHub here, so the local hook copies the shipped
``.pre-commit-hooks.yaml`` entry and only swaps ``language: python`` (which would pip-install
remask into a fresh environment) for ``unsupported`` (run ``remask`` from PATH).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from hook_repo import RENAMED, GitRepo, make_repo, rename_proposal
from pre_commit.clientlib import load_manifest

MANIFEST = Path(__file__).parents[1] / ".pre-commit-hooks.yaml"


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    r = make_repo(tmp_path, monkeypatch)
    monkeypatch.setenv("PRE_COMMIT_HOME", str(tmp_path / "pre-commit-home"))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}:{os.environ['PATH']}")
    [shipped] = load_manifest(str(MANIFEST))
    local = {k: shipped[k] for k in ("id", "name", "entry", "types", "require_serial")}
    r.write(".pre-commit-config.yaml", yaml.safe_dump(
        {"repos": [{"repo": "local", "hooks": [{**local, "language": "unsupported"}]}]}))
    r.commit(".pre-commit-config.yaml")
    return r


def pre_commit(repo: GitRepo) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "pre_commit", "run", "--color", "never"],
                          cwd=repo.root, capture_output=True, text=True)


def test_the_shipped_manifest_is_valid() -> None:
    [hook] = load_manifest(str(MANIFEST))
    assert (hook["language"], hook["types"], hook["require_serial"]) == ("python", ["python"],
                                                                         True)
    assert hook["entry"] == "remask hook run"


@pytest.mark.slow
def test_pre_commit_reports_files_were_modified_then_passes(repo, engine) -> None:
    expected = rename_proposal(engine).text
    repo.stage_rename()

    first = pre_commit(repo)
    assert first.returncode == 1, first.stdout + first.stderr
    assert "files were modified by this hook" in first.stdout
    assert repo.read("totals.py").decode() == expected
    assert repo.staged("totals.py") == RENAMED.encode()  # pre-commit leaves staging to the user

    repo.git("add", "totals.py")
    second = pre_commit(repo)
    assert second.returncode == 0, second.stdout + second.stderr
    assert "Passed" in second.stdout
    assert repo.read("totals.py").decode() == expected


@pytest.mark.slow
def test_pre_commit_restores_unstaged_work(repo, engine) -> None:
    expected = rename_proposal(engine).text
    repo.stage_rename()
    unstaged = RENAMED.replace('"""Totals."""', '"""Totals, still being written."""')
    repo.write("totals.py", unstaged)

    result = pre_commit(repo)
    assert result.returncode == 1 and "files were modified by this hook" in result.stdout
    # pre-commit stashed the unstaged docstring, the hook rewrote the staged text, and the
    # docstring came back on top: both are there, byte for byte.
    assert repo.read("totals.py").decode() == expected.replace(
        '"""Totals."""', '"""Totals, still being written."""')
    assert repo.staged("totals.py") == RENAMED.encode()


def test_a_staged_file_named_like_an_option(repo) -> None:
    """pre-commit passes ``-old.py`` with no ``--`` before it: a file, not an unknown option."""
    repo.write("-old.py", "x = 1\n")
    repo.commit("--", "-old.py")
    repo.write("-old.py", "x = 2\n")
    repo.git("add", "--", "-old.py")
    result = pre_commit(repo)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "Passed" in result.stdout


@pytest.mark.slow
def test_pre_commit_follows_a_rename_into_a_module_the_commit_leaves_out(repo) -> None:
    lib = "def total(xs):\n    return sum(xs)\n"
    use = "from lib import total\n\nprint(total([1]))\n"
    repo.write("lib.py", lib)
    repo.write("use.py", use)
    repo.commit("lib.py", "use.py")
    repo.write("lib.py", lib.replace("total", "grand_total"))
    repo.git("add", "lib.py")

    result = pre_commit(repo)
    assert result.returncode == 1 and "files were modified by this hook" in result.stdout
    assert repo.read("use.py").decode() == use.replace("total", "grand_total")
    assert repo.staged("use.py").decode() == use  # the user stages it, as any hook's fix
    repo.git("add", "use.py")
    second = pre_commit(repo)
    assert second.returncode == 0, second.stdout + second.stderr
