"""``remask bench speed``: cost per accepted completion, diffusion against the matched AR model.

One run, the same tasks, four configurations (two more per extra ``--threshold`` value, which
is how pass@1 against the threshold is measured, and one more per ``--steps`` budget and
threshold):

- AR: the bundled AR-FIM baseline, greedy with a KV cache, one token per forward pass;
- diffusion, 1 token/step: the denoiser committing exactly one token per forward pass;
- diffusion + threshold: every masked token at least ``--threshold`` confident commits at once;
- diffusion + threshold + cache: the same, with the prefix/suffix keys and values computed once;
- diffusion + threshold + cache, N steps: the same held to a budget of N denoising steps.

Each configuration generates in its own fresh child process, so its peak RSS (``VmHWM``
of that process: interpreter, torch, model and decoding) is its own and not the high-water mark
of whatever ran before it. Completions are judged afterwards in the sandbox, outside the timing.
"""

from __future__ import annotations

import argparse
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from multiprocessing import get_context
from pathlib import Path

import torch

from remask.diffing.canvas import HOLE_SAMPLES
from remask.infill.engine import BUNDLED, BUNDLED_AR, load_engine
from remask.infill.precision import compute_dtype
from remask.infill.sampler import SamplerConfig

from . import checks
from .humaneval import Task
from .infill import (
    TaskResult,
    add_task_args,
    generate_all,
    judge_all,
    summarize,
    task_sampler,
    tasks_from_args,
    threshold_arg,
)
from .lsp import peak_rss_kib
from .report import report
from .sandbox import SandboxConfig, network_isolation

COLUMNS = ["config", "pass@1", "edit_sim", "forward_passes_per_task", "tokens_per_forward",
           "kept_tokens_per_forward", "kept_tokens_per_step",
           "tokens_processed_per_task", "latency_p50_s", "latency_p95_s", "cpu_s_per_task",
           "cpu_s_per_accepted",
           "accepted_tokens_per_cpu_s", "cpu_ratio_to_ar", "accepted_tokens_per_s",
           "ratio_to_ar", "peak_rss_mib"]


@dataclass(frozen=True)
class SpeedConfig:
    """One row of the table: which model, with or without the context cache, which sampler."""

    name: str
    model: Path
    use_cache: bool
    sampler: SamplerConfig
    precision: str = "auto"  # the same for every row: AR and diffusion are matched


def configs(model: Path, ar_model: Path, thresholds: list[float], precision: str = "auto",
            budgets: list[int] | tuple[int, ...] = (), samples: int = HOLE_SAMPLES
            ) -> list[SpeedConfig]:
    """Build the rows, AR first (the ratios are taken against it), then 1 token/step.

    Every diffusion row fills as ``remask fill`` fills a ``???`` hole, ``samples`` drawn
    rows included (0: the argmax rows alone).
    """
    def diffusion(**kwargs) -> SamplerConfig:
        return task_sampler(samples=samples, **kwargs)
    rows = [SpeedConfig("AR (KV cache)", ar_model, True, task_sampler(), precision),
            SpeedConfig("diffusion 1 token/step", model, False,
                        diffusion(threshold=None, tokens_per_step=1), precision)]
    for t in thresholds:
        rows += [SpeedConfig(f"diffusion + threshold {t:g}", model, False,
                             diffusion(threshold=t), precision),
                 SpeedConfig(f"diffusion + threshold {t:g} + cache", model, True,
                             diffusion(threshold=t), precision)]
        rows += [SpeedConfig(f"diffusion + threshold {t:g} + cache, {n} steps", model, True,
                             diffusion(threshold=t, max_steps=n), precision)
                 for n in budgets]
    return rows


def _rss_mib() -> float:
    return peak_rss_kib() / 1024


def generate_in_child(cfg: SpeedConfig, tasks: list[Task], threads: int
                      ) -> tuple[list[TaskResult], float, float]:
    """Generate every task under ``cfg``; runs in a fresh process (see the module docstring).

    Returns the results, the peak RSS in MiB, and the peak before the model was loaded (the
    interpreter and torch alone), so the model's own share can be read off.
    """
    torch.set_num_threads(threads)
    before = _rss_mib()
    engine = load_engine(cfg.model, use_cache=cfg.use_cache, precision=cfg.precision)
    results = generate_all(engine, tasks, cfg.sampler, label=cfg.name)
    return results, _rss_mib(), before


def measure(cfg: SpeedConfig, tasks: list[Task], threads: int) -> tuple[list[TaskResult],
                                                                       float, float]:
    """Run :func:`generate_in_child` in a new spawned process and wait for it."""
    with ProcessPoolExecutor(max_workers=1, mp_context=get_context("spawn")) as pool:
        return pool.submit(generate_in_child, cfg, tasks, threads).result()


def measure_all(cfgs: list[SpeedConfig], tasks: list[Task], threads: int,
                sandbox: SandboxConfig) -> tuple[list[dict], dict[str, list[dict]]]:
    """Measure and judge every configuration; returns the table rows and per-task results."""
    rows, per_config = [], {}
    for cfg in cfgs:
        results, peak, before = measure(cfg, tasks, threads)
        judge_all(tasks, results, sandbox, label=f"judge {cfg.name}")
        rows.append({"config": cfg.name, **summarize(results), "peak_rss_mib": peak,
                     "rss_before_model_mib": before, "use_cache": cfg.use_cache,
                     "threshold": cfg.sampler.threshold, "steps": cfg.sampler.max_steps})
        per_config[cfg.name] = [asdict(r) for r in results]
    ar = rows[0]
    for r in rows:
        r["ratio_to_ar"] = _ratio(r["accepted_tokens_per_s"], ar["accepted_tokens_per_s"])
        r["cpu_ratio_to_ar"] = _ratio(r["accepted_tokens_per_cpu_s"],
                                      ar["accepted_tokens_per_cpu_s"])
        r["generated_ratio_to_ar"] = _ratio(r["generated_tokens_per_s"],
                                            ar["generated_tokens_per_s"])
    return rows, per_config


def _notes(rows: list[dict], threads: int) -> list[str]:
    """Say how each figure was measured, and what this run says about the claim."""
    notes = ["accepted_tokens_per_cpu_s = tokens of passing completions / all generation "
             "CPU-seconds (accepted_tokens_per_s: / wall seconds); cpu_ratio_to_ar and "
             "ratio_to_ar divide them by AR's",
             "peak_rss_mib: VmHWM of a fresh process per configuration (python + torch + "
             "model + decoding); rss_before_model_mib in the JSON is the same before loading",
             f"{threads} torch thread(s); the sandbox runs outside the timed part; "
             "cpu_s_per_task is process CPU time, steadier than latency on a shared machine"]
    if not rows[0]["accepted_tokens_per_s"]:
        notes.append("AR accepted no completion, so the ratios to AR are undefined; "
                     "generated_ratio_to_ar in the JSON compares raw generated tokens/s")
    return [*notes, _verdict(rows)]


def _ratio(value: float | None, base: float | None) -> float | None:
    return value / base if value is not None and base else None


def _verdict(rows: list[dict]) -> str:
    """State issue 9's claim for this run: the best diffusion row against AR and 1 token/step."""
    ar, one_step, *rest = rows
    key = "accepted_tokens_per_cpu_s" if any(r["accepted_tokens_per_cpu_s"] for r in rows) \
        else "generated_tokens_per_s"
    best = max([one_step, *rest], key=lambda r: r[key] or 0.0)
    ratio = _ratio(best[key], ar[key])
    gap = 100 * (best["pass@1"] - one_step["pass@1"])
    return (f"best diffusion row by {key}: {best['config']}, "
            f"{'undefined' if ratio is None else f'{ratio:.2f}x'} AR, pass@1 {gap:+.1f} points "
            "against diffusion 1 token/step")


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("speed", help="diffusion vs the matched AR baseline: cost per accepted "
                                     "completion")
    add_task_args(p)
    p.add_argument("--model", type=Path, default=BUNDLED, help="diffusion model directory")
    p.add_argument("--ar-model", type=Path, default=BUNDLED_AR, help="AR model directory")
    p.add_argument("--threshold", type=threshold_arg, nargs="+",
                   default=[SamplerConfig.threshold], metavar="T",
                   help="commit confidence(s) for the threshold rows, each giving two rows "
                        f"(default {SamplerConfig.threshold})")
    p.add_argument("--steps", type=int, nargs="+", default=[], metavar="N",
                   help="denoising step budgets, each adding a cached row per threshold "
                        f"(the other rows: {SamplerConfig.max_steps}, which seldom binds)")
    p.add_argument("--samples", type=int, default=HOLE_SAMPLES,
                   help="rows drawn beside the argmax rows in every diffusion row, as for a "
                        f"??? hole (default {HOLE_SAMPLES}; 0: the argmax rows alone)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        tasks = tasks_from_args(args)
        if None in args.threshold:
            raise ValueError("--threshold must be a number here (1 token/step is its own row)")
        if any(n < 1 for n in args.steps):
            raise ValueError("--steps must be at least 1")
        checks.rows(args.samples, "--samples", 0)
        for directory, diffusion, kind in ((args.model, True, "a diffusion"),
                                           (args.ar_model, False, "an AR")):
            if load_engine(directory).is_diffusion != diffusion:
                raise ValueError(f"{directory}: not {kind} model")
    except ValueError as e:
        print(f"remask bench speed: {e}", file=sys.stderr)
        return 2
    rows, per_config = measure_all(configs(args.model, args.ar_model, args.threshold,
                                           args.precision, args.steps, args.samples), tasks,
                                   args.threads, SandboxConfig(timeout=args.timeout))
    notes = _notes(rows, args.threads)
    meta = {"split": args.split, "limit": args.limit, "threshold": args.threshold,
            "steps": args.steps, "samples": args.samples, "model": str(args.model),
            "ar_model": str(args.ar_model),
            "threads": args.threads,
            "precision": args.precision, "dtype": str(compute_dtype(args.precision)),
            "sandbox_network": network_isolation(), "per_task": per_config}
    report(rows, COLUMNS, f"remask bench speed — HumanEval-Infilling {args.split}, "
           f"{len(tasks)} tasks", args.json, meta, notes=notes)
    return 0
