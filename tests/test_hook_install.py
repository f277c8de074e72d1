"""``remask hook install|uninstall``, and real ``git commit``s through the installed hook."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest
from hook_repo import BEFORE, RENAMED, GitRepo, make_repo, rename_proposal

from remask.cli import main


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    return make_repo(tmp_path, monkeypatch)


def hook(repo: GitRepo) -> Path:
    return repo.root / ".git" / "hooks" / "pre-commit"


def commit(repo: GitRepo, *args: str) -> subprocess.CompletedProcess:
    """Run ``git commit``; git sends the hook's output to stderr, so both go to ``stdout``."""
    return subprocess.run(["git", "commit", "-q", "-m", "change", *args], cwd=repo.root,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


def test_install_writes_an_executable_hook(repo, capsys) -> None:
    assert main(["hook", "install"]) == 0
    assert os.access(hook(repo), os.X_OK)
    assert "remask.cli hook run" in hook(repo).read_text()
    assert main(["hook", "install"]) == 0  # its own hook is replaced quietly
    assert "installed" in capsys.readouterr().out


def test_a_foreign_hook_is_kept(repo, capsys) -> None:
    hook(repo).write_text("#!/bin/sh\necho mine\n")
    assert main(["hook", "install"]) == 2
    assert "--force" in capsys.readouterr().err
    assert hook(repo).read_text() == "#!/bin/sh\necho mine\n"
    assert main(["hook", "uninstall"]) == 2
    assert hook(repo).read_text() == "#!/bin/sh\necho mine\n"

    assert main(["hook", "install", "--force"]) == 0
    assert "remask" in hook(repo).read_text()
    assert (hook(repo).parent / "pre-commit.remask-saved").read_text() == "#!/bin/sh\necho mine\n"
    assert main(["hook", "uninstall"]) == 0
    assert hook(repo).read_text() == "#!/bin/sh\necho mine\n"
    assert not (hook(repo).parent / "pre-commit.remask-saved").exists()


def test_uninstall(repo, capsys) -> None:
    assert main(["hook", "uninstall"]) == 0
    assert "no pre-commit hook" in capsys.readouterr().out
    main(["hook", "install"])
    assert main(["hook", "uninstall"]) == 0
    assert not hook(repo).exists()


def test_core_hooks_path_is_honoured(repo) -> None:
    repo.git("config", "core.hooksPath", "githooks")
    assert main(["hook", "install"]) == 0
    assert (repo.root / "githooks" / "pre-commit").is_file()
    assert not hook(repo).exists()


def test_install_outside_a_repository(tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path.parent))
    monkeypatch.chdir(tmp_path)
    assert main(["hook", "install"]) == 2
    assert "not a git repository" in capsys.readouterr().err


@pytest.mark.slow
def test_git_commit_stops_for_review_then_records_the_rewrite(repo, engine) -> None:
    expected = rename_proposal(engine).text
    main(["hook", "install"])
    repo.stage_rename()

    first = commit(repo)
    assert first.returncode != 0
    assert "rewrote 1 file" in first.stdout and "git diff --cached" in first.stdout
    assert repo.staged("totals.py").decode() == expected
    assert repo.git("rev-list", "--count", "HEAD").strip() == "1"

    second = commit(repo)
    assert second.returncode == 0, second.stdout
    assert repo.git("show", "HEAD:totals.py") == expected


@pytest.mark.slow
def test_git_commit_all_keeps_the_rewrite_in_the_working_tree(repo, engine) -> None:
    """``git commit -a`` gives the hook a temporary index that git drops when the hook fails."""
    expected = rename_proposal(engine).text
    main(["hook", "install"])
    repo.write("totals.py", BEFORE)
    repo.commit()
    repo.write("totals.py", RENAMED)

    first = commit(repo, "-a")
    assert first.returncode != 0 and "`git diff`, git add" in first.stdout
    assert repo.read("totals.py").decode() == expected
    assert repo.staged("totals.py").decode() == BEFORE

    assert commit(repo, "-a").returncode == 0
    assert repo.git("show", "HEAD:totals.py") == expected
