"""``remask bench edits``: do follow-up proposals reproduce what the developer wrote.

Default: reversed edits made from real code the model did not train on (HumanEval solutions and
the corpus's held-out part; see :mod:`.edit_cases`), scored per kind for exact match, parse
rate and latency. ``--real``: the 192 real-edits cases (exact match to the commit, parse rate,
no change outside the follow-up lines), by kind and sub-kind, beside the scope-blind
replace-all baseline for renames.

Two exact-match columns keep the sources apart: ``exact`` is the proposal remask offers
(mechanical candidates, such as the new name the user typed, rank first when they validate);
``model exact`` is the file built from the model's own top candidates alone.
"""

from __future__ import annotations

import argparse
import ast
import statistics
import sys
import time
from pathlib import Path

from rich.progress import Progress

from remask.diffing.proposal import Proposal, combine
from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.infill.engine import load_engine

from . import checks
from .edit_cases import REAL, Case, clean, real_cases, replace_all, synthetic_cases
from .report import report


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("edits", help="edit-propagation benchmark (reversed edits, or --real)")
    p.add_argument("--source", type=Path, default=None,
                   help="directory of .py files to make cases from (default: HumanEval + "
                        "held-out corpus)")
    p.add_argument("--limit", type=int, default=None,
                   help="cases per kind (default 40; --real: all 192)")
    p.add_argument("--json", type=Path, default=None, help="write the rows here")
    p.add_argument("--real", action="store_true", help="run the real-edits cases instead")
    p.add_argument("--candidates", type=int, default=1)
    p.add_argument("--rounds", type=int, default=2, help="re-mask rounds on new errors")
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled model)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        cases = _cases(args)
        engine = load_engine(args.model)
    except (OSError, ValueError) as e:
        print(f"remask bench edits: {e}", file=sys.stderr)
        return 2
    rewriter = Rewriter(engine, RewriterConfig(candidates=args.candidates, rounds=args.rounds,
                                               sampler=engine.sampler))
    results = []
    with Progress(transient=True) as progress:
        task = progress.add_task("edits", total=len(cases))
        for case in cases:
            results.append(score_case(rewriter, case, args.real))
            progress.advance(task)
    rows = summarize(results, args.real)
    columns = ["kind", "cases", "exact", "model exact", "parse", "proposed", "p50 s", "p95 s"]
    if args.real:
        columns.insert(5, "clean")
        columns.append("replace-all exact")
    notes = ["exact: remask's proposal (mechanical candidates rank first when they validate);"
             " model exact: the model's own top candidates only",
             f"model: {engine.name}; real-edits projects are not in the training corpus"]
    report(rows, columns, "remask bench edits" + (" --real" if args.real else ""),
           args.json, meta={"model": engine.name, "real": args.real, "rounds": args.rounds,
                            "cases": results}, notes=notes)
    return 0


def _cases(args: argparse.Namespace) -> list[Case]:
    if args.limit is not None and args.limit < 1:
        raise ValueError("--limit must be at least 1")
    checks.rows(args.candidates, "--candidates", 1)
    if args.rounds < 0:
        raise ValueError("--rounds must not be negative")
    if args.real:
        if not REAL.exists():
            raise ValueError(f"{REAL}: not found")
        cases = real_cases()
        return cases[:args.limit] if args.limit else cases
    if args.source is not None and not args.source.is_dir():
        raise ValueError(f"{args.source}: not a directory")
    return synthetic_cases(args.source, args.limit or 40)


def score_case(rewriter: Rewriter, case: Case, real: bool) -> dict:
    """Run one case through ``Rewriter.propose`` and score its outcome."""
    t0 = time.perf_counter()
    proposals = rewriter.propose(case.before, case.after, case.path)
    seconds = time.perf_counter() - t0
    merged = combine(case.after, proposals)
    text = merged.text if merged is not None else case.after
    model = _model_text(case.after, proposals)
    row = {"id": case.id, "kind": case.kind, "subkind": case.subkind,
           "proposed": merged is not None, "exact": text == case.expected,
           "model_exact": model == case.expected, "parse": _parses(text),
           "seconds": round(seconds, 4),
           "sources": [s for p in proposals for s in p.trace.get("sources", [])]}
    if real:
        row["clean"] = clean(case, text)
        if case.kind == "rename":
            row["replace_all_exact"] = replace_all(case) == case.expected
    return row


def _model_text(after: str, proposals: list[Proposal]) -> str:
    """Return the file the model's own top candidates make (``trace["model_text"]``)."""
    texts = []
    for p in proposals:
        how = p.trace.get("model_text")
        if how == "same":
            texts.append(p.text)
        elif how == "alternative":
            texts.append(p.alternatives[0])
    return texts[0] if len(texts) == 1 and len(proposals) == 1 else after


def summarize(results: list[dict], real: bool) -> list[dict]:
    """One row per kind (and per real sub-kind), then all cases."""
    groups: dict[str, list[dict]] = {}
    for r in results:
        groups.setdefault(r["kind"], []).append(r)
        if real:
            groups.setdefault(f"{r['kind']}/{r['subkind']}", []).append(r)
    groups["all"] = results
    return [_row(k, v, real) for k, v in sorted(groups.items(), key=lambda kv: (
        kv[0] == "all", "/" in kv[0], kv[0]))]


def _row(kind: str, rs: list[dict], real: bool) -> dict:
    secs = sorted(r["seconds"] for r in rs)
    row = {"kind": kind, "cases": len(rs), "exact": _rate(rs, "exact"),
           "model exact": _rate(rs, "model_exact"), "parse": _rate(rs, "parse"),
           "proposed": _rate(rs, "proposed"),
           "p50 s": round(statistics.median(secs), 3) if secs else None,
           "p95 s": round(secs[min(len(secs) - 1, int(0.95 * len(secs)))], 3) if secs else None}
    if real:
        row["clean"] = _rate(rs, "clean")
        base = [r for r in rs if "replace_all_exact" in r]
        row["replace-all exact"] = _rate(base, "replace_all_exact") if base else None
    return row


def _rate(rs: list[dict], key: str) -> float | None:
    return round(sum(bool(r[key]) for r in rs) / len(rs), 3) if rs else None


def _parses(text: str) -> bool:
    try:
        ast.parse(text)
        return True
    except (SyntaxError, ValueError):
        return False
