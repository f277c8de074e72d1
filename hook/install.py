"""Installing remask as the repository's own ``pre-commit`` hook, and taking it out again.

The hook is a two-line shell script that runs ``remask hook run`` with the interpreter remask
was installed into, so it works from any shell, GUI or IDE that commits. A hook remask did not
write is never replaced silently: ``force`` moves it aside to ``pre-commit.remask-saved``, and
uninstalling puts it back.
"""

from __future__ import annotations

import os
import shlex
import sys
from pathlib import Path

import git

from remask.diffing.files import atomic_write

from .staged import GitError

SIGNATURE = "# remask pre-commit hook"
SAVED = "pre-commit.remask-saved"


def hook_path(repo: git.Repo) -> Path:
    """Return where git looks for this repository's pre-commit hook (honours ``core.hooksPath``)."""
    try:
        hooks = repo.git.rev_parse("--git-path", "hooks")
    except git.GitCommandError:
        raise GitError("git rev-parse --git-path hooks failed") from None
    return Path(repo.working_tree_dir, hooks) / "pre-commit"


def script() -> str:
    """Return the hook script: this interpreter running ``remask hook run`` on staged files."""
    python = shlex.quote(sys.executable)
    return (f"#!/bin/sh\n{SIGNATURE} (`remask hook install`; remove with "
            f"`remask hook uninstall`)\nexec {python} -m remask.cli hook run\n")


def is_ours(path: Path) -> bool:
    try:
        return SIGNATURE in path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False


def install(repo: git.Repo, force: bool = False) -> str:
    """Write the hook and return one line saying what was done. GitError when it refuses."""
    path = hook_path(repo)
    saved = ""
    if path.exists() and not is_ours(path):
        if not force:
            raise GitError(f"{path}: a pre-commit hook remask did not write is there; "
                           "rerun with --force to move it aside")
        os.replace(path, path.with_name(SAVED))
        saved = f" (the previous hook is kept as {SAVED})"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, script())
    path.chmod(0o755)
    return f"installed {path}{saved}"


def uninstall(repo: git.Repo) -> str:
    """Remove remask's hook, restoring one moved aside by ``install(force=True)``."""
    path = hook_path(repo)
    if not path.exists():
        return f"{path}: no pre-commit hook installed"
    if not is_ours(path):
        raise GitError(f"{path}: not remask's hook; left in place")
    saved = path.with_name(SAVED)
    if saved.exists():
        os.replace(saved, path)
        return f"removed remask's hook from {path} and restored the previous one"
    path.unlink()
    return f"removed {path}"
