"""Options and output shared by the commands that rewrite a file (``repair``, ``propagate``).

Same contract as ``remask fill``: a unified diff by default, ``--write`` replaces the file
atomically, ``--json`` prints ``{"path", "text", "spans", "trace"}`` with ``text`` the whole
proposed file; exit 0 when a proposal was made or there was nothing to do, 1 when none
validates (nothing written).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import TYPE_CHECKING

from remask.bench import checks
from remask.diffing.proposal import Proposal

if TYPE_CHECKING:  # torch: seconds to import, and ``remask moved`` loads no model
    from remask.diffing.rewriter import RewriterConfig
    from remask.infill.engine import Engine

from .common import UsageError, add_model_args, show, write


def add_rewrite_args(p: argparse.ArgumentParser) -> None:
    p.add_argument("--write", action="store_true", help="replace the file (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--candidates", type=int, default=1, help="candidates denoised per span")
    p.add_argument("--rounds", type=int, default=2, help="re-mask rounds on new errors")
    p.add_argument("--verify", default=None,
                   help="shell command run on a temp copy; the first passing candidate wins")
    add_model_args(p)


def rewriter_config(args: argparse.Namespace, engine: Engine) -> RewriterConfig:
    from remask.diffing.rewriter import RewriterConfig

    try:
        checks.rows(args.candidates, "--candidates", 1)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if args.rounds < 0:
        raise UsageError("--rounds must not be negative")
    if args.verify is not None and not args.verify.strip():
        raise UsageError("--verify must not be empty")
    return RewriterConfig(candidates=args.candidates, rounds=args.rounds,
                          sampler=engine.sampler, verify=args.verify,
                          line_threshold=args.line_threshold)


def emit(args: argparse.Namespace, path: str, text: str, proposal: Proposal | None) -> int:
    """Write the file when asked, then print the diff or JSON; return the exit code.

    Written first: a reader that stops reading (``| head``) must not cost the write.
    """
    new_text = proposal.text if proposal is not None else text
    code = 0
    if proposal is None:
        code = 1
    elif args.write:
        code = write(args.command, path, new_text, text)
    if args.json:
        spans = [{"start": s.start, "end": s.end, "reason": s.reason, "kind": s.kind}
                 for s in (proposal.spans if proposal else [])]
        print(json.dumps({"path": path, "text": new_text, "spans": spans,
                          "trace": proposal.trace if proposal else {}}))
    else:
        show(args, path, text, new_text)
    return code


def unchanged(args: argparse.Namespace, path: str, text: str, why: str) -> int:
    """Nothing to do is success: say why, and print the JSON object ``--json`` promises."""
    print(f"{path}: {why}", file=sys.stderr)
    if args.json:
        print(json.dumps({"path": path, "text": text, "spans": [], "trace": {}}))
    else:
        show(args, path, text, text)  # a filter passes the text through
    return 0
