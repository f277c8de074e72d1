"""``remask bench quality``: the model-quality table of issue 6, one row per model.

Columns: held-out middle cross-entropy (moves long before pass@1 does), single-line exact match
and edit similarity,
pass@1 on single-line / multi-line / random-span-light with the span's length unknown, and,
over all those tasks, the empty-output rate and tokens committed per forward pass. By default
the bundled diffusion model and its matched AR baseline sit side by side.

The cross-entropy uses the training driver's own held-out set (``remask.infill.train``), so the
number is the one on the training curve; it needs the corpus ``remask train`` builds (under
``~/.cache/remask/corpus`` by default) and is left empty, with a note, when there is none.
For a diffusion model it is the 1/t-weighted bound, for AR the exact NLL of the middle: the two
are comparable only as "diffusion's bound is at least its true loss".
"""

from __future__ import annotations

import argparse
import json
import sys
from dataclasses import asdict, fields
from datetime import date
from pathlib import Path

import torch

from remask.diffing.files import atomic_write
from remask.infill.data import DataConfig
from remask.infill.engine import BUNDLED, BUNDLED_AR, Engine, load_engine
from remask.infill.heldout import evaluate, heldout_batches
from remask.infill.model import load_model
from remask.infill.precision import PRECISIONS, compute_dtype
from remask.infill.sampler import SamplerConfig
from remask.infill.train import DEFAULT_HOME, TrainConfig

from . import checks
from .humaneval import DEFAULT_DATA, Task, load_tasks, subset
from .infill import TaskResult, generate_all, judge_all, summarize, task_sampler, threshold_arg
from .report import report
from .sandbox import SandboxConfig, network_isolation

PASS_SPLITS = ("single-line", "multi-line", "random-span-light")
COLUMNS = ["model", "heldout_middle_ce", "single_line_exact", "single_line_edit_sim",
           "pass@1 single-line",
           "pass@1 multi-line", "pass@1 random-span-light", "empty_rate", "tokens_per_forward",
           "kept_tokens_per_forward", "kept_tokens_per_step"]


def heldout_ce(engine: Engine, model_dir: Path, corpus: Path) -> float | None:
    """Held-out middle cross-entropy (nats/token) as training measures it; None without data."""
    if not (corpus / "heldout.txt").is_file():
        return None
    model = load_model(model_dir)  # fp32, as training evaluates, whatever the engine runs in
    info = model_dir / "training.json"
    saved = json.loads(info.read_text()).get("config", {}) if info.is_file() else {}
    known = {f.name for f in fields(TrainConfig)} - {"data"}
    cfg = TrainConfig(**{k: v for k, v in saved.items() if k in known},
                      data=DataConfig(**{k: (tuple(map(tuple, v)) if k == "span_kinds" else v)
                                         for k, v in saved.get("data", {}).items()}))
    objective = "diffusion" if engine.is_diffusion else "ar"
    batches = heldout_batches(corpus, engine.tokenizer, cfg.data, objective, cfg.eval_examples,
                              model.cfg.shift)
    return evaluate(model, batches, objective)["middle_ce"]


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("quality", help="held-out CE, exact match, pass@1 on three splits")
    p.add_argument("--model", type=Path, action="append", default=None,
                   help="model directory, repeatable (default: bundled diffusion and AR)")
    p.add_argument("--limit", type=int, default=None,
                   help="a seeded sample of N tasks per split")
    p.add_argument("--data", type=Path, default=None,
                   help=f"HumanEval-Infilling folder (default {DEFAULT_DATA})")
    p.add_argument("--corpus", type=Path, default=DEFAULT_HOME / "corpus",
                   help="corpus built by remask train, for the held-out cross-entropy")
    p.add_argument("--threshold", type=threshold_arg, default=SamplerConfig.threshold,
                   help="commit confidence, or 'none' for one token per step")
    p.add_argument("--steps", type=int, default=SamplerConfig.max_steps,
                   help=f"denoising step budget (default {SamplerConfig.max_steps})")
    p.add_argument("--json", type=Path, default=None, metavar="OUT", help="write JSON here")
    p.add_argument("--threads", type=int, default=1, help="torch threads (default 1)")
    p.add_argument("--timeout", type=float, default=10.0, help="sandbox seconds per task")
    p.add_argument("--precision", choices=PRECISIONS, default="auto",
                   help="the weights' float type for generation (auto: bf16 where the CPU "
                        "computes it natively); the held-out loss is always fp32")
    p.add_argument("--record", type=Path, default=None, metavar="HISTORY",
                   help="append each row, with the model's training tokens, to this JSON "
                        "history (the repo keeps docs/quality-history.json; "
                        "remask train --plot draws it)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    models = args.model or [BUNDLED, BUNDLED_AR]
    try:
        if args.limit is not None and args.limit < 1:
            raise ValueError("--limit must be at least 1")
        checks.threads(args.threads)
        checks.positive("--timeout", args.timeout)
        if args.steps < 1:
            raise ValueError("--steps must be at least 1")
        if args.record is not None:
            read_history(args.record)  # a bad history fails now, not after the benchmark
        splits = {s: subset(load_tasks(s, args.data), args.limit) for s in PASS_SPLITS}
        engines = [load_engine(m, precision=args.precision) for m in models]
    except ValueError as e:
        print(f"remask bench quality: {e}", file=sys.stderr)
        return 2
    torch.set_num_threads(args.threads)
    sampler = task_sampler(threshold=args.threshold, max_steps=args.steps)
    sandbox = SandboxConfig(timeout=args.timeout)
    rows, per_task = [], {}
    for directory, engine in zip(models, engines, strict=True):
        row = {"model": engine.name, "diffusion": engine.is_diffusion,
               "heldout_middle_ce": heldout_ce(engine, Path(directory), args.corpus)}
        every: list[TaskResult] = []
        for split, tasks in splits.items():
            results = _judged(engine, tasks, sampler, sandbox, f"{engine.name} {split}")
            s = summarize(results)
            row[f"pass@1 {split}"] = s["pass@1"]
            if split == "single-line":
                row["single_line_exact"] = s["exact_match"]
                row["single_line_edit_sim"] = s["edit_sim"]
            every += results
            per_task[f"{engine.name} {split}"] = [asdict(r) for r in results]
        total = summarize(every)
        for key in ("empty_rate", "tokens_per_forward", "kept_tokens_per_forward",
                    "kept_tokens_per_step"):
            row[key] = total[key]
        rows.append(row)
    notes = ["pass@1 without the oracle length; empty_rate and tokens_per_forward over all "
             "tasks of the three splits",
             "tokens_per_forward counts every candidate length's commits; "
             "kept_tokens_per_forward only the returned candidate's tokens; "
             "kept_tokens_per_step those per denoising step (no context or ranking passes)"]
    if any(r["heldout_middle_ce"] is None for r in rows):
        notes.append(f"no held-out corpus at {args.corpus}: run `remask train` to build it "
                     "(heldout_middle_ce left empty)")
    else:
        notes.append("heldout_middle_ce: diffusion = 1/t-weighted bound, AR = exact NLL")
    meta = {"limit": args.limit, "threshold": args.threshold, "steps": args.steps,
            "corpus": str(args.corpus),
            "precision": args.precision, "dtype": str(compute_dtype(args.precision)),
            "models": [str(m) for m in models], "threads": args.threads,
            "tasks": {s: len(t) for s, t in splits.items()},
            "sandbox_network": network_isolation(), "per_task": per_task}
    report(rows, COLUMNS, "remask bench quality — HumanEval-Infilling, no oracle length",
           args.json, meta, notes=notes)
    if args.record is not None:
        try:
            record(args.record, rows, models, args.limit, args.threshold)
        except (OSError, ValueError) as e:
            print(f"remask bench quality: {e}", file=sys.stderr)
            return 2
    return 0


def read_history(history: Path) -> list:
    """The history's entries ([] when there is none yet); ValueError when it isn't one."""
    try:
        entries = json.loads(history.read_text()) if history.exists() else []
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise ValueError(f"--record {history}: unreadable ({e})") from None
    if not isinstance(entries, list):
        raise ValueError(f"--record {history}: not a JSON list")
    return entries


def record(history: Path, rows: list[dict], models: list[Path], limit: int | None,
           threshold: float | None) -> None:
    """Append the rows to a JSON list, each tagged with its model's cumulative training tokens.

    pass@1 moves long after the loss does; kept per export, the list is the second half of the
    training curve (tokens seen → pass@1 and edit similarity) that the held-out loss alone
    can't show.
    """
    entries = read_history(history)
    for row, directory in zip(rows, models, strict=True):
        info = Path(directory) / "training.json"
        trained = json.loads(info.read_text()) if info.is_file() else {}
        entries.append({"model": row["model"], "diffusion": row["diffusion"],
                        "tokens": trained.get("tokens_total"), "commit": trained.get("commit"),
                        "date": date.today().isoformat(), "limit": limit, "threshold": threshold,
                        **{c: row[c] for c in COLUMNS if c != "model"}})
    atomic_write(history, json.dumps(entries, indent=1) + "\n")


def _judged(engine: Engine, tasks: list[Task], sampler: SamplerConfig, sandbox: SandboxConfig,
            label: str) -> list[TaskResult]:
    results = generate_all(engine, tasks, sampler, label=label)
    judge_all(tasks, results, sandbox, label=f"judge {label}")
    return results
