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
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

import git

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
class Repo:
    """A repository with a working tree, as git itself found it from where the hook started.

    Every command runs at the top of the working tree with ``GIT_DIR`` and ``GIT_WORK_TREE``
    set to what git found, so a relative ``GIT_DIR`` from the caller cannot point elsewhere.
    """

    working_tree_dir: str
    git_dir: str

    def run(self, *args: str, input: bytes | None = None) -> bytes:
        """Run one git command and return its stdout; GitError with git's first line on failure."""
        env = {**os.environ, "GIT_DIR": self.git_dir, "GIT_WORK_TREE": self.working_tree_dir}
        return _run(["git", *args], self.working_tree_dir, env, input)

    def text(self, *args: str, input: bytes | None = None) -> str:
        """``run`` for output that holds paths: decoded as the file system spells names."""
        return os.fsdecode(self.run(*args, input=input))


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
        git_dir = _rev_parse(start, "--absolute-git-dir")
    except GitError:
        raise GitError(f"{start}: not a git repository") from None
    try:
        top = _rev_parse(start, "--show-toplevel")
    except GitError:
        bare = _rev_parse(start, "--is-bare-repository") == "true"
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


def read_staged(repo: Repo, path: str) -> StagedFile:
    """Read the staged blob of ``path`` and HEAD's version; Skip when there is nothing to edit."""
    entry = _index_entry(repo, path)
    if entry is None:
        raise Skip("not in the index")
    mode, sha, stage = entry
    if stage != "0":
        raise Skip("unmerged (resolve the conflict first)")
    if mode not in REGULAR_MODES:
        raise Skip(f"not a regular file (mode {mode})")
    return StagedFile(path, mode, sha, _blob(repo, sha, "staged version"), _head_blob(repo, path))


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
    out = repo.text("ls-files", "--stage", "-z", "--full-name", "--", f":(literal){path}")
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        if name == path:
            mode, sha, stage = meta.split()
            return mode, sha, stage
    return None


def _blob(repo: Repo, sha: str, label: str) -> bytes:
    """Read a blob, refusing one over the size cap before it is loaded into memory."""
    size = int(repo.run("cat-file", "-s", sha))
    if size > MAX_BYTES:
        raise Skip(f"{label}: {size:,} bytes is over the {MAX_BYTES:,}-byte cap")
    return repo.run("cat-file", "blob", sha)


def _head_blob(repo: Repo, path: str) -> bytes | None:
    try:
        out = repo.text("ls-tree", "-z", "HEAD", "--", path)
    except GitError:
        try:
            repo.run("rev-parse", "--quiet", "--verify", "HEAD^{commit}")
        except GitError:
            return None  # unborn branch: the first commit adds every file
        raise
    for record in filter(None, out.split("\0")):
        meta, name = record.split("\t", 1)
        mode, kind, sha = meta.split()
        if name == path:
            return _blob(repo, sha, "HEAD's version") if kind == "blob" else None
    return None


def _hash(repo: Repo, data: bytes, path: str) -> str:
    """The object name ``git add`` would give ``data`` at ``path`` (clean filter applied)."""
    return repo.text("hash-object", f"--path={path}", "--stdin", input=data).strip()


def _rev_parse(start: Path, option: str) -> str:
    return os.fsdecode(_run(["git", "rev-parse", option], start, None, None)).strip()


def _run(argv: list[str], cwd: str | Path, env: dict[str, str] | None,
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
        text = err.decode(errors="replace") if isinstance(err, bytes) else err
        lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
        raise GitError(f"git {argv[1]} failed: {lines[0] if lines else f'exit status {status}'}")
    return out
