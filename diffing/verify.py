"""The verifier: run the user's command (``pytest -q tests/test_x.py``) on a temp copy.

A proposal that parses can still be wrong; when the user names a command, each candidate is
written into a throw-away copy of the project and the first one whose command exits 0 wins.
The user's own files are never touched, and a hung command is killed at the timeout with
every process it started.
"""

from __future__ import annotations

import os
import shutil
import signal
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
        return _run(command, copy, timeout) == 0


def _run(command: str, cwd: Path, timeout: float) -> int | None:
    """Run ``command`` in a session of its own; its exit code, None past the timeout.

    The shell's children are killed with it, at the timeout and after it exits: killing the
    shell alone left them running (a fill with ``while True:`` under ``python -m doctest``
    spun on, orphaned, one per candidate, 7.6 GB for one of them; session 35).
    """
    proc = subprocess.Popen(command, shell=True, cwd=cwd, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        return None
    finally:
        kill_group(proc)


def kill_group(proc: subprocess.Popen) -> None:
    """Kill the process group ``proc`` leads (started with ``start_new_session``) and reap it."""
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    proc.wait()
