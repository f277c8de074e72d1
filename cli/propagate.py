"""``remask propagate BEFORE AFTER``: the follow-up edits AFTER needs, given the edit from BEFORE.

AFTER is the file after the user's edit; the proposal renames the other references, updates
call sites, repairs the statement, fixes dangling uses or fills holes, and is shown as a diff
of AFTER (or written over AFTER with ``--write``).
"""

from __future__ import annotations

import argparse
import sys

from remask.diffing.files import SourceError, read_source
from remask.diffing.proposal import combine
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
    add_rewrite_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        before, after = read_source(args.before), read_source(args.after)
        if args.cursor is not None and not 0 <= args.cursor <= len(after):
            raise UsageError(f"--cursor {args.cursor} is outside {args.after}")
        if not affected_spans(before, after, args.after, args.cursor):  # spare the model
            why = "the same text as BEFORE" if before == after else "nothing the edit affects"
            return unchanged(args, args.after, after, f"{why}; no follow-up edit to propose")
        with model_status() as status:
            status.engine = engine = engine_from_args(args)
            config = rewriter_config(args, engine)
            proposals = Rewriter(engine, config).propose(before, after, args.after, args.cursor,
                                                         on_step=status.on_step)
    except (SourceError, UsageError) as e:
        return fail("propagate", str(e))
    proposal = combine(after, proposals)
    if proposal is None:
        print(f"{args.after}: no follow-up edit that validates; file left as it was",
              file=sys.stderr)
    return emit(args, args.after, after, proposal)
