"""The verifier: run the user's command (``pytest -q tests/test_x.py``) on a temp copy.

A proposal that parses can still be wrong; when the user names a command, each candidate is
written into a throw-away copy of the project and the first one whose command exits 0 wins.
The project is copied once for all of a proposal's candidates (:class:`Checkout`), not once a
candidate: 32 copies of a big project cost more than the command. The user's own files are
never touched, and a hung command is killed at the timeout with every process it started.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

_IGNORE = shutil.ignore_patterns(".git", ".venv", "venv", "__pycache__", "node_modules",
                                 ".mypy_cache", ".ruff_cache", ".pytest_cache")


# What marks a project's top: the nearest directory above a file holding one is copied.
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", "tox.ini", ".git")


def project_root(path: str | Path) -> tuple[Path, Path]:
    """Return the directory copied for a check, and the one in it the command runs from.

    The copy is the file's project: the nearest directory above it that holds a
    ``pyproject.toml``, ``setup.py``, ``setup.cfg``, ``tox.ini`` or ``.git``, else the file's
    own directory — never the working directory merely because it holds the file (run from
    a home directory, that copied all of it). The command runs where the user is when that
    is inside the project, so paths in it read as typed; else at the project's top.
    """
    path, cwd = Path(path).resolve(), Path.cwd().resolve()
    root = next((d for d in path.parents if any((d / m).exists() for m in _PROJECT_MARKERS)),
                path.parent)
    return root, cwd if cwd == root or root in cwd.parents else root


class Checkout:
    """A temp copy of ``path``'s project, into which candidates for ``path`` go one by one.

    Each candidate's file gets an mtime a whole second after the one before: bytecode caches
    (Python's ``.pyc``, pytest's rewritten tests) key on the source's size and its mtime in
    seconds, so two candidates of one size written within a second would otherwise run the
    first one's cached code. What the command itself leaves in the copy stays for the next.
    """

    def __init__(self, command: str, path: str | Path, timeout: float = 600.0) -> None:
        self.command, self.timeout = command, timeout
        self._root, where = project_root(path)
        self._rel = Path(path).resolve().relative_to(self._root)
        self._where = where.relative_to(self._root)
        self._runs = 0

    def __enter__(self) -> Checkout:
        self._tmp = tempfile.TemporaryDirectory(prefix="remask-verify-")
        self._copy = Path(self._tmp.name) / self._root.name
        try:
            shutil.copytree(self._root, self._copy, ignore=_IGNORE, symlinks=True)
        except BaseException:  # __exit__ is not called when __enter__ fails
            self._tmp.cleanup()
            raise
        target = self._copy / self._rel
        target.parent.mkdir(parents=True, exist_ok=True)
        self._mtime = int(target.stat().st_mtime) if target.exists() else 0
        return self

    def __exit__(self, *exc: object) -> None:
        self._tmp.cleanup()

    def passes(self, text: str) -> bool:
        """Return whether the command exits 0 with ``path`` set to ``text`` in the copy."""
        self._runs += 1
        target = self._copy / self._rel
        target.write_bytes(text.encode("utf-8"))
        stamp = self._mtime + self._runs
        os.utime(target, (stamp, stamp))
        return _run(self.command, self._copy / self._where, self.timeout) == 0


def by_rank_sum(sizes: list[int]) -> Iterator[tuple[int, ...]]:
    """Every choice of one rank per slot (``sizes[i]`` ranks in slot ``i``), lowest sum first.

    The order a verifier tries several holes' candidates in: the top picks, then each hole's
    second with the rest at their top, then the thirds and the pairs of seconds, and so on;
    lazily, since a caller stops at its first pass and the product can be huge.
    """
    def parts(total: int, slots: list[int]) -> Iterator[tuple[int, ...]]:
        if not slots:
            if total == 0:
                yield ()
            return
        for k in range(min(total, slots[0] - 1), -1, -1):
            for rest in parts(total - k, slots[1:]):
                yield (k, *rest)

    if not sizes or min(sizes) < 1:
        return
    for total in range(sum(sizes) - len(sizes) + 1):
        yield from parts(total, sizes)


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
