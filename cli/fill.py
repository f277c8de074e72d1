"""``remask fill FILE``: fill every hole marked ``???`` and show (or write) the result."""

from __future__ import annotations

import argparse
import json
import sys

from remask.bench import checks
from remask.diffing.canvas import HOLE_SAMPLES
from remask.diffing.files import SourceError
from remask.diffing.rewriter import Rewriter, RewriterConfig

from .common import (
    STDIN,
    UsageError,
    add_input_args,
    add_model_args,
    engine_from_args,
    fail,
    read_input,
    show,
    write,
)
from .progress import model_status


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("fill", help="fill the ??? holes of a file")
    add_input_args(p)
    p.add_argument("--marker", default="???", help="the hole marker (default ???)")
    p.add_argument("--write", action="store_true", help="replace the file (atomically)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--candidates", type=int, default=1,
                   help="canvases denoised as one batch per hole")
    p.add_argument("--samples", type=int, default=HOLE_SAMPLES,
                   help="rows drawn beside the argmax rows for each hole "
                        f"(default {HOLE_SAMPLES}; 0: the argmax rows alone, faster)")
    p.add_argument("--verify", default=None, metavar="CMD",
                   help="shell command run on a temp copy of the project with the fill in "
                        "(e.g. 'python -m doctest FILE'); the first ranked candidate it "
                        "passes wins, none: nothing written")
    add_model_args(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if not args.marker:
        return fail("fill", "--marker must not be empty")
    try:
        checks.rows(args.samples, "--samples", 0)
        checks.rows(args.candidates, "--candidates", 1)
    except ValueError as e:
        return fail("fill", str(e))
    if args.verify is not None and not args.verify.strip():
        return fail("fill", "--verify must not be empty")
    try:
        text, path = read_input(args)
        with model_status() as status:
            status.engine = engine = engine_from_args(args)
            rewriter = Rewriter(engine, RewriterConfig(
                marker=args.marker, candidates=args.candidates, sampler=engine.sampler,
                line_threshold=args.line_threshold, hole_samples=args.samples,
                verify=args.verify))
            proposal, results = rewriter.fill_holes(text, path, on_step=status.on_step)
    except (SourceError, UsageError) as e:
        return fail("fill", str(e))
    complete = all(r.text is not None for r in results)
    new_text = proposal.text if proposal is not None else text
    code = 0  # written before anything is printed: a reader gone (| head) loses no write
    if not complete:
        bad = sum(r.text is None for r in results)
        why = f"passes '{args.verify}'" if args.verify and proposal is None and \
            any(r.reason.startswith("no candidate passed") for r in results) else \
            "keeps the file sound"  # parses, and keeps its strings and imports whole
        print(f"{path}: {bad} of {len(results)} holes got no proposal that {why}; "
              "file left as it was", file=sys.stderr)
        code = 1
    elif args.write and proposal is not None:
        code = write("fill", path, new_text, text)
    if args.json:
        spans = rewriter.holes(text, path)
        holes = [{"start": s.start, "end": s.end, "text": r.text, "status": r.reason,
                  "trace": r.trace} for s, r in zip(spans, results, strict=True)]
        print(json.dumps({"path": path, "text": new_text, "holes": holes,
                          "trace": proposal.trace if proposal else {}}))
    else:
        if not results:
            print(f"{path}: no '{args.marker}' holes", file=sys.stderr)
        if results or args.file == STDIN:  # a filter prints the text, changed or not
            show(args, path, text, new_text if complete else text)
    return code
