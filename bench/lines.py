"""``remask bench lines``: spans cut from code no model trained on, filled again.

HumanEval is 164 small problems, and every knob tuned on it risks fitting them. These tasks
come from code no bundled model trained on and no other benchmark scores: the held-out 1% of
the corpus ``remask train`` builds (its files are held out by path hash). Each ``--kind`` cuts
what one HumanEval-Infilling split removes, from function bodies (never a docstring):

- ``line``: one statement on a line of its own, removed whole (the single-line split);
- ``block``: a run of sibling statements of one body, two to ``BLOCK_LINES`` lines (the
  multi-line split; a ``???`` on a line of its own, or a body to write);
- ``span``: characters from anywhere in a body to anywhere a little later, mid-name and
  across lines alike (random-span);
- ``expr``: the value of a one-line ``x = …``, ``x += …`` or ``return …``, filled as
  ``remask fill`` fills a ``???`` written there (always through the ``Rewriter``: a one-line
  hole that wants text, with its own canvas, budget and ranking; no HumanEval split cuts so).

With ``--real-edits`` the same cuts come from the files of ``../shared/benchmarks/real-edits``
instead: a second sample of code no model trained on, since knobs chosen on one sample fit it
(session 30: a change that won on the held-out ``expr`` holes lost on these). At most
``PER_FILE`` a file, seeded, so the set is the same on every machine with the same files.
There are no tests to run, so the figures are exact match and edit similarity to the removed
text, the rate of holes left without a proposal (``--rewriter``) and the CPU time a task.
"""

from __future__ import annotations

import argparse
import ast
import random
import sys
import time
import warnings
from pathlib import Path

import torch

from remask.diffing.canvas import HOLE_SAMPLES
from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.infill.corpus import Corpus
from remask.infill.engine import load_engine
from remask.infill.precision import PRECISIONS, compute_dtype
from remask.infill.train import DEFAULT_HOME

from . import checks
from .edit_cases import REAL, real_cases
from .humaneval import Task
from .infill import generate_all, summarize, task_sampler
from .report import report

PER_FILE = 6  # tasks a file gives at most: a few long files would be the whole set
MAX_LINE = 120  # characters: longer lines are rarely one statement a user writes at once
BLOCK_LINES = 8  # HumanEval's multi-line middles: median 4 lines, 90% at most 11
# a span's characters, drawn uniformly: HumanEval's random-span-light middles run 28 / 60 / 106
# characters at the quartiles, 162 at the ninth decile
SPAN_CHARS = (10, 150)
MARKER = RewriterConfig.marker  # an ``expr`` hole, as ``remask fill`` reads it
KINDS = ("line", "block", "span", "expr")
COLUMNS = ["model", "tasks", "exact_match", "edit_sim", "empty_rate", "forward_passes_per_task",
           "cpu_s_per_task", "latency_p95_s"]


def _bodies(src: str, lines: list[str]) -> list[list[ast.stmt]]:
    """The statement lists of ``src``'s function bodies and of the blocks inside them.

    Docstrings are left out; each list once, though a nested function is inside two; an
    ``elif`` is an ``if`` in the ``orelse`` of another, but no statement of its own.
    """
    try:
        with warnings.catch_warnings():  # a file's own invalid escapes are not ours to report
            warnings.simplefilter("ignore")
            tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return []
    out: dict[int, list[ast.stmt]] = {}
    for fn in ast.walk(tree):
        if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
            continue
        for node in ast.walk(fn):
            for name in ("body", "orelse", "finalbody"):
                block = getattr(node, name, None)
                if not (isinstance(block, list) and block and isinstance(block[0], ast.stmt)):
                    continue
                if name == "orelse" and isinstance(block[0], ast.If) \
                        and lines[block[0].lineno - 1].lstrip().startswith("elif"):
                    continue
                out[id(block)] = [st for st in block if not _is_docstring(st)]
    return [b for b in out.values() if b]


def _is_docstring(st: ast.stmt) -> bool:
    return isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)


def _split(src: str) -> list[str]:
    """``src``'s lines as ``ast`` numbers them (a form feed is no line break there)."""
    lines = src.split("\n")
    return [line + "\n" for line in lines[:-1]] + ([lines[-1]] if lines[-1] else [])


def _col(line: str, byte_col: int) -> int:
    """The character column of ``ast``'s UTF-8 byte column on ``line``."""
    return len(line.encode()[:byte_col].decode(errors="ignore"))


def _whole_lines(lines: list[str], first: ast.stmt, last: ast.stmt) -> bool:
    """Whether ``first`` .. ``last`` own their lines: nothing else, not even a comment."""
    head = lines[first.lineno - 1][:_col(lines[first.lineno - 1], first.col_offset)]
    end = lines[last.end_lineno - 1]
    return not head.strip() and not end[_col(end, last.end_col_offset):].strip()


def _line_cuts(src: str, lines: list[str]) -> list[tuple[int, int]]:
    """Character ranges of the one-line statements of function bodies, each a whole line."""
    offsets = _offsets(lines)
    out = set()
    for body in _bodies(src, lines):
        for st in body:
            i = st.lineno - 1
            if st.lineno == st.end_lineno and len(lines[i]) <= MAX_LINE \
                    and _whole_lines(lines, st, st):
                out.add((offsets[i], offsets[i + 1]))
    return sorted(out)


def _block_cuts(src: str, lines: list[str], rng: random.Random) -> list[tuple[int, int]]:
    """Runs of sibling statements spanning 2 to ``BLOCK_LINES`` whole lines, one per body."""
    offsets = _offsets(lines)
    out = []
    for body in _bodies(src, lines):
        runs = [(a, b) for a in range(len(body)) for b in range(a, len(body))
                if 2 <= body[b].end_lineno - body[a].lineno + 1 <= BLOCK_LINES
                and _whole_lines(lines, body[a], body[b])]
        if runs:
            a, b = rng.choice(runs)
            out.append((offsets[body[a].lineno - 1], offsets[body[b].end_lineno]))
    return out


def _span_cuts(src: str, lines: list[str], rng: random.Random) -> list[tuple[int, int]]:
    """One character range in each function body's code, of ``SPAN_CHARS`` characters."""
    offsets = _offsets(lines)
    out = []
    for body in _bodies(src, lines):
        first, last = body[0], body[-1]
        start = offsets[first.lineno - 1] + _col(lines[first.lineno - 1], first.col_offset)
        stop = offsets[last.end_lineno - 1] + _col(lines[last.end_lineno - 1],
                                                   last.end_col_offset)
        n = rng.randint(*SPAN_CHARS)
        if stop - start < n:
            continue
        a = rng.randint(start, stop - n)
        if src[a:a + n].strip():
            out.append((a, a + n))
    return out


def _expr_cuts(src: str, lines: list[str]) -> list[tuple[int, int]]:
    """The values of the one-line assignments and returns of function bodies.

    Each from the value's first character to the line's end: what a user leaves as
    ``x = ???`` or ``return ???``.
    """
    offsets = _offsets(lines)
    out = set()
    for body in _bodies(src, lines):
        for st in body:
            value = getattr(st, "value", None)
            if not isinstance(st, ast.Assign | ast.AugAssign | ast.AnnAssign | ast.Return) \
                    or value is None:
                continue
            i = st.lineno - 1
            if st.lineno == st.end_lineno and len(lines[i]) <= MAX_LINE \
                    and _whole_lines(lines, st, st):
                out.add((offsets[i] + _col(lines[i], value.col_offset),
                         offsets[i] + _col(lines[i], value.end_col_offset)))
    return sorted(out)


def _offsets(lines: list[str]) -> list[int]:
    """Where each line starts, and one past the end."""
    out = [0]
    for line in lines:
        out.append(out[-1] + len(line))
    return out


def heldout_files(corpus: Path) -> list[tuple[str, str]]:
    """``(name, text)`` of each file of ``corpus``'s held-out split, in its order.

    ValueError with one line if there is no held-out split.
    """
    if not (corpus / "heldout.txt").is_file():
        raise ValueError(f"{corpus}: no held-out corpus (remask train builds one)")
    held = Corpus(corpus, "heldout")
    names_file = corpus / "heldout.files.txt"
    names = names_file.read_text().splitlines() if names_file.is_file() else []
    return [(names[d] if d < len(names) else f"doc{d}", held.doc(d)) for d in range(len(held))]


def real_edits_files(path: Path = REAL) -> list[tuple[str, str]]:
    """``(repo/path, text)`` of each Python file of the real-edits set, once, by name.

    The text is the file as its commit left it (a case's ``expected``). Nine projects no model
    trained on and no knob was chosen on: a second sample beside the held-out split, which
    the ``expr`` figures were tuned on. ValueError with one line if the set is missing.
    """
    if not path.is_file():
        raise ValueError(f"{path}: no real-edits set")
    files: dict[str, str] = {}
    for case in real_cases(path):
        if case.path.endswith(".py"):
            files.setdefault(f"{case.repo}/{case.path}", case.expected)
    return sorted(files.items())


def cut_tasks(files: list[tuple[str, str]], limit: int, seed: int = 0,
              kind: str = "line") -> list[Task]:
    """Up to ``limit`` tasks of ``kind`` from ``files`` (``(name, text)`` pairs).

    An ``expr`` task's file holds no ``MARKER`` of its own: the bench writes one in the hole.
    ValueError with one line if the files give no task.
    """
    if kind not in KINDS:
        raise ValueError(f"--kind {kind}: one of {', '.join(KINDS)}")
    pool = []
    for name, src in files:
        lines = _split(src)
        rng = random.Random(f"{seed}:{name}")  # a file's cuts don't depend on the others
        if kind == "expr":
            cuts = _expr_cuts(src, lines) if MARKER not in src else []
        else:
            cuts = _line_cuts(src, lines) if kind == "line" else \
                _block_cuts(src, lines, rng) if kind == "block" else _span_cuts(src, lines, rng)
        pool += [(name, src, a, b) for a, b in cuts]
    random.Random(seed).shuffle(pool)
    tasks, taken = [], {}
    for name, src, a, b in pool:
        if len(tasks) == limit:
            break
        if taken.get(name, 0) >= PER_FILE:
            continue
        taken[name] = taken.get(name, 0) + 1
        line = src.count("\n", 0, a) + 1
        tid = f"{name}:{line}" if kind in ("line", "expr") else f"{name}:{line}@{a}+{b - a}"
        tasks.append(Task(tid, src[:a], src[b:], src[a:b], test="", entry_point=""))
    if not tasks:
        raise ValueError(f"no {kind} tasks in the files' function bodies")
    return tasks


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lines", help="lines, blocks or spans of held-out corpus files, removed "
                                     "and filled again")
    p.add_argument("--kind", choices=KINDS, default="line",
                   help="what a task removes: one statement line, a block of lines, a "
                        "span of characters, or the value of an assignment or return, "
                        "filled as `remask fill` fills a ??? there (default line)")
    p.add_argument("--corpus", type=Path, default=DEFAULT_HOME / "corpus",
                   help="the corpus remask train built (default ~/.cache/remask/corpus)")
    p.add_argument("--real-edits", action="store_true",
                   help="cut from the files of ../shared/benchmarks/real-edits (nine projects "
                        "no model trained on) instead of the corpus's held-out split")
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
        if args.limit < 1 or args.threads < 1:
            raise ValueError("--limit and --threads must be at least 1")
        checks.rows(args.samples, "--samples", 0)
        checks.threads(args.threads)
        files = real_edits_files() if args.real_edits else heldout_files(args.corpus)
        tasks = cut_tasks(files, args.limit, kind=args.kind)
        engine = load_engine(args.model, precision=args.precision)
    except ValueError as e:
        print(f"remask bench lines: {e}", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    sampler = task_sampler(samples=args.samples)
    marker = MARKER if args.kind == "expr" else None
    rewriter = None
    if marker:  # as ``remask fill`` fills it: the hole's kind picks canvas, budget and ranking
        rewriter = Rewriter(engine, RewriterConfig(sampler=engine.sampler,
                                                   hole_samples=args.samples))
    elif args.rewriter:
        rewriter = Rewriter(engine, RewriterConfig(sampler=sampler))
    t0 = time.perf_counter()
    results = generate_all(engine, tasks, sampler, rewriter=rewriter, label="fill", marker=marker)
    summary = summarize(results)  # its pass@1 columns mean nothing here: no tests were run
    row = {"model": f"{engine.name} (rewriter)" if rewriter else engine.name,
           **{k: summary[k] for k in COLUMNS[1:]}}
    meta = {"files": str(REAL) if args.real_edits else str(args.corpus), "kind": args.kind,
            "limit": args.limit,
            "samples": args.samples,
            "rewriter": rewriter is not None, "model": str(args.model or "bundled"),
            "threads": args.threads, "dtype": str(compute_dtype(args.precision)),
            "seconds": time.perf_counter() - t0,
            "per_task": [{"task_id": r.task_id, "completion": r.completion, "exact": r.exact,
                          "edit_sim": r.edit_sim, "cpu_seconds": r.cpu_seconds}
                         for r in results]}
    source = "real-edits" if args.real_edits else "held-out"
    report([row], COLUMNS, f"{source} {args.kind} tasks", args.json, meta)
    return 0
