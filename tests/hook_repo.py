"""A real git repository in a temp dir for the hook tests, driven by the git CLI."""

from __future__ import annotations

import os
import subprocess
from functools import cache
from pathlib import Path

import pytest

from remask.diffing.proposal import Proposal
from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.infill.engine import Engine

# A commit that renames a function and leaves two of its call sites behind.
BEFORE = '''"""Totals."""


def total(xs):
    return sum(xs)


def report(xs):
    return f"total: {total(xs)}"


print(total([1, 2]))
'''
RENAMED = BEFORE.replace("def total", "def grand_total")

# Variables a surrounding git (say, this project's own hook running pytest) would leak into
# the temp repositories.
_GIT_ENV = ("GIT_DIR", "GIT_INDEX_FILE", "GIT_WORK_TREE", "GIT_PREFIX", "GIT_OBJECT_DIRECTORY",
            "GIT_COMMON_DIR", "PRE_COMMIT")


class GitRepo:
    def __init__(self, root: Path, *init_args: str, init: bool = True) -> None:
        """``init=False``: the repository is found elsewhere (GIT_DIR); only configure it."""
        self.root = root
        root.mkdir(parents=True, exist_ok=True)
        if init:
            self.git("init", "-q", "-b", "main", *init_args)
        self.git("config", "user.name", "Test")
        self.git("config", "user.email", "test@example.com")
        self.git("config", "commit.gpgsign", "false")

    def git(self, *args: str, check: bool = True, env: dict | None = None) -> str:
        run = subprocess.run(["git", *args], cwd=self.root, capture_output=True,
                             env={**os.environ, **(env or {})})
        if check and run.returncode:
            raise AssertionError(f"git {' '.join(args)}: {run.stderr.decode()}")
        return run.stdout.decode()

    def write(self, path: str, data: str | bytes) -> None:
        file = self.root / path
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_bytes(data.encode() if isinstance(data, str) else data)

    def read(self, path: str) -> bytes:
        return (self.root / path).read_bytes()

    def staged(self, path: str) -> bytes:
        return subprocess.run(["git", "show", f":{path}"], cwd=self.root, check=True,
                              capture_output=True).stdout

    def stage_rename(self) -> None:
        """Commit BEFORE as totals.py, then stage RENAMED over it."""
        self.write("totals.py", BEFORE)
        self.commit()
        self.write("totals.py", RENAMED)
        self.git("add", "totals.py")

    def commit(self, *paths: str, message: str = "commit") -> None:
        self.git("add", *(paths or (".",)))
        self.git("commit", "-q", "--no-verify", "-m", message)


@cache
def rename_proposal(engine: Engine) -> Proposal:
    """What the Rewriter proposes for BEFORE -> RENAMED: the hook must write exactly this."""
    rewriter = Rewriter(engine, RewriterConfig(sampler=engine.sampler))
    [proposal] = rewriter.propose(BEFORE, RENAMED, "totals.py")
    assert proposal.kind == "rename" and proposal.text != RENAMED
    return proposal


def make_repo(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, *init_args: str) -> GitRepo:
    """An empty repository, made the current directory, with no outside git config leaking in.

    ``init_args`` go to ``git init`` (say, ``--object-format=sha256``).
    """
    for name in _GIT_ENV:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(tmp_path / "gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    r = GitRepo(tmp_path / "repo", *init_args)
    monkeypatch.chdir(r.root)
    return r
