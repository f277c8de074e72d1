"""The modules a commit's edits reach through imports, and the follow-ups they need there.

A commit that renames ``lib.total`` or changes its parameters breaks every module importing
it (:mod:`remask.diffing.elsewhere`). The staged ones are rewritten with the commit's own
follow-ups; so are tracked modules the commit leaves out (found by ``git grep --cached`` for
the changed names and their modules' names, and the edited files' packages; for a moved
module, also the config files and docs that name it; a def or class moved to another
module is followed as a moved module is, :mod:`remask.diffing.symbol_moves`): their
follow-ups join the commit for review like any of the hook's rewrites, and where such a file
has unstaged work, only its index entry is written, as for a partially staged file.
Model-free.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from remask.diffing.config_files import CONFIG_NAMES, DOC_SUFFIXES, is_config
from remask.diffing.cycles import move_cycles
from remask.diffing.elsewhere import follow
from remask.diffing.exports import exported
from remask.diffing.files import SourceError, check_source
from remask.diffing.modules import module_names
from remask.diffing.moves import Move, moves_for, project_moves
from remask.diffing.proposal import Span
from remask.diffing.symbol_moves import moved_symbols

from .plumbing import GitError, Repo
from .staged import PYTHON_SUFFIXES, Skip, StagedFile, StagedFiles, quote_path


@dataclass
class Reach:
    """Where the commit's changed names are imported, and what each such module needs."""

    spans: dict[str, list[Span]] = field(default_factory=dict)  # path → its follow-ups
    origins: dict[str, list[str]] = field(default_factory=dict)  # path → why, as said
    unstaged: dict[str, StagedFile] = field(default_factory=dict)  # read from the index
    moved: set[Span] = field(default_factory=set)  # the spans a moved module needs
    what: str = "module"  # what moved: a module, or only definitions (:mod:`.symbol_moves`)
    symbols: list[Move] = field(default_factory=list)  # the defs and classes moved

    def take(self, path: str, spans: list[Span], kinds: frozenset[str], origin: str,
             move: bool = False) -> None:
        """Add ``path``'s spans of ``kinds`` that overlap none it has, and why it has them."""
        taken = self.spans.setdefault(path, [])
        new = [s for s in spans if s.kind in kinds and not any(
            s.start < t.end and t.start < s.end for t in taken)]
        if new:
            taken += new
            self.origins.setdefault(path, []).append(origin)
            if move:
                self.moved.update(new)


def importer_spans(repo: Repo, files: Mapping[str, StagedFile], kinds: frozenset[str],
                   renamed: Mapping[str, str] | None = None) -> Reach:
    """Follow-ups for the commit's changes of module-level names and moves, per path.

    ``files`` are the staged files the run works on, ``renamed`` the renamed ones' paths in
    HEAD (a moved module's importers and its own relative imports follow); ``Reach.unstaged``
    holds the tracked files outside them that need follow-ups, read from the index.
    """
    root = Path(repo.working_tree_dir)
    texts, edits = {}, []
    for path, f in files.items():
        try:
            after = check_source(f.data, path)
            before = None if f.head is None else check_source(f.head, path)
        except SourceError:
            continue
        texts[path] = after
        if before != after:
            edits.append((path, before, after))
    changes = [(path, found) for path, before, after in edits if before is not None
               and (found := exported(before, after, module_names(root / path, root)))]
    moves = _moves(root, renamed)
    symbols = moved_symbols([(str(root / p), b, a) for p, b, a in edits], root)
    moves += symbols
    if not changes and not moves:
        return Reach()
    words = {e.name for _, found in changes for e in found}
    words |= {e.modules[0].rpartition(".")[2] for _, found in changes for e in found}
    words |= {m.old.rpartition(".")[2] for m in moves}
    extra = sorted(p for p in _mentioning(repo, words) | _packages(repo, [p for p, _ in changes])
                   | _naming(repo, moves, root) if p not in files)
    staged = StagedFiles(repo, extra)
    read = {}
    for path in extra:
        try:
            read[path] = staged.read(path)
            texts[path] = check_source(read[path].data, path)
        except (Skip, SourceError):
            read.pop(path, None)
    reach = Reach()
    for path, found in changes:
        others = {str(root / p): t for p, t in texts.items() if p != path and not is_config(p)}
        for other, got in follow(found, str(root / path), others, str(root)).items():
            reach.take(Path(other).relative_to(root).as_posix(), got, kinds, quote_path(path))
    if moves:
        why = _said(list((renamed or {}).items()), symbols)
        found = project_moves(moves, {str(root / p): t for p, t in texts.items()}, root)
        for other, got in found.items():
            reach.take(Path(other).relative_to(root).as_posix(), got, kinds, why, move=True)
    reach.what = "definition" if symbols and len(symbols) == len(moves) else "module"
    reach.symbols = symbols
    reach.spans = {p: s for p, s in reach.spans.items() if s}
    reach.unstaged = {p: f for p, f in read.items() if p in reach.spans}
    return reach


def _said(pairs: list[tuple[str, str]], symbols: list[Move]) -> str:
    """What moved, as a follow-up's origin says it (renamed files: new path → old path)."""
    if len(pairs) + len(symbols) > 1:
        return f"the moves of {len(pairs) + len(symbols)} files or definitions"
    if pairs:
        return f"the move of {quote_path(pairs[0][1])} to {quote_path(pairs[0][0])}"
    return f"the move of {symbols[0].old} to {symbols[0].new}"


def _moves(root: Path, renamed: Mapping[str, str] | None) -> list[Move]:
    """The module moves of the commit's renamed files (new path → its path in HEAD)."""
    return [m for new, old in (renamed or {}).items() if new.endswith(PYTHON_SUFFIXES)
            for m in moves_for(root / old, root / new, root)]


def move_warnings(repo: Repo, renamed: Mapping[str, str], rewritten: Mapping[str, str],
                  symbols: list[Move]) -> list[str]:
    """The import cycles the commit's moves make (:mod:`remask.diffing.cycles`), as said.

    Read from the index, with the texts the run ``rewritten`` in place of theirs; ``symbols``
    are the defs and classes it moved (:attr:`Reach.symbols`).
    """
    root = Path(repo.working_tree_dir)
    moves = _moves(root, renamed) + symbols
    if not moves:
        return []
    try:
        listed = repo.text("ls-files", "--cached", "-z", "--", "*.py")
    except GitError:
        return []
    paths = [p for p in listed.split("\0") if p]
    staged = StagedFiles(repo, paths)
    texts = {}
    for path in paths:
        try:
            texts[str(root / path)] = rewritten.get(path) or \
                check_source(staged.read(path).data, path)
        except (Skip, SourceError):
            continue
    return [c.said() for c in move_cycles(moves, texts, root)]


def _mentioning(repo: Repo, words: set[str]) -> set[str]:
    """The indexed Python files that hold any of ``words`` as a word (``git grep --cached``).

    The words are the changed names and their modules' own names: a module re-exporting
    the name by ``from .lib import *``, or the module by ``from . import lib``, never
    spells the name, and without it the modules importing the name from there look
    unrelated.
    """
    patterns = [a for n in sorted(words) for a in ("-e", n)]
    try:
        out = repo.text("grep", "--cached", "-l", "-z", "-w", "-F", *patterns, "--",
                        *(f"*{s}" for s in PYTHON_SUFFIXES))
    except GitError:  # nothing found is exit status 1
        return set()
    return {p for p in out.split("\0") if p}


def _naming(repo: Repo, moves: list[Move], root: Path) -> set[str]:
    """The indexed config files and docs that name a moved module or its path."""
    words = {m.old for m in moves} | {Path(p).relative_to(root).as_posix() for m in moves
                                      for p in (m.old_path,) if Path(p).is_relative_to(root)}
    words |= {":".join(m.old.rsplit(".", 1)) for m in moves if m.symbol}  # ``pkg.a:main``
    if not words:
        return set()
    patterns = [a for w in sorted(words) for a in ("-e", w)]
    try:
        out = repo.text("grep", "--cached", "-l", "-z", "-w", "-F", *patterns, "--",
                        *(f"*{n}" for n in (*sorted(CONFIG_NAMES), *DOC_SUFFIXES)))
    except GitError:
        return set()
    return {p for p in out.split("\0") if p and is_config(p)}


def _packages(repo: Repo, paths: list[str]) -> set[str]:
    """The indexed ``__init__.py`` files of the packages holding ``paths``, up to the root.

    A package re-exporting a subpackage's names by ``from .sub import *`` names neither the
    name nor its module.
    """
    wanted = {(parent / "__init__.py").as_posix() for p in paths
              for parent in Path(p).parents if parent != Path(".")}
    if not wanted:
        return set()
    try:
        out = repo.text("ls-files", "--cached", "-z", "--",
                        *(f":(literal){w}" for w in sorted(wanted)))
    except GitError:
        return set()
    return {p for p in out.split("\0") if p}
