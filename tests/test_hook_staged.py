"""The hook's git layer against real repositories: staged blobs, status, index writes, locks."""

from __future__ import annotations

from pathlib import Path

import pytest
from hook_repo import GitRepo, make_repo

from remask.hook.staged import (
    GitError,
    Skip,
    open_repo,
    operation_in_progress,
    quote_path,
    read_staged,
    relative_path,
    staged_status,
    worktree_matches,
    write_index,
)


@pytest.fixture
def repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    return make_repo(tmp_path, monkeypatch)


def test_not_a_repository(tmp_path: Path) -> None:
    with pytest.raises(GitError, match="not a git repository"):
        open_repo(tmp_path)


def test_status_on_unborn_branch_is_all_additions(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.git("add", "a.py")
    r = open_repo(repo.root)
    assert staged_status(r) == {"a.py": ("A", None)}
    staged = read_staged(r, "a.py")
    assert staged.data == b"x = 1\n" and staged.head is None and staged.mode == "100644"


def test_status_letters_and_renames(repo: GitRepo) -> None:
    repo.write("keep.py", "k = 1\n")
    repo.write("gone.py", "g = 1\n")
    repo.write("old name.py", "".join(f"line_{i} = {i}\n" for i in range(20)))
    repo.commit()
    repo.write("keep.py", "k = 2\n")
    repo.git("rm", "-q", "gone.py")
    repo.git("mv", "old name.py", "new name.py")
    repo.git("add", "keep.py")
    status = staged_status(open_repo(repo.root))
    assert status == {"keep.py": ("M", None), "gone.py": ("D", None),
                      "new name.py": ("R", "old name.py")}


def test_read_staged_sees_the_index_not_the_worktree(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    repo.write("a.py", "x = 2\n")
    repo.git("add", "a.py")
    repo.write("a.py", "x = 3\n")
    r = open_repo(repo.root)
    staged = read_staged(r, "a.py")
    assert (staged.head, staged.data) == (b"x = 1\n", b"x = 2\n")
    assert not worktree_matches(r, staged)
    repo.write("a.py", "x = 2\n")
    assert worktree_matches(r, staged)


def test_read_staged_skips(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    (repo.root / "link.py").symlink_to("a.py")
    repo.git("add", "a.py", "link.py")
    r = open_repo(repo.root)
    with pytest.raises(Skip, match="not in the index"):
        read_staged(r, "missing.py")
    with pytest.raises(Skip, match="not a regular file"):
        read_staged(r, "link.py")


def test_write_index_keeps_mode_and_leaves_worktree(repo: GitRepo) -> None:
    repo.write("run.py", "print(1)\n")
    (repo.root / "run.py").chmod(0o755)
    repo.commit()
    r = open_repo(repo.root)
    write_index(r, read_staged(r, "run.py"), b"print(2)\n")
    assert repo.staged("run.py") == b"print(2)\n"
    assert repo.read("run.py") == b"print(1)\n"
    assert repo.git("ls-files", "-s", "run.py").startswith("100755 ")


def test_write_index_refuses_a_changed_entry(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.git("add", "a.py")
    r = open_repo(repo.root)
    staged = read_staged(r, "a.py")
    repo.write("a.py", "x = 9\n")
    repo.git("add", "a.py")
    with pytest.raises(GitError, match="index changed"):
        write_index(r, staged, b"x = 2\n")
    assert repo.staged("a.py") == b"x = 9\n"


def test_write_index_under_a_held_lock_is_one_line(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.git("add", "a.py")
    r = open_repo(repo.root)
    staged = read_staged(r, "a.py")
    (repo.root / ".git" / "index.lock").write_bytes(b"")
    with pytest.raises(GitError, match="index.lock") as e:
        write_index(r, staged, b"x = 2\n")
    assert "\n" not in str(e.value)
    (repo.root / ".git" / "index.lock").unlink()
    assert repo.staged("a.py") == b"x = 1\n"


def test_write_index_honours_git_index_file(repo: GitRepo, monkeypatch) -> None:
    """`git commit -a` hands the hook a temporary index through GIT_INDEX_FILE."""
    repo.write("a.py", "x = 1\n")
    repo.commit()
    other = repo.root / ".git" / "other-index"
    repo.git("read-tree", "HEAD", env={"GIT_INDEX_FILE": str(other)})
    monkeypatch.setenv("GIT_INDEX_FILE", str(other))
    r = open_repo(repo.root)
    write_index(r, read_staged(r, "a.py"), b"x = 2\n")
    monkeypatch.delenv("GIT_INDEX_FILE")
    assert repo.staged("a.py") == b"x = 1\n"
    assert repo.git("show", ":a.py", env={"GIT_INDEX_FILE": str(other)}) == "x = 2\n"


def test_merge_in_progress_is_detected(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "x = 2\n")
    repo.commit()
    repo.git("checkout", "-q", "main")
    repo.write("a.py", "x = 3\n")
    repo.commit()
    r = open_repo(repo.root)
    assert operation_in_progress(r) is None
    repo.git("merge", "side", check=False)
    assert operation_in_progress(r) == "merge"
    with pytest.raises(Skip, match="unmerged"):
        read_staged(r, "a.py")


def test_rebase_in_progress_is_detected(repo: GitRepo) -> None:
    repo.write("a.py", "x = 1\n")
    repo.commit()
    repo.git("checkout", "-q", "-b", "side")
    repo.write("a.py", "x = 2\n")
    repo.commit()
    repo.git("checkout", "-q", "main")
    repo.write("a.py", "x = 3\n")
    repo.commit()
    repo.git("checkout", "-q", "side")
    repo.git("rebase", "main", check=False)  # stops on the conflict
    assert operation_in_progress(open_repo(repo.root)) == "rebase"


def test_relative_path(repo: GitRepo, tmp_path: Path) -> None:
    (repo.root / "pkg").mkdir()
    r = open_repo(repo.root)
    assert relative_path(r, "mod.py", repo.root / "pkg") == "pkg/mod.py"
    assert relative_path(r, "pkg/../a.py", repo.root) == "a.py"
    with pytest.raises(Skip, match="outside the repository"):
        relative_path(r, str(tmp_path / "elsewhere.py"), repo.root)


def test_git_dir_and_work_tree_are_honoured(repo: GitRepo, tmp_path: Path, monkeypatch) -> None:
    """`git --git-dir=X --work-tree=Y commit`, or a bare "dotfiles" repository."""
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", str(repo.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo.root))
    r = open_repo(elsewhere)
    assert Path(r.working_tree_dir) == repo.root.resolve()
    assert Path(r.git_dir) == (repo.root / ".git").resolve()


def test_a_bare_repository_is_one_line(tmp_path: Path, monkeypatch) -> None:
    make_repo(tmp_path, monkeypatch)
    GitRepo(tmp_path / "bare.git", "--bare")
    with pytest.raises(GitError, match="bare repository"):
        open_repo(tmp_path / "bare.git")


def test_quote_path() -> None:
    assert quote_path("pkg/mod.py") == "pkg/mod.py"
    assert quote_path("résumé.py") == "résumé.py"
    assert quote_path("a\nb.py") == '"a\\nb.py"'
    assert quote_path("r\udce9sum\udce9.py") == '"r\\351sum\\351.py"'  # Latin-1 bytes
