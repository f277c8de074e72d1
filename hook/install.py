"""Installing remask as the repository's own ``pre-commit`` hook, and taking it out again.

The hook is a short shell script that runs ``remask hook run`` with the interpreter remask was
installed into, so it works from any shell, GUI or IDE that commits. Git starts hooks at the top
of the working tree, and ``python -m`` would put that directory first on ``sys.path``, where a
project's own ``git.py`` or ``logging.py`` would shadow what remask imports (or run at every
commit); ``-P`` (Python 3.11+, as remask requires) leaves it off.

A hook remask did not write is never replaced silently: ``force`` moves it aside to
``pre-commit.remask-saved``, and uninstalling puts it back. "Written by remask" means the whole
file is one of the scripts remask writes or wrote; a hand-made hook that calls remask among
other checks is someone else's.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from pathlib import Path

from remask.diffing.files import atomic_write

from .staged import GitError, Repo

SIGNATURE = "# remask pre-commit hook"
SAVED = "pre-commit.remask-saved"
_HEADER = (f"#!/bin/sh\n{SIGNATURE} (`remask hook install`; remove with "
           "`remask hook uninstall`)\n")
# Every script remask has written: the header, then one exec line. Without -P: before the fix
# that keeps the repository's own modules off sys.path.
_OURS = re.compile(re.escape(_HEADER) + r"exec [^\n]+ (-P )?-m remask\.cli hook run\n")


def hook_path(repo: Repo) -> Path:
    """Return where git looks for this repository's pre-commit hook (honours ``core.hooksPath``)."""
    hooks = repo.text("rev-parse", "--git-path", "hooks").rstrip("\n")
    return Path(repo.working_tree_dir, hooks) / "pre-commit"


def script() -> str:
    """Return the hook script: this interpreter running ``remask hook run`` on staged files."""
    return f"{_HEADER}exec {shlex.quote(sys.executable)} -P -m remask.cli hook run\n"


def is_ours(path: Path) -> bool:
    """Tell whether ``path`` is a script remask wrote (never a symlink: that is someone's)."""
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return not path.is_symlink() and _OURS.fullmatch(text) is not None


def install(repo: Repo, force: bool = False) -> str:
    """Write the hook and return one line saying what was done. GitError when it refuses."""
    path = hook_path(repo)
    try:
        return _install(path, force)
    except OSError as e:
        raise GitError(f"{e.filename or path}: {e.strerror}") from None


def uninstall(repo: Repo) -> str:
    """Remove remask's hook, restoring one moved aside by ``install(force=True)``."""
    path = hook_path(repo)
    if not _present(path):
        return f"{path}: no pre-commit hook installed"
    if not is_ours(path):
        raise GitError(f"{path}: not remask's hook; left in place")
    saved = path.with_name(SAVED)
    try:
        if _present(saved):
            os.replace(saved, path)
            return f"removed remask's hook from {path} and restored the previous one"
        path.unlink()
    except OSError as e:
        raise GitError(f"{e.filename or path}: {e.strerror}") from None
    return f"removed {path}"


def _install(path: Path, force: bool) -> str:
    if path.parent.exists() and not path.parent.is_dir():
        raise GitError(f"{path.parent}: not a directory (see core.hooksPath)")
    saved = ""
    if _present(path) and not is_ours(path):
        if not force:
            raise GitError(f"{path}: a pre-commit hook remask did not write is there; "
                           "rerun with --force to move it aside")
        keep = path.with_name(SAVED)
        if _present(keep):  # moving this one aside would lose the one kept before
            raise GitError(f"{keep} already holds an earlier hook; move it away, then rerun")
        os.replace(path, keep)  # a symlink moves as a link: its target is not touched
        saved = f" (the previous hook is kept as {SAVED})"
    path.parent.mkdir(parents=True, exist_ok=True)
    atomic_write(path, script())
    path.chmod(0o755)
    return f"installed {path}{saved}"


def _present(path: Path) -> bool:
    """Tell whether anything is at ``path``, a symlink to nowhere included."""
    return path.exists() or path.is_symlink()
