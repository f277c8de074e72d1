"""What a commit is about to record: staged blobs against HEAD, read and written through git.

Everything goes through git's own plumbing (``rev-parse``, ``ls-files``, ``cat-file``,
``hash-object``, ``update-index``, run by GitPython's command runner) rather than GitPython's
in-process object database, which reads SHA-1 repositories only and applies no filters: git
finds the repository as it does for the commit itself (``GIT_DIR`` and ``GIT_WORK_TREE``
included, so a bare "dotfiles" repository works), takes the index lock, keeps every index
extension it knows, honours ``GIT_INDEX_FILE`` (``git commit -a`` and ``git commit PATHS`` point
it at a temporary index while the pre-commit hook runs), reads SHA-256 repositories, and
applies the same clean and smudge filters (``core.autocrlf``, ``eol``, ``filter=``) as
``git add`` and checkout do.

A run starts a fixed handful of git processes, not a few per file (see ``plumbing``): the index
and HEAD entries of all its paths are listed up front, and the blobs come from one
``cat-file --batch``.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from remask.diffing.files import MAX_BYTES

from .plumbing import GitError, Repo, TooLarge, rev_parse

PYTHON_SUFFIXES = (".py", ".pyi")
REGULAR_MODES = ("100644", "100755")
# Past this many paths (or characters of them) a listing reads everything (see _pathspecs).
_MAX_PATHSPECS = 64
_MAX_PATHSPEC_CHARS = 16_000

# Files git leaves in its directory while a multi-commit operation waits for the user.
_IN_PROGRESS = (
    ("MERGE_HEAD", "merge"),
    ("rebase-merge", "rebase"),
    ("rebase-apply", "rebase"),
    ("CHERRY_PICK_HEAD", "cherry-pick"),
    ("REVERT_HEAD", "revert"),
)


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


def open_repo(start: Path) -> Repo:
    """Open the repository that git finds from ``start`` (``GIT_DIR`` too); it needs a work tree."""
    try:
        git_dir = rev_parse(start, "--absolute-git-dir")
    except GitError:
        raise GitError(f"{start}: not a git repository") from None
    try:
        top = rev_parse(start, "--show-toplevel")
    except GitError:
        bare = rev_parse(start, "--is-bare-repository") == "true"
        why = "bare repository (no working tree)" if bare else "not inside the working tree"
        raise GitError(f"{git_dir}: {why}") from None
    return Repo(top, git_dir)


def operation_in_progress(repo: Repo) -> str | None:
    """Name the merge, rebase, cherry-pick or revert waiting to be finished, if any.

    Its commits record the user's conflict resolutions and other people's work, not an edit
    remask should follow up, so the hook stands aside until it is over.
    """
    gitdir = Path(repo.git_dir)
    return next((name for entry, name in _IN_PROGRESS if (gitdir / entry).exists()), None)


def staged_status(repo: Repo) -> dict[str, tuple[str, str | None]]:
    """Map every path the index changes against HEAD: path -> (status letter, renamed-from path).

    Letters are git's: A(dded), M(odified), D(eleted), R(enamed), T(ype changed), U(nmerged).
    On an unborn branch every staged path is an addition.
    """
    out = repo.text("diff", "--cached", "--name-status", "-z", "-M", "--no-ext-diff")
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


def relative_path(repo: Repo, name: str, cwd: Path) -> str:
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


class StagedFiles:
    """The staged and HEAD versions of the paths one run works on.

    The index entries and HEAD's entries of all the paths are listed once, when this is made;
    each ``read`` then costs two requests to the run's ``cat-file --batch`` and no process.
    The entries are a snapshot: a file staged again meanwhile is caught when its new blob is
    written (``write_index`` compares the entry first), as it was when each file was listed
    just before its read.
    """

    def __init__(self, repo: Repo, paths: Iterable[str],
                 renamed: Mapping[str, str] | None = None) -> None:
        """``renamed``: a renamed path's name in HEAD (its HEAD version is read from there)."""
        paths = list(paths)
        self.repo = repo
        self._renamed = dict(renamed or {})
        self._index = _index_entries(repo, paths)
        self._head = _head_entries(repo, paths + [self._renamed[p] for p in paths
                                                  if p in self._renamed])

    def read(self, path: str) -> StagedFile:
        """Read ``path``'s staged blob and HEAD's; Skip when there is nothing to edit."""
        entry = self._index.get(path)
        if entry is None:
            raise Skip("not in the index")
        mode, sha, stage = entry
        if stage != "0":
            raise Skip("unmerged (resolve the conflict first)")
        if mode not in REGULAR_MODES:
            raise Skip(f"not a regular file (mode {mode})")
        data = _blob(self.repo, sha, "staged version")
        head = self._head.get(self._renamed.get(path, path))
        return StagedFile(path, mode, sha, data,
                          None if head is None else _blob(self.repo, head, "HEAD's version"))


def read_staged(repo: Repo, path: str) -> StagedFile:
    """Read the staged blob of ``path`` and HEAD's version; Skip when there is nothing to edit."""
    return StagedFiles(repo, [path]).read(path)


def temporary_index() -> bool:
    """Tell whether git handed us a temporary index (``git commit -a``, ``-p``, ``-i``, PATHS).

    Git discards that index when the hook fails, so a rewrite survives only in the working tree.
    """
    name = os.environ.get("GIT_INDEX_FILE")
    return name is not None and Path(name).name != "index"


def worktree_text(repo: Repo, staged: StagedFile) -> str | None:
    """Return the working-tree file's text when it holds the staged blob (no unstaged work).

    The bytes are compared as ``git add`` would stage them, through the clean filter: with
    ``core.autocrlf`` or an ``eol``/``filter`` attribute the file on disk never equals the blob
    byte for byte. None for unstaged work, a file that is gone, a symlink, or no UTF-8 text.
    """
    file = Path(repo.working_tree_dir, staged.path)
    try:
        if file.is_symlink():
            return None
        data = file.read_bytes()
        if data != staged.data and _hash(repo, data, staged.path) != staged.sha:
            return None
        return data.decode("utf-8")
    except (OSError, UnicodeDecodeError, GitError):
        return None


def worktree_matches(repo: Repo, staged: StagedFile) -> bool:
    """Tell whether the working-tree file holds the staged blob (see ``worktree_text``)."""
    return worktree_text(repo, staged) is not None


def store_blob(repo: Repo, data: bytes) -> str:
    """Write ``data`` to the object database as it is (no filters); return its object name."""
    return repo.text("hash-object", "-w", "--no-filters", "--stdin", input=data).strip()


def checkout_text(repo: Repo, path: str, sha: str) -> str:
    """Return what ``git checkout`` would write for blob ``sha`` at ``path`` (smudged), as text."""
    data = repo.run("cat-file", "--filters", f"--path={path}", sha)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise GitError(f"{quote_path(path)}: the working-tree encoding is not UTF-8") from None


def write_index(repo: Repo, staged: StagedFile, data: bytes) -> str:
    """Stage ``data`` as the new blob of ``staged.path``, keeping its mode; return the blob's name.

    Refuses when the entry changed since it was read, so a concurrent ``git add`` is never
    overwritten. The old blob stays in the object database either way.
    """
    sha = store_blob(repo, data)
    _swap_entry(repo, staged, staged.sha, sha)
    return sha


def restore_index(repo: Repo, staged: StagedFile, written: str) -> None:
    """Put the staged blob back where ``write_index`` wrote ``written``.

    Its working-tree twin could not be written, and the two must not part. An entry someone
    staged since is left alone.
    """
    _swap_entry(repo, staged, written, staged.sha)


def quote_path(path: str) -> str:
    """Spell a path on one line, as git's ``core.quotePath`` does.

    Quoted, with C escapes, when it holds a newline, another control character or bytes that
    are not UTF-8 (which ``os.fsdecode`` kept as lone surrogates that no terminal can print).
    """
    out = []
    for c in path:
        if 0xDC80 <= ord(c) <= 0xDCFF:  # a byte that was not UTF-8 (os.fsdecode's escape)
            out.append(f"\\{ord(c) - 0xDC00:03o}")
        elif c in '"\\':
            out.append("\\" + c)
        elif c in "\n\t\r":
            out.append({"\n": "\\n", "\t": "\\t", "\r": "\\r"}[c])
        elif not c.isprintable():
            out.append("".join(f"\\{b:03o}" for b in c.encode("utf-8", "surrogatepass")))
        else:
            out.append(c)
    quoted = "".join(out)
    return path if quoted == path else f'"{quoted}"'


def _swap_entry(repo: Repo, staged: StagedFile, old: str, new: str) -> None:
    entry = _index_entry(repo, staged.path)
    if entry is None or entry[1] != old:
        raise GitError(f"{quote_path(staged.path)}: the index changed while remask ran; "
                       "nothing written")
    repo.run("update-index", "--cacheinfo", f"{staged.mode},{new},{staged.path}")


def _index_entry(repo: Repo, path: str) -> tuple[str, str, str] | None:
    """Return (mode, sha, stage) of ``path`` in the index; the first stage when it is unmerged."""
    return _index_entries(repo, [path]).get(path)


def _index_entries(repo: Repo, paths: list[str]) -> dict[str, tuple[str, str, str]]:
    """Map each of ``paths`` found in the index to (mode, sha, stage), in one ``ls-files``."""
    if not paths:
        return {}
    out = repo.text("ls-files", "--stage", "-z", "--full-name", "--",
                    *_pathspecs(paths, ":(literal)"))
    wanted, entries = set(paths), {}
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        if name in wanted and name not in entries:  # the first stage of an unmerged path
            mode, sha, stage = meta.split()
            entries[name] = (mode, sha, stage)
    return entries


def _head_entries(repo: Repo, paths: list[str]) -> dict[str, str]:
    """Map each of ``paths`` that is a blob in HEAD to its object name, in one ``ls-tree``.

    Empty on an unborn branch: the first commit adds every file.
    """
    if not paths:
        return {}
    try:
        out = repo.text("ls-tree", "-r", "-z", "HEAD", "--", *_pathspecs(paths, ""))
    except GitError:
        try:
            repo.run("rev-parse", "--quiet", "--verify", "HEAD^{commit}")
        except GitError:
            return {}
        raise
    wanted, entries = set(paths), {}
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        _mode, kind, sha = meta.split()
        if name in wanted and kind == "blob":
            entries[name] = sha
    return entries


def _pathspecs(paths: list[str], magic: str) -> list[str]:
    """The paths as pathspecs for a listing, or none (list everything) when there are many.

    Git matches every entry against every pathspec: past a few dozen, listing the whole index
    or tree and picking the paths here is faster, and no command line can grow too long.
    """
    if len(paths) > _MAX_PATHSPECS or sum(map(len, paths)) > _MAX_PATHSPEC_CHARS:
        return []
    return [magic + path for path in paths]


def _blob(repo: Repo, sha: str, label: str) -> bytes:
    """Read a blob, refusing one over the size cap before it is loaded into memory."""
    try:
        return repo.blob(sha, MAX_BYTES)
    except TooLarge as e:
        raise Skip(f"{label}: {e.size:,} bytes is over the {MAX_BYTES:,}-byte cap") from None


def _hash(repo: Repo, data: bytes, path: str) -> str:
    """The object name ``git add`` would give ``data`` at ``path`` (clean filter applied)."""
    return repo.text("hash-object", f"--path={path}", "--stdin", input=data).strip()
