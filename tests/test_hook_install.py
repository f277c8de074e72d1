"""``remask hook install|uninstall``, and real ``git commit``s through the installed hook."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
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


def test_project_modules_do_not_shadow_remasks_imports(repo) -> None:
    """Git starts the hook at the top of the working tree, where ``python -m`` would look first."""
    repo.write("git.py", 'def current_branch():\n    return "main"\n')
    repo.write("logging.py", 'import sys\nprint("project logging.py ran")\nsys.exit(3)\n')
    repo.write("app.py", "x = 1\n")
    repo.commit()
    assert main(["hook", "install"]) == 0
    repo.write("app.py", "x = 2\n")
    repo.git("add", "app.py")
    result = commit(repo)
    assert result.returncode == 0, result.stdout
    assert "project logging.py ran" not in result.stdout
    assert repo.git("rev-list", "--count", "HEAD").strip() == "2"


def test_a_hook_installed_by_an_earlier_remask_is_still_ours(repo, capsys) -> None:
    old = ("#!/bin/sh\n# remask pre-commit hook (`remask hook install`; remove with "
           f"`remask hook uninstall`)\nexec {shlex.quote(sys.executable)} -m remask.cli hook run\n")
    hook(repo).write_text(old)
    assert main(["hook", "install"]) == 0  # replaced quietly, no --force needed
    assert "-P -m remask.cli" in hook(repo).read_text()
    assert not (hook(repo).parent / "pre-commit.remask-saved").exists()
    hook(repo).write_text(old)
    assert main(["hook", "uninstall"]) == 0
    assert not hook(repo).exists()


def test_a_combined_hook_that_mentions_remask_is_not_ours(repo, capsys) -> None:
    combined = ("#!/bin/sh\n./scripts/check-licenses || exit 1\n"
                "# remask pre-commit hook (`remask hook install`; remove with "
                "`remask hook uninstall`)\npython -m remask.cli hook run || exit 1\n"
                "npm run lint --silent\n")
    hook(repo).write_text(combined)
    assert main(["hook", "install"]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["hook", "uninstall"]) == 2
    assert "not remask's hook" in capsys.readouterr().err
    assert hook(repo).read_text() == combined


def test_force_twice_keeps_the_first_saved_hook(repo, capsys) -> None:
    saved = hook(repo).parent / "pre-commit.remask-saved"
    hook(repo).write_text("#!/bin/sh\necho first\n")
    assert main(["hook", "install", "--force"]) == 0
    hook(repo).write_text("#!/bin/sh\necho second\n")  # another tool took the hook over
    capsys.readouterr()
    assert main(["hook", "install", "--force"]) == 2
    err = capsys.readouterr().err
    assert "pre-commit.remask-saved already holds" in err and len(err.strip().splitlines()) == 1
    assert saved.read_text() == "#!/bin/sh\necho first\n"
    assert hook(repo).read_text() == "#!/bin/sh\necho second\n"


def test_hooks_path_naming_a_file_is_one_line(repo, capsys) -> None:
    repo.write("hooksfile", "x\n")
    repo.git("config", "core.hooksPath", "hooksfile")
    assert main(["hook", "install"]) == 2
    err = capsys.readouterr().err
    assert "hooksfile: not a directory" in err and len(err.strip().splitlines()) == 1
    assert repo.read("hooksfile") == b"x\n"


def test_a_dangling_symlink_hook_is_someone_elses(repo, capsys) -> None:
    target = repo.root / "tools" / "hooks" / "pre-commit"
    hook(repo).symlink_to("../../tools/hooks/pre-commit")
    assert main(["hook", "install"]) == 2
    err = capsys.readouterr().err
    assert "--force" in err and len(err.strip().splitlines()) == 1
    assert hook(repo).is_symlink() and not target.exists()

    assert main(["hook", "install", "--force"]) == 0
    saved = hook(repo).parent / "pre-commit.remask-saved"
    assert saved.is_symlink() and not hook(repo).is_symlink()
    assert not target.parent.exists()  # nothing was written through the link
    assert main(["hook", "uninstall"]) == 0
    assert hook(repo).is_symlink() and os.readlink(hook(repo)) == "../../tools/hooks/pre-commit"


def test_an_unwritable_hooks_directory_is_one_line(repo, capsys, monkeypatch) -> None:
    from remask.hook import install

    def refuse(path, text, expected=None):
        raise PermissionError(13, "Permission denied", str(path))

    monkeypatch.setattr(install, "atomic_write", refuse)  # root may write anywhere
    assert main(["hook", "install"]) == 2
    err = capsys.readouterr().err
    assert "Permission denied" in err and len(err.strip().splitlines()) == 1


def test_git_dir_and_work_tree_are_honoured(tmp_path, monkeypatch, capsys) -> None:
    """The bare "dotfiles" repository: git finds it only through GIT_DIR and GIT_WORK_TREE."""
    make_repo(tmp_path, monkeypatch)
    bare, home = tmp_path / "dotfiles.git", tmp_path / "home"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    monkeypatch.setenv("GIT_DIR", str(bare))
    monkeypatch.setenv("GIT_WORK_TREE", str(home))
    dot = GitRepo(home, init=False)
    monkeypatch.chdir(home)
    dot.write("notes.py", "x = 1\n")
    dot.commit("notes.py")

    assert main(["hook", "install"]) == 0
    assert (bare / "hooks" / "pre-commit").is_file()
    dot.write("notes.py", "x = 2\n")
    dot.git("add", "notes.py")
    assert main(["hook", "run"]) == 0, capsys.readouterr().err
    result = commit(dot)
    assert result.returncode == 0, result.stdout
    assert dot.git("show", "HEAD:notes.py") == "x = 2\n"


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


@pytest.mark.slow
def test_git_commit_include_with_unstaged_work_says_how_to_commit(repo, engine) -> None:
    """``git commit -i PATH`` hands the hook a temporary index git drops when the hook fails:
    a rewrite of a partially staged file could not be kept, and the hook says so."""
    main(["hook", "install"])
    repo.write("other.py", "y = 1\n")
    repo.stage_rename()
    repo.write("totals.py", RENAMED + "\n# unstaged note\n")
    repo.write("other.py", "y = 2\n")
    result = commit(repo, "-i", "other.py")
    assert result.returncode != 0
    assert "totals.py: not written" in result.stdout and "git add -p" in result.stdout
    assert "rewrote" not in result.stdout
    assert repo.staged("totals.py") == RENAMED.encode()
    assert repo.git("rev-list", "--count", "HEAD").strip() == "1"
