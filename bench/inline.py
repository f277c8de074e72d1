"""``remask bench inline``: the rest of a half-typed line, filled as inline completion fills it.

``bench infill`` asks for whole lines; an editor asks while the user types. Here each
HumanEval single-line task has the first half of its line's code typed (the line break stays
in the suffix: a one-line fill never writes one), and the rest comes from
``Rewriter.fill_at`` at the cursor with the language server's default settings: the span
mapping, one-line sampler budget, validation, mechanical closing and re-mask round the server
runs for every inline request — as for a suggestion asked for (drawn rows beside the argmax
ones), or with ``--quick`` as for one shown while typing (the argmax rows alone). The typed
half plus the proposal is judged in the sandbox.
Reported: pass@1, exact match, prefix match (a non-blank fill the removed line goes on
with: what the user was about to type, worth accepting even when it stops short; exact
matches included), edit similarity, how often nothing was proposed, denoising
steps (the ranker's passes aside), and the fill's latency: the model's part of ``bench lsp``'s
edit→proposal time. ``--held-out`` types half of each line of ``remask bench lines`` instead
(the corpus's held-out files: nothing to run, so no pass@1), for choosing inline knobs
without fitting HumanEval.
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np
import torch

from remask.diffing.rewriter import Rewriter
from remask.infill.engine import load_engine
from remask.infill.precision import PRECISIONS
from remask.infill.sampler import StepTrace
from remask.infill.train import DEFAULT_HOME
from remask.lsp.settings import Settings

from . import checks
from .humaneval import DEFAULT_DATA, Task, load_tasks, subset
from .infill import edit_similarity, is_exact, judge_all, progress
from .lines import cut_tasks, heldout_files
from .report import report
from .sandbox import SandboxConfig

COLUMNS = ["model", "tasks", "pass@1", "exact_match", "prefix_match", "edit_sim", "no_proposal",
           "denoising_steps_per_task", "latency_p50_ms", "latency_p95_ms", "cpu_s_per_task"]


@dataclass
class LineResult:
    task_id: str
    typed: str  # what the user had typed of the line
    fill: str | None  # the proposed rest, None when nothing was proposed
    completion: str  # the line as judged: typed + fill
    steps: int  # denoising passes, re-mask rounds included (a refused fill costs too)
    rows: int  # candidates denoised side by side at most (drawn rows included)
    seconds: float
    cpu_seconds: float
    exact: bool
    edit_sim: float  # of the whole line to the removed one (``edit_similarity``)
    prefix: bool  # a non-blank fill that the removed line goes on with
    status: str = "unjudged"
    detail: str = ""


def half_typed(task: Task) -> tuple[str, str, str]:
    """Split a task into (text with the cursor's line half typed, typed part, line break).

    The line's indentation and the first half of its code (at least one character) are typed.
    """
    line, suffix, brk = task.canonical_solution, task.suffix, ""
    if line.endswith("\n"):
        line, suffix, brk = line[:-1], "\n" + task.suffix, "\n"
    code = line.lstrip()
    typed = line[:len(line) - len(code)] + code[:max(1, len(code) // 2)]
    return task.prompt + typed + suffix, typed, brk


def fill_all(rewriter: Rewriter, tasks: list[Task], quick: bool = False) -> list[LineResult]:
    """Fill the rest of each task's half-typed line at the cursor; the sandbox is not run."""
    if tasks:  # untimed: one-time costs; a context no task has (see ``generate_all``)
        text, typed, _ = half_typed(tasks[0])
        cursor = len(tasks[0].prompt) + len(typed)
        rewriter.fill_at(text[:cursor] + "# warm-up\n" + text[cursor:], cursor, "task.py")
    out = []
    with progress("inline") as bar:
        job = bar.add_task("inline", total=len(tasks))
        for t in tasks:
            text, typed, brk = half_typed(t)
            cursor = len(t.prompt) + len(typed)
            seen: list[StepTrace] = []
            c0, w0 = time.process_time(), time.perf_counter()
            p = rewriter.fill_at(text, cursor, "task.py", quick=quick,
                                 on_step=lambda _, st, s=seen: s.append(st))
            seconds, cpu = time.perf_counter() - w0, time.process_time() - c0
            fill = p.text[cursor:cursor + len(p.text) - len(text)] if p is not None else None
            completion = typed + (fill or "") + brk
            rest = t.canonical_solution[len(typed):]
            out.append(LineResult(t.task_id, typed, fill, completion, len(seen),
                                  max((st.rows for st in seen), default=0), seconds, cpu,
                                  is_exact(completion, t.canonical_solution),
                                  edit_similarity(completion, t.canonical_solution),
                                  bool(fill and fill.strip()) and rest.startswith(fill)))
            bar.advance(job)
    return out


def summarize(results: list[LineResult], judged: bool = True) -> dict:
    n = len(results)
    ms = [r.seconds * 1000 for r in results]
    return {"tasks": n,
            "pass@1": sum(r.status == "passed" for r in results) / n if judged else None,
            "exact_match": sum(r.exact for r in results) / n,
            "prefix_match": sum(r.prefix for r in results) / n,
            "edit_sim": sum(r.edit_sim for r in results) / n,
            "no_proposal": sum(r.fill is None for r in results) / n,
            "denoising_steps_per_task": sum(r.steps for r in results) / n,
            "latency_p50_ms": float(np.percentile(ms, 50)),
            "latency_p95_ms": float(np.percentile(ms, 95)),
            "cpu_s_per_task": sum(r.cpu_seconds for r in results) / n}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inline", help="half-typed HumanEval lines completed as inline "
                                      "completion does: pass@1 and fill latency")
    p.add_argument("--limit", type=int, default=None,
                   help="a seeded sample of N single-line tasks (default: all 1,033; with "
                        "--held-out 600)")
    p.add_argument("--held-out", action="store_true",
                   help="lines of the corpus's held-out files (remask bench lines) instead of "
                        "HumanEval's: exact match and edit similarity, no pass@1")
    p.add_argument("--quick", action="store_true",
                   help="fill as a suggestion shown while typing is filled: the argmax rows "
                        "alone (default: as one asked for, with drawn rows)")
    p.add_argument("--corpus", type=Path, default=DEFAULT_HOME / "corpus",
                   help="with --held-out: the corpus remask train built")
    p.add_argument("--data", type=Path, default=None,
                   help=f"HumanEval-Infilling folder (default {DEFAULT_DATA})")
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled diffusion model)")
    p.add_argument("--precision", choices=PRECISIONS, default="auto")
    p.add_argument("--timeout", type=float, default=10.0, help="sandbox seconds per task")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write JSON here")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.limit is not None and args.limit < 1:
            raise ValueError("--limit must be at least 1")
        checks.positive("--timeout", args.timeout)
        tasks = cut_tasks(heldout_files(args.corpus), args.limit or 600) if args.held_out \
            else subset(load_tasks("single-line", args.data), args.limit)
        engine = load_engine(args.model, precision=args.precision)
    except ValueError as e:
        print(f"remask bench inline: {e}", file=sys.stderr)
        return 2
    torch.set_num_threads(1)  # as the language server runs it
    rewriter = Rewriter(engine, Settings().rewriter_config(engine.sampler))
    results = fill_all(rewriter, tasks, quick=args.quick)
    if not args.held_out:  # held-out lines have no tests to run
        judge_all(tasks, results, SandboxConfig(timeout=args.timeout))
    row = {"model": engine.name, **summarize(results, judged=not args.held_out)}
    report([row], COLUMNS, "remask bench inline: the rest of half-typed lines", args.json,
           {"limit": args.limit, "held_out": args.held_out, "quick": args.quick,
            "model": str(args.model or "bundled"),
            "per_task": [asdict(r) for r in results]},
           notes=["latency: Rewriter.fill_at alone, one torch thread; the server adds its "
                  "debounce and hides the context prefills behind it (see bench lsp)"])
    return 0

