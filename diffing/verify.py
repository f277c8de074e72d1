"""The verifier: run the user's command (``pytest -q tests/test_x.py``) on a temp copy.

A proposal that parses can still be wrong; when the user names a command, each candidate is
written into a throw-away copy of the project and the first one whose command exits 0 wins.
The user's own files are never touched, and a hung command is killed at the timeout.
"""

from __future__ import annotations

import shutil
import subprocess
import tempfile
from pathlib import Path

_IGNORE = shutil.ignore_patterns(".git", ".venv", "venv", "__pycache__", "node_modules",
                                 ".mypy_cache", ".ruff_cache", ".pytest_cache")


def project_root(path: str | Path) -> Path:
    """Return the directory copied for a check: the working directory when it holds ``path``."""
    path, cwd = Path(path).resolve(), Path.cwd().resolve()
    return cwd if cwd in path.parents else path.parent


def passes(command: str, path: str | Path, text: str, timeout: float = 600.0) -> bool:
    """Return whether ``command`` exits 0 in a copy of the project with ``path`` set to ``text``."""
    root = project_root(path)
    rel = Path(path).resolve().relative_to(root)
    with tempfile.TemporaryDirectory(prefix="remask-verify-") as tmp:
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, ignore=_IGNORE, symlinks=True)
        (copy / rel).parent.mkdir(parents=True, exist_ok=True)
        (copy / rel).write_bytes(text.encode("utf-8"))
        try:
            done = subprocess.run(command, shell=True, cwd=copy, timeout=timeout,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            return False
    return done.returncode == 0
