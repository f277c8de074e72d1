"""What a commit is about to record: staged blobs against HEAD, read and written through git.

Index reads and writes go through git's own plumbing (``ls-files``, ``update-index``) rather than
GitPython's in-process ``IndexFile``: git takes the index lock, keeps every index extension it
knows, and honours ``GIT_INDEX_FILE``, which ``git commit -a`` and ``git commit PATHS`` point at
a temporary index while the pre-commit hook runs. GitPython gives us the repository, the object
database and the command runner.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

import git
from gitdb import IStream

from remask.diffing.files import MAX_BYTES

PYTHON_SUFFIXES = (".py", ".pyi")
REGULAR_MODES = ("100644", "100755")

# Files git leaves in its directory while a multi-commit operation waits for the user.
_IN_PROGRESS = (
    ("MERGE_HEAD", "merge"),
    ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
)


class GitError(Exception):
    """The repository as a whole cannot be worked on; the message is one line for the user."""


class Skip(Exception):
    """One file is left alone; the message says why in a few words (the caller names the file)."""


@dataclass(frozen=True)
class StagedFile:
    """One path's staged blob, and HEAD's version of it (None when the commit adds the path)."""

    path: str  # repository-relative, with forward slashes, as git spells it
    mode: str
    sha: str
    data: bytes
    head: bytes | None


def open_repo(start: Path) -> git.Repo:
    """Open the non-bare repository containing ``start``."""
    try:
        repo = git.Repo(start, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        raise GitError(f"{start}: not a git repository") from None
    if repo.bare or repo.working_tree_dir is None:
        raise GitError(f"{repo.git_dir}: bare repository (no working tree)")
    return repo


def operation_in_progress(repo: git.Repo) -> str | None:
    """Name the merge, rebase, cherry-pick or revert waiting to be finished, if any.

    Its commits record the user's conflict resolutions and other people's work, not an edit
    remask should follow up, so the hook stands aside until it is over.
    """
    gitdir = Path(repo.git_dir)
    return next((name for entry, name in _IN_PROGRESS if (gitdir / entry).exists()), None)


def staged_status(repo: git.Repo) -> dict[str, tuple[str, str | None]]:
    """Map every path the index changes against HEAD: path -> (status letter, renamed-from path).

    Letters are git's: A(dded), M(odified), D(eleted), R(enamed), T(ype changed), U(nmerged).
    On an unborn branch every staged path is an addition.
    """
    out = _git(repo, "diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff")
    fields, status = out.split("\0"), {}
    i = 0
    while i + 1 < len(fields):
        letter = fields[i][:1]
        if letter in "RC":
            status[fields[i + 2]] = (letter, fields[i + 1])
            i += 3
        else:
            status[fields[i + 1]] = (letter, None)
            i += 2
    return status


def relative_path(repo: git.Repo, name: str, cwd: Path) -> str:
    """Spell ``name`` (typed relative to ``cwd`` by the user or pre-commit) as git does."""
    root = Path(repo.working_tree_dir).resolve()
    full = (cwd / name).absolute()
    try:
        return Path(os.path.normpath(full)).relative_to(root).as_posix()
    except ValueError:
        # A symlinked checkout: resolve both sides before giving up.
        try:
            return full.resolve().relative_to(root).as_posix()
        except ValueError:
            raise Skip("outside the repository") from None


def read_staged(repo: git.Repo, path: str) -> StagedFile:
    """Read the staged blob of ``path`` and HEAD's version; Skip when there is nothing to edit."""
    entry = _index_entry(repo, path)
    if entry is None:
        raise Skip("not in the index")
    mode, sha, stage = entry
    if stage != "0":
        raise Skip("unmerged (resolve the conflict first)")
    if mode not in REGULAR_MODES:
        raise Skip(f"not a regular file (mode {mode})")
    return StagedFile(path, mode, sha, _blob(repo, bytes.fromhex(sha), "staged version"),
                      _head_blob(repo, path))


def temporary_index() -> bool:
    """Tell whether git handed us a temporary index (``git commit -a`` or ``git commit PATHS``).

    Git discards that index when the hook fails, so a rewrite survives only in the working tree.
    """
    name = os.environ.get("GIT_INDEX_FILE")
    return name is not None and Path(name).name != "index"


def worktree_matches(repo: git.Repo, staged: StagedFile) -> bool:
    """Tell whether the working-tree file holds exactly the staged bytes (no unstaged work)."""
    file = Path(repo.working_tree_dir, staged.path)
    try:
        return not file.is_symlink() and file.read_bytes() == staged.data
    except OSError:
        return False


def write_index(repo: git.Repo, staged: StagedFile, data: bytes) -> None:
    """Stage ``data`` as the new blob of ``staged.path``, keeping its mode.

    Refuses when the entry changed since it was read, so a concurrent ``git add`` is never
    overwritten. The old blob stays in the object database either way.
    """
    entry = _index_entry(repo, staged.path)
    if entry is None or entry[1] != staged.sha:
        raise GitError(f"{staged.path}: the index changed while remask ran; nothing written")
    blob = repo.odb.store(IStream("blob", len(data), BytesIO(data)))
    _git(repo, "update-index", "--cacheinfo", f"{staged.mode},{blob.hexsha.decode()},{staged.path}")


def _index_entry(repo: git.Repo, path: str) -> tuple[str, str, str] | None:
    """Return (mode, sha, stage) of ``path`` in the index; the first stage when it is unmerged."""
    out = _git(repo, "ls-files", "--stage", "-z", "--full-name", "--", f":(literal){path}")
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        if name == path:
            mode, sha, stage = meta.split()
            return mode, sha, stage
    return None


def _blob(repo: git.Repo, binsha: bytes, label: str) -> bytes:
    """Read a blob, refusing one over the size cap before it is loaded into memory."""
    size = repo.odb.info(binsha).size
    if size > MAX_BYTES:
        raise Skip(f"{label}: {size:,} bytes is over the {MAX_BYTES:,}-byte cap")
    return repo.odb.stream(binsha).read()


def _head_blob(repo: git.Repo, path: str) -> bytes | None:
    if not repo.head.is_valid():
        return None  # unborn branch: the first commit adds every file
    try:
        obj = repo.head.commit.tree / path
    except KeyError:
        return None
    return _blob(repo, obj.binsha, "HEAD's version") if obj.type == "blob" else None


def _git(repo: git.Repo, command: str, *args: str) -> str:
    """Run one git command, turning its failure (say, a held index lock) into one line."""
    try:
        return getattr(repo.git, command.replace("-", "_"))(*args, strip_newline_in_stdout=False)
    except git.GitCommandError as e:
        text = str(e.stderr).strip().removeprefix("stderr:").strip().strip("'")
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        detail = lines[0] if lines else f"exit status {e.status}"
        raise GitError(f"git {command} failed: {detail}") from None
