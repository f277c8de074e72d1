"""``remask bench lines``: whole lines cut from the corpus's held-out files, filled again.

HumanEval is 164 small problems, and every knob tuned on it risks fitting them. These tasks
come from code no bundled model trained on and no other benchmark scores: the held-out 1% of
the corpus ``remask train`` builds (its files are held out by path hash). A task is one
statement on a line of its own inside a function body (not a docstring), removed whole, as
HumanEval's single-line split removes lines; at most ``PER_FILE`` a file, seeded, so the set
is the same on every machine with the same corpus. There are no tests to run, so the
figures are exact match and edit similarity to the removed line, the rate of holes left
without a proposal (``--rewriter``) and the CPU time a line.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
from pathlib import Path

import torch

from remask.diffing.canvas import HOLE_SAMPLES
from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.infill.corpus import Corpus
from remask.infill.engine import load_engine
from remask.infill.precision import PRECISIONS, compute_dtype
from remask.infill.train import DEFAULT_HOME

from .humaneval import Task
from .infill import generate_all, summarize, task_sampler
from .report import report

PER_FILE = 6  # statements a file gives at most: a few long files would be the whole set
MAX_LINE = 120  # characters: longer lines are rarely one statement a user writes at once
COLUMNS = ["model", "tasks", "exact_match", "edit_sim", "empty_rate", "forward_passes_per_task",
           "cpu_s_per_task", "latency_p95_s"]


def _statements(src: str, lines: list[str]) -> list[int]:
    """Indices in ``lines`` (``src``'s) of the one-line statements of function bodies."""
    try:
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return []
    out = set()
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for st in ast.walk(fn):
            if st is fn or not isinstance(st, ast.stmt) or st.lineno != st.end_lineno:
                continue
            if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant):
                continue  # a docstring
            i = st.lineno - 1
            segment = ast.get_source_segment(src, st) or ""
            if lines[i].strip() == segment.strip() and len(lines[i]) <= MAX_LINE:
                out.add(i)  # the statement is the whole line
    return sorted(out)


def cut_lines(corpus: Path, limit: int, seed: int = 0) -> list[Task]:
    """Up to ``limit`` line tasks from the held-out split of ``corpus``; ValueError if none."""
    if not (corpus / "heldout.txt").is_file():
        raise ValueError(f"{corpus}: no held-out corpus (remask train builds one)")
    held = Corpus(corpus, "heldout")
    names_file = corpus / "heldout.files.txt"
    names = names_file.read_text().splitlines() if names_file.is_file() else []
    pool = []
    for d in range(len(held)):
        name = names[d] if d < len(names) else f"doc{d}"
        src = held.doc(d)
        lines = src.splitlines(keepends=True)
        pool += [(name, lines, i) for i in _statements(src, lines)]
    random.Random(seed).shuffle(pool)
    tasks, taken = [], {}
    for name, lines, i in pool:
        if len(tasks) == limit:
            break
        if taken.get(name, 0) >= PER_FILE:
            continue
        taken[name] = taken.get(name, 0) + 1
        tasks.append(Task(f"{name}:{i + 1}", "".join(lines[:i]), "".join(lines[i + 1:]),
                          lines[i], test="", entry_point=""))
    if not tasks:
        raise ValueError(f"{corpus}: no function-body lines in the held-out files")
    return tasks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lines", help="lines of held-out corpus files, removed and filled again")
    p.add_argument("--corpus", type=Path, default=DEFAULT_HOME / "corpus",
                   help="the corpus remask train built (default ~/.cache/remask/corpus)")
    p.add_argument("--limit", type=int, default=600, help="tasks (default 600)")
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled diffusion model)")
    p.add_argument("--samples", type=int, default=HOLE_SAMPLES,
                   help=f"rows drawn beside the argmax rows (default {HOLE_SAMPLES})")
    p.add_argument("--rewriter", action="store_true",
                   help="fill as `remask fill` does (parse checks, re-mask rounds, ranking)")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write JSON here")
    p.add_argument("--precision", choices=PRECISIONS, default="auto")
    p.add_argument("--threads", type=int, default=1)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.limit < 1 or args.threads < 1 or args.samples < 0:
            raise ValueError("--limit and --threads must be at least 1, --samples at least 0")
        tasks = cut_lines(args.corpus, args.limit)
        engine = load_engine(args.model, precision=args.precision)
    except ValueError as e:
        print(f"remask bench lines: {e}", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    sampler = task_sampler(samples=args.samples)
    rewriter = Rewriter(engine, RewriterConfig(sampler=sampler)) if args.rewriter else None
    t0 = time.perf_counter()
    results = generate_all(engine, tasks, sampler, rewriter=rewriter, label="fill")
    summary = summarize(results)  # its pass@1 columns mean nothing here: no tests were run
    row = {"model": f"{engine.name} (rewriter)" if args.rewriter else engine.name,
           **{k: summary[k] for k in COLUMNS[1:]}}
    meta = {"corpus": str(args.corpus), "limit": args.limit, "samples": args.samples,
            "rewriter": args.rewriter, "model": str(args.model or "bundled"),
            "threads": args.threads, "dtype": str(compute_dtype(args.precision)),
            "seconds": time.perf_counter() - t0,
            "per_task": [{"task_id": r.task_id, "completion": r.completion, "exact": r.exact,
                          "edit_sim": r.edit_sim, "cpu_seconds": r.cpu_seconds}
                         for r in results]}
    report([row], COLUMNS, "held-out lines", args.json, meta)
    return 0
