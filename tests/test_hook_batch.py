"""The hook's batched git reads: many files listed at once and read through one ``cat-file``.

A run lists the index and HEAD once for all its paths and reads every blob through the same
``git cat-file --batch``, so one answer read short or long would hand the next file another's
bytes. These tests read many files of every kind, in several orders, through real git, and
compare each with what ``git show`` says.
"""

from __future__ import annotations

import random
import subprocess
from pathlib import Path

import pytest
from hook_repo import BEFORE, RENAMED, GitRepo, make_repo, rename_proposal

from remask.cli import main
from remask.diffing.files import MAX_BYTES
from remask.hook.run import run_hook
from remask.hook.staged import GitError, Skip, StagedFiles, open_repo

MANY = 80  # past the 64 paths a listing takes as pathspecs: the whole index is read


def module(i: int, value: int) -> str:
    return (f'"""Module {i}."""\n\nLIMIT = {value}\n\n\n'
            "def scale(xs):\n    return [x * LIMIT for x in xs]\n")


def odd_blobs() -> dict[str, bytes]:
    """Blobs that would shift a reader that miscounts: empty, no final newline, header-like."""
    return {"empty.py": b"", "no_newline.py": b"x = 1", "newline.py": b"\n",
            "header_like.py": b"0" * 40 + b" blob 12\nx = 1\n", "a b.py": b"y = 2\n",
            "*.py": b"star = 1\n", "x[1].py": b"bracket = 1\n", "ünï.py": "u = 'é'\n".encode()}


def mixed_repo(repo: GitRepo) -> None:
    """Commit MANY modules and some odd files, then stage a mix of changes over them."""
    for i in range(MANY):
        repo.write(f"pkg{i % 7}/mod{i}.py", module(i, 1))
    repo.write("gone.py", "g = 1\n")
    repo.write("old.py", "".join(f"value_{i} = {i}\n" for i in range(30)))
    repo.commit()
    for i in (i for i in range(MANY) if i % 4):  # 3 in 4 modified: a literal, no follow-up
        repo.write(f"pkg{i % 7}/mod{i}.py", module(i, 2))
    for name, data in odd_blobs().items():
        repo.write(name, data)
    repo.write("huge.py", "# " + "x" * MAX_BYTES + "\n")  # over the cap, in the middle
    repo.write("binary.py", b"\x00\x01\x02")
    (repo.root / "link.py").symlink_to("gone.py")
    repo.git("rm", "-q", "gone.py")
    repo.git("mv", "old.py", "new.py")
    repo.git("add", ".")


def expected(repo: GitRepo, path: str) -> tuple[bytes, bytes | None]:
    """What ``git show`` gives for the staged blob of ``path`` and HEAD's (None: not there)."""
    def show(name: str) -> bytes:
        return subprocess.run(["git", "show", name], cwd=repo.root, check=True,
                              capture_output=True).stdout

    in_head = repo.git("ls-tree", "HEAD", "--", path)
    return show(f":{path}"), (show(f"HEAD:{path}") if in_head else None)


@pytest.mark.parametrize("object_format", ["sha1", "sha256"])
def test_every_file_reads_its_own_blobs_in_any_order(tmp_path: Path, monkeypatch,
                                                     object_format: str) -> None:
    repo = make_repo(tmp_path, monkeypatch, f"--object-format={object_format}")
    mixed_repo(repo)
    paths = [p for p in repo.git("ls-files", "-z").split("\0") if p.endswith(".py")]
    skips = {"huge.py": "over the 2,000,000-byte cap", "link.py": "not a regular file"}
    r = open_repo(repo.root)
    for order in range(3):
        random.Random(order).shuffle(paths)
        chosen = paths if order < 2 else paths[:10]  # the last: named paths as pathspecs
        staged = StagedFiles(r, chosen + ["untracked.py"])
        for path in chosen:
            if path in skips:
                with pytest.raises(Skip, match=skips[path]):
                    staged.read(path)
                continue
            got = staged.read(path)
            assert (got.data, got.head) == expected(repo, path), path
        with pytest.raises(Skip, match="not in the index"):
            staged.read("untracked.py")
    r.close()


def test_a_missing_object_is_an_error_and_the_next_read_works(repo_one: GitRepo) -> None:
    r = open_repo(repo_one.root)
    sha = repo_one.git("rev-parse", ":a.py").strip()
    with pytest.raises(GitError, match="missing"):
        r.blob("0" * len(sha), MAX_BYTES)
    assert r.blob(sha, MAX_BYTES) == b"x = 1\n"
    r.close()
    assert r.blob(sha, MAX_BYTES) == b"x = 1\n"  # a closed reader starts again
    r.close()


def test_git_dir_and_work_tree_reach_the_batch(repo_one: GitRepo, tmp_path: Path,
                                              monkeypatch) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.setenv("GIT_DIR", str(repo_one.root / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(repo_one.root))
    r = open_repo(elsewhere)
    assert StagedFiles(r, ["a.py"]).read("a.py").data == b"x = 1\n"
    r.close()


def test_a_batched_run_says_what_one_file_runs_say(tmp_path: Path, monkeypatch) -> None:
    """The whole staged set in one run gets the outcomes each file gets on its own."""
    repo = make_repo(tmp_path, monkeypatch)
    mixed_repo(repo)
    state = repo.git("ls-files", "--stage")
    together = {o.path: o.message for o in run_hook(repo.root, []).outcomes}
    assert len(together) > 64  # the whole index is listed, not pathspecs
    alone = {o.path: o.message for path in together
             for o in run_hook(repo.root, [path]).outcomes}
    assert together == alone
    assert together["huge.py"].startswith("skipped: staged version: 2,000,003 bytes")
    assert together["new.py"] == "nothing to do"  # renamed, and nothing imports it
    assert together["pkg1/mod1.py"] == "nothing to do"
    assert repo.git("ls-files", "--stage") == state


@pytest.mark.slow
def test_many_files_with_a_mix_of_changes(tmp_path: Path, monkeypatch, engine, capsys) -> None:
    """Among many staged files, the renames are followed up in each, each written its own way.

    ``totals.py`` is rewritten in the index and the working tree; ``crlf.py`` (``eol=crlf``)
    too, with the CRLF checkout gives it; ``partial.py`` has unstaged work, so only its index
    is rewritten. The rest are left byte for byte.
    """
    repo = make_repo(tmp_path, monkeypatch)
    expected_text = rename_proposal(engine).text
    repo.write(".gitattributes", "crlf.py text eol=crlf\n")
    names = ("totals.py", "crlf.py", "partial.py")
    for name in names:
        repo.write(name, BEFORE)
    mixed_repo(repo)
    for name in names:
        repo.write(name, RENAMED)
    repo.write("crlf.py", RENAMED.replace("\n", "\r\n"))  # as checkout wrote it: no change
    repo.git("add", *names)
    unstaged = RENAMED + "\n# unstaged work\n"
    repo.write("partial.py", unstaged)
    others = {p: repo.read(p) for p in repo.git("ls-files", "-z").split("\0")
              if p.endswith(".py") and p not in names and (repo.root / p).is_file()}

    assert main(["hook", "run"]) == 1
    out = capsys.readouterr().out
    assert "rewrote 3 files" in out
    for name in names:
        assert repo.staged(name).decode() == expected_text, name
    assert repo.read("totals.py").decode() == expected_text
    assert repo.read("crlf.py") == expected_text.replace("\n", "\r\n").encode()
    assert repo.read("partial.py") == unstaged.encode()
    assert {p: repo.read(p) for p in others} == others
    assert main(["hook", "run"]) == 0


@pytest.fixture
def repo_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> GitRepo:
    repo = make_repo(tmp_path, monkeypatch)
    repo.write("a.py", "x = 1\n")
    repo.git("add", "a.py")
    return repo


def test_a_renamed_file_reads_its_head_version_from_its_old_path(tmp_path: Path,
                                                                   monkeypatch) -> None:
    repo = make_repo(tmp_path, monkeypatch)
    repo.write("old.py", "x = 1\n")
    repo.commit()
    repo.git("mv", "old.py", "new.py")
    repo.write("new.py", "x = 2\n")
    repo.git("add", "new.py")
    r = open_repo(repo.root)
    staged = StagedFiles(r, ["new.py"], {"new.py": "old.py"}).read("new.py")
    assert (staged.data, staged.head) == (b"x = 2\n", b"x = 1\n")  # the edit is the rename's
    assert StagedFiles(r, ["new.py"]).read("new.py").head is None
    r.close()
