"""One hook run: staged blobs in, the Rewriter's proposals out, new blobs written back.

"Before" is HEAD's version of a file and "after" its staged blob, so the Rewriter sees exactly
the edit this commit makes. The hook holds no diffing logic of its own.

Where a rewrite goes:

- The index always gets it (a new blob), unless pre-commit runs the hook (below).
- The working tree gets it only where the working-tree file holds the staged blob (compared
  through git's clean filter, so ``core.autocrlf`` and ``eol`` attributes count as no change),
  written as checkout would write it. If that write fails, the index gets its old blob back.
- A *partially staged* file (working tree differs from the index) is rewritten in the index
  only: the commit being made is checked, and the unstaged work stays byte for byte. The report
  says so, since ``git diff`` then shows the rewrite reversed next to the unstaged work. Under
  ``git commit -p`` or ``-i`` that index is a temporary one git drops when the hook fails, so
  nothing is written and the run fails, saying how to commit instead.
- Under the pre-commit framework (it sets ``PRE_COMMIT=1``) only the working tree is written,
  as ruff and black do: pre-commit has stashed unstaged work so the working tree equals the
  index, and it tells which hooks changed files by comparing the working tree with the index.
  A file whose working tree differs there anyway (``--all-files`` does not stash) is skipped
  when it has something to follow up (the check goes through git, so a file with nothing to
  follow up is not checked).

The model is loaded once per run, and only when some file has a span to denoise.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from remask.diffing.config_files import is_config
from remask.diffing.files import ChangedOnDisk, SourceError, atomic_write, check_source
from remask.diffing.mechanical import mechanical_proposals
from remask.diffing.moves import moved_proposal
from remask.diffing.proposal import Proposal, Span, TextEdit, apply_edits
from remask.diffing.spans import affected_spans

from .config import ConfigError, HookConfig, load_config
from .importers import Reach, importer_spans, move_warnings
from .staged import (
    PYTHON_SUFFIXES,
    GitError,
    Repo,
    Skip,
    StagedFile,
    StagedFiles,
    checkout_text,
    open_repo,
    operation_in_progress,
    relative_path,
    restore_index,
    staged_status,
    store_blob,
    temporary_index,
    worktree_matches,
    worktree_text,
    write_index,
)

if TYPE_CHECKING:
    from remask.diffing.rewriter import Rewriter

_UNSTASHED = "skipped: the working tree differs from the index (pre-commit did not stash it)"
_SAVED = "skipped: the file was saved while remask ran; nothing written"
_THROWAWAY = ("not written: `git commit -p` and `-i` stage into a temporary index that git drops "
              "when the hook stops the commit, and this file has unstaged work; stage with "
              "`git add -p`, then run `git commit` without -p or -i")
_SKIPPED_STATUS = {"D": "deleted", "U": "unmerged (resolve the conflict first)"}


@dataclass
class Outcome:
    """What happened to one file: the line to show, and the texts when it was rewritten."""

    path: str
    message: str
    old: str | None = None
    new: str | None = None
    failed: bool = False  # a rewrite was due but could not be written

    @property
    def rewritten(self) -> bool:
        return self.new is not None and not self.failed


@dataclass
class HookRun:
    outcomes: list[Outcome]
    stood_aside: str | None = None  # why the whole run did nothing (a merge in progress)
    warnings: list[str] = field(default_factory=list)  # what the user should look at


def under_pre_commit() -> bool:
    """Tell whether the pre-commit framework runs us (it stashes unstaged work itself)."""
    return os.environ.get("PRE_COMMIT") == "1"


def run_hook(cwd: Path, files: list[str], *, dry_run: bool = False, index: bool = True,
             on_file: Callable[[str], None] | None = None) -> HookRun:
    """Rewrite the named files (every staged Python file when none is named).

    ``index=False`` writes the working tree only (pre-commit mode). Raises GitError or
    ConfigError for a repository the hook cannot work on at all.
    """
    repo = open_repo(cwd)
    op = operation_in_progress(repo)
    if op is not None:
        return HookRun([], f"a {op} is in progress; remask leaves its commits alone")
    rewriter = _LazyRewriter(load_config(Path(repo.working_tree_dir)))
    outcomes: list[Outcome] = []
    try:
        paths, renamed = _targets(repo, files, cwd, outcomes)
        staged = StagedFiles(repo, paths, renamed)
        read: dict[str, StagedFile | Skip] = {}
        for path in paths:
            try:
                read[path] = staged.read(path)
            except Skip as e:
                read[path] = e
        reach = importer_spans(repo, {p: f for p, f in read.items()
                                      if isinstance(f, StagedFile)}, rewriter.config.kinds,
                               renamed)
        read |= reach.unstaged
        for path in [*paths, *reach.unstaged]:
            if on_file is not None:
                on_file(path)
            try:
                f = read[path]
                if isinstance(f, Skip):
                    raise f
                outcomes.append(_rewrite(repo, f, rewriter, dry_run, index, reach))
            except (Skip, SourceError) as e:
                outcomes.append(Outcome(path, f"skipped: {e}"))
        warnings = move_warnings(repo, renamed, {o.path: o.new for o in outcomes
                                                 if o.new is not None and not o.failed},
                                 reach.symbols)
    finally:
        repo.close()
    return HookRun(outcomes, warnings=warnings)


def _targets(repo: Repo, files: list[str], cwd: Path, outcomes: list[Outcome]
             ) -> tuple[list[str], dict[str, str]]:
    """The paths to rewrite, and the renamed ones' names in HEAD.

    Adds an outcome for each path skipped on its status.
    """
    status = staged_status(repo)
    if files:
        paths = []
        for name in files:
            try:
                paths.append(relative_path(repo, name, cwd))
            except Skip as e:
                outcomes.append(Outcome(name, f"skipped: {e}"))
    else:
        paths = sorted(p for p in status if p.endswith(PYTHON_SUFFIXES))
    out, renamed = [], {}
    for path in dict.fromkeys(paths):
        letter, source = status.get(path, ("", None))
        if letter in _SKIPPED_STATUS:
            outcomes.append(Outcome(path, f"skipped: {_SKIPPED_STATUS[letter]}"))
            continue
        if letter == "R" and source is not None:
            renamed[path] = source
        out.append(path)
    return out, renamed


def _rewrite(repo: Repo, staged: StagedFile, rewriter: _LazyRewriter, dry_run: bool,
             index: bool, reach: Reach) -> Outcome:
    """Propose follow-ups of this commit's edits to one file and write the result.

    Its own edit's (HEAD's version → the staged one), and those of the commit's other files
    that it imports (``reach``); a config file or docs naming a moved module has only the
    latter.
    """
    after = check_source(staged.data, "staged version")
    before = "" if staged.head is None else check_source(staged.head, "HEAD's version")
    elsewhere = reach.spans.get(staged.path, [])
    moved = [s for s in elsewhere if s in reach.moved]  # said as the CLI says them
    rest = [s for s in elsewhere if s not in reach.moved]
    first = moved_proposal(after, moved, staged.path, reach.what) if moved else None
    # A def moved out of this module leaves its calls here unbound until the move's import
    # is in: the own edit is read with it, so those calls are no span for the model.
    base = first.text if first is not None and not rest else after
    own = not is_config(staged.path) and rewriter.has_spans(before, base, staged.path)
    if not own and not elsewhere:
        return Outcome(staged.path, "nothing to do")  # before the worktree check: no git call
    if not index and not dry_run and not worktree_matches(repo, staged):
        return Outcome(staged.path, _UNSTASHED)  # nothing could be written: spare the model
    proposals = rewriter.propose(before, base, staged.path) if own else []
    proposals += rewriter.propose_elsewhere(after, rest, staged.path) if rest else []
    if first is not None and base is after:
        proposals.append(first)
    new, applied = _combine(base, proposals)
    if base is not after:
        applied.insert(0, first)
    if not applied:
        return Outcome(staged.path, "nothing to do")
    what = "; ".join(f"{p.title} ({_lines(after if p is first else base, p)})"
                     for p in applied)
    if any(set(p.spans) & set(elsewhere) for p in applied):
        what += f", following {', '.join(reach.origins[staged.path])}"
        if staged.path in reach.unstaged:
            what += " (this file was not staged)"
    if dry_run:
        return Outcome(staged.path, f"would {what[0].lower()}{what[1:]}", after, new)
    current = worktree_text(repo, staged)  # again: the user may have saved meanwhile
    if current is None and not index:
        return Outcome(staged.path, _UNSTASHED)
    if current is None and temporary_index():
        return Outcome(staged.path, _THROWAWAY, after, new, failed=True)
    try:
        saved = _write(repo, staged, new, current, index)
    except (GitError, OSError) as e:
        why = str(e)
        if isinstance(e, OSError):  # the working tree's: the index got its old blob back
            why = f"{e.strerror or e}; the index and the working tree are as they were"
        return Outcome(staged.path, f"not written: {why}", after, new, failed=True)
    if saved and not index:
        return Outcome(staged.path, _SAVED)
    if not index:
        where = "working tree"
    elif saved:
        where = "index only; the working tree keeps what you saved while remask ran"
    elif current is not None:
        where = "index and working tree"
    else:
        where = "index only; the working tree keeps your unstaged work"
    return Outcome(staged.path, f"{what}; wrote the {where}", after, new)


def _write(repo: Repo, staged: StagedFile, new: str, current: str | None, index: bool) -> bool:
    """Write ``new`` to the index and the working tree; True when the user saved meanwhile.

    The index is written when ``index``; the working tree when it held the staged blob
    (``current`` is its text), with what checkout would write there (smudged).

    The two stay in step: a working-tree write that fails puts the staged blob back, so a
    "not written" report is true of both. A save made meanwhile is the exception the user
    chose: the index keeps the rewrite for the commit, the working tree keeps the save.
    """
    data = new.encode("utf-8")
    sha = write_index(repo, staged, data) if index else store_blob(repo, data)
    if current is None:
        return False
    try:
        atomic_write(Path(repo.working_tree_dir, staged.path),
                     checkout_text(repo, staged.path, sha), expected=current)
    except ChangedOnDisk:
        return True
    except (GitError, OSError):
        if index:
            restore_index(repo, staged, sha)
        raise
    return False


def _lines(text: str, proposal: Proposal) -> str:
    """Say where a proposal edits, as line numbers of the staged text."""
    lines = sorted({text.count("\n", 0, e.start) + 1 for e in proposal.edits})
    return f"line{'s' * (len(lines) > 1)} {', '.join(map(str, lines))}"


def _combine(text: str, proposals: list[Proposal]) -> tuple[str, list[Proposal]]:
    """Apply every proposal whose edits miss those of the proposals before it.

    The Rewriter offers one proposal per kind of follow-up, each over the same text, in its
    order of precedence (repairs first); an overlapping later one is left for the next run.
    """
    edits: list[TextEdit] = []
    applied = []
    for p in proposals:
        if not any(a.start < b.end and b.start < a.end or a.start == b.start
                   for a in p.edits for b in edits):
            edits += p.edits
            applied.append(p)
    return apply_edits(text, edits), applied


class _LazyRewriter:
    """The run's one Rewriter, built the first time a file has a span to denoise.

    Most commits need no model, and importing torch alone takes seconds, so neither the model
    nor the modules that need torch are loaded before then.
    """

    def __init__(self, config: HookConfig) -> None:
        self.config = config
        self._rewriter: Rewriter | None = None

    def has_spans(self, before: str, after: str, path: str) -> bool:
        """Tell whether the Rewriter would find a span to denoise (without loading a model)."""
        c = self.config
        return bool(affected_spans(before, after, path, kinds=c.kinds, marker=c.marker))

    def propose(self, before: str, after: str, path: str) -> list[Proposal]:
        """The Rewriter's proposals; load the model first if need be (ask ``has_spans`` first)."""
        return self._load().propose(before, after, path)

    def propose_elsewhere(self, text: str, spans: list[Span], path: str) -> list[Proposal]:
        """Proposals for another file's edits' ``spans``.

        No model is loaded for none, nor for spans that each carry the one text the edit
        determines (renamed imports and references, a moved module's imports).
        """
        if all(not s.model for s in spans):
            return mechanical_proposals(text, spans, path)
        return self._load().propose_elsewhere(text, spans, path)

    def _load(self) -> Rewriter:
        if self._rewriter is None:
            import torch

            from remask.diffing.rewriter import Rewriter, RewriterConfig
            from remask.infill.engine import load_engine

            torch.set_num_threads(1)  # small steps: extra threads only wait on each other
            try:
                engine = load_engine(self.config.model)
            except ValueError as e:
                raise ConfigError(f"cannot load model: {e}") from None
            self._rewriter = Rewriter(engine, RewriterConfig(
                marker=self.config.marker, kinds=self.config.kinds, sampler=engine.sampler))
        return self._rewriter
