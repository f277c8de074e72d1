"""``remask propagate BEFORE AFTER``: the follow-up edits AFTER needs, given the edit from BEFORE.

AFTER is the file after the user's edit; the proposal renames the other references, updates
call sites, repairs the statement, fixes dangling uses or fills holes, and is shown as a diff
of AFTER (or written over AFTER with ``--write``). With ``--project DIR`` the other modules
under DIR that import what the edit renamed or re-signed get their follow-ups too (their
imports, references and call sites), each shown as a diff or written; ``--json`` then prints
one object per changed file, one a line.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from remask.diffing.elsewhere import project_spans
from remask.diffing.files import SourceError, python_files, read_source
from remask.diffing.proposal import Proposal, combine
from remask.diffing.rewriter import Rewriter
from remask.diffing.spans import affected_spans

from .common import UsageError, engine_from_args, fail
from .edit_common import add_rewrite_args, emit, rewriter_config, unchanged
from .progress import model_status


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("propagate", help="propose the follow-up edits of a user's edit")
    p.add_argument("before", help="the file before the edit")
    p.add_argument("after", help="the file after the edit (the one written with --write)")
    p.add_argument("--cursor", type=int, default=None, help="cursor offset in AFTER")
    p.add_argument("--project", metavar="DIR", default=None,
                   help="also follow the edit into the other modules under DIR that import it")
    add_rewrite_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        before, after = read_source(args.before), read_source(args.after)
        if args.cursor is not None and not 0 <= args.cursor <= len(after):
            raise UsageError(f"--cursor {args.cursor} is outside {args.after}")
        here = affected_spans(before, after, args.after, args.cursor)
        others = _project(args) if args.project is not None else {}
        there = project_spans(before, after, args.after, others, args.project) if others \
            else {}
        if not here and not there:  # spare the model
            why = "the same text as BEFORE" if before == after else "nothing the edit affects"
            return unchanged(args, args.after, after, f"{why}; no follow-up edit to propose")
        with model_status() as status:
            status.engine = engine = engine_from_args(args)
            rewriter = Rewriter(engine, rewriter_config(args, engine))
            proposals = rewriter.propose(before, after, args.after, args.cursor,
                                         on_step=status.on_step) if here else []
            elsewhere = {p: rewriter.propose_elsewhere(others[p], spans, p,
                                                       on_step=status.on_step)
                         for p, spans in there.items()}
    except (SourceError, UsageError) as e:
        return fail("propagate", str(e))
    code = _emit(args, args.after, after, proposals) if here else 0
    for path, found in elsewhere.items():
        code = max(code, _emit(args, path, others[path], found))
    return code


def _emit(args: argparse.Namespace, path: str, text: str, proposals: list[Proposal]) -> int:
    proposal = combine(text, proposals)
    if proposal is None:
        print(f"{path}: no follow-up edit that validates; file left as it was", file=sys.stderr)
    return emit(args, path, text, proposal)


def _project(args: argparse.Namespace) -> dict[str, str]:
    """The other Python files under ``--project`` (path → text); unreadable ones are said."""
    root = Path(args.project)
    if not root.is_dir():
        raise UsageError(f"--project {args.project}: not a directory")
    edited = {Path(args.before).resolve(), Path(args.after).resolve()}
    out = {}
    for path in python_files(root):
        if path.resolve() in edited:
            continue
        try:
            out[str(path)] = read_source(path)
        except SourceError as e:
            print(f"remask propagate: {e}; not followed into", file=sys.stderr)
    return out
