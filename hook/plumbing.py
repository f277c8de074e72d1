"""Running git for the hook: one-shot commands, and one ``cat-file --batch`` for a whole run.

Starting a git process costs milliseconds, more than anything the hook does with a file that
needs no change, so a run starts a fixed handful of them whatever the number of files: the
listings take every path in one call, and every blob is one request to the same long-lived
``git cat-file --batch``.

GitPython's own persistent ``cat-file`` (``Git.get_object_data``, and the ``odb`` built on it)
is not used: it takes any object name that is not 40 characters long for an error, so it
cannot read a SHA-256 repository, and it reads a blob whatever its size. Its command runner
is used for every process, so all of them start the same way.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO

import git


class GitError(Exception):
    """The repository as a whole cannot be worked on; the message is one line for the user."""


class TooLarge(Exception):
    """A blob is over the size cap the reader was given; it was not read."""

    def __init__(self, size: int) -> None:
        super().__init__(f"{size:,} bytes")
        self.size = size


@dataclass(frozen=True)
class Repo:
    """A repository with a working tree, as git itself found it from where the hook started.

    Every command runs at the top of the working tree with ``GIT_DIR`` and ``GIT_WORK_TREE``
    set to what git found, so a relative ``GIT_DIR`` from the caller cannot point elsewhere.
    Blobs are read through one ``cat-file --batch`` started at the first read; ``close`` ends
    it (so does the end of the process).
    """

    working_tree_dir: str
    git_dir: str
    _batch: _CatFile = field(default_factory=lambda: _CatFile(), init=False, repr=False,
                             compare=False)

    def env(self) -> dict[str, str]:
        """Return our environment with the repository git found spelled out (for children)."""
        return {**os.environ, "GIT_DIR": self.git_dir, "GIT_WORK_TREE": self.working_tree_dir}

    def run(self, *args: str, input: bytes | None = None) -> bytes:
        """Run one git command and return its stdout; GitError with git's first line on failure."""
        return run_git(["git", *args], self.working_tree_dir, self.env(), input)

    def text(self, *args: str, input: bytes | None = None) -> str:
        """``run`` for output that holds paths: decoded as the file system spells names."""
        return os.fsdecode(self.run(*args, input=input))

    def blob(self, sha: str, cap: int) -> bytes:
        """Read blob ``sha``; TooLarge, before it is loaded, when it is over ``cap`` bytes."""
        return self._batch.read(self, sha, cap)

    def close(self) -> None:
        """End the ``cat-file --batch`` process, if one was started."""
        self._batch.close()


class _CatFile:
    """The run's ``git cat-file --batch``: an object name per line in, header and bytes out.

    One request is answered before the next is sent, so neither pipe can fill up while the
    other waits. A blob over the cap is not drained through the pipe: the process is ended
    and the next read starts another.
    """

    def __init__(self) -> None:
        self._proc: git.Git.AutoInterrupt | None = None

    def read(self, repo: Repo, sha: str, cap: int) -> bytes:
        if not sha or any(c.isspace() for c in sha):
            raise GitError(f"git cat-file failed: bad object name {sha!r}")
        proc = self._proc or self._start(repo)
        stdin, stdout = _pipes(proc)
        try:
            stdin.write(sha.encode("ascii") + b"\n")
            stdin.flush()
            header = stdout.readline()
        except (OSError, ValueError):
            header = b""
        fields = header.split()
        if (len(fields) != 3 or fields[0].decode(errors="replace") != sha
                or not fields[2].isdigit()):
            raise self._failed(header)
        size = int(fields[2])
        if fields[1] != b"blob":
            self.close()
            raise GitError(f"git cat-file failed: {sha} is a {fields[1].decode()}, not a blob")
        if size > cap:
            self.close()
            raise TooLarge(size)
        data = stdout.read(size + 1)  # the blob, then the newline that ends the answer
        if len(data) != size + 1:
            raise self._failed(b"")
        return data[:-1]

    def close(self) -> str:
        """End the process; return the first line it wrote to stderr, if any.

        Its stdout is closed before the wait: a process still writing a blob over the cap
        then stops at once instead of filling the pipe.
        """
        proc, self._proc = self._proc, None
        if proc is None:
            return ""
        popen = proc.proc
        for pipe in (popen.stdin, popen.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:  # its end of the pipe is gone already
                pass
        try:
            popen.wait(timeout=5)
        except subprocess.TimeoutExpired:
            popen.kill()
            popen.wait()
        err = popen.stderr.read() if popen.stderr else b""
        if popen.stderr:
            popen.stderr.close()
        return _first_line(err)

    def _start(self, repo: Repo) -> git.Git.AutoInterrupt:
        try:
            self._proc = git.Git(repo.working_tree_dir).execute(
                ["git", "cat-file", "--batch"], as_process=True, istream=subprocess.PIPE,
                env=repo.env())
        except git.GitCommandNotFound as e:
            raise GitError(f"cannot run git: {e}") from None
        return self._proc

    def _failed(self, header: bytes) -> GitError:
        """End the process and say why it answered ``header`` (``<name> missing``, or nothing)."""
        err = self.close()
        why = header.decode(errors="replace").strip() or err or "the process ended"
        return GitError(f"git cat-file failed: {why}")


def _pipes(proc: git.Git.AutoInterrupt) -> tuple[IO[bytes], IO[bytes]]:
    stdin, stdout = proc.proc.stdin, proc.proc.stdout
    if stdin is None or stdout is None:  # as_process with istream=PIPE always has both
        raise GitError("git cat-file failed: no pipes")
    return stdin, stdout


def rev_parse(start: Path, option: str) -> str:
    """Ask git where the repository is from ``start``, as the commit itself would find it."""
    return os.fsdecode(run_git(["git", "rev-parse", option], start, None, None)).strip()


def run_git(argv: list[str], cwd: str | Path, env: dict[str, str] | None,
            input: bytes | None) -> bytes:
    """Run git through GitPython's command runner; its failure (a held index lock) is one line.

    ``env`` is added to this process's environment; stdin is a file, as the runner wants.
    """
    with tempfile.TemporaryFile() as stdin:
        stdin.write(input or b"")
        stdin.seek(0)
        try:
            status, out, err = git.Git(cwd).execute(
                argv, istream=stdin, env=env, with_extended_output=True, with_exceptions=False,
                stdout_as_string=False, strip_newline_in_stdout=False)
        except git.GitCommandNotFound as e:
            raise GitError(f"cannot run git: {e}") from None
    if status:
        why = _first_line(err) or f"exit status {status}"
        raise GitError(f"git {argv[1]} failed: {why}")
    return out


def _first_line(err: str | bytes) -> str:
    text = err.decode(errors="replace") if isinstance(err, bytes) else err
    return next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
