"""``remask train``: pre-train AR-FIM, adapt to diffusion, resume, export the bundle."""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
from pathlib import Path

from remask.bench import checks
from remask.infill.data import WEIGHTINGS, DataConfig
from remask.infill.export import export
from remask.infill.grow import grown_config
from remask.infill.model import ModelConfig, load_config, load_model
from remask.infill.precision import PRECISIONS
from remask.infill.train import DEFAULT_HOME, Diverged, TrainConfig, train


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("train", help="train or resume a model on the allow-listed corpus")
    p.add_argument("--name", default="diffusion", help="run name or directory (checkpoints)")
    p.add_argument("--objective", choices=["ar", "diffusion"], default="diffusion")
    p.add_argument("--init", type=Path, help="start from this model directory (AR → diffusion)")
    p.add_argument("--resume", action="store_true", help="continue the run if it exists")
    p.add_argument("--max-tokens", type=float, default=0, help="stop at this many tokens")
    p.add_argument("--max-minutes", type=float, default=0)
    p.add_argument("--cooldown", type=float, default=0.0,
                   help="decay lr to a tenth over this last fraction of --max-tokens/--max-minutes")
    p.add_argument("--device", default="cpu", help="cpu, or cuda where a GPU is lent")
    p.add_argument("--workers", type=int, default=0,
                   help="processes making batches (a GPU outruns one core)")
    p.add_argument("--ema", type=float, default=TrainConfig.ema, help="EMA decay per step")
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--batch", type=int, default=16)
    p.add_argument("--precision", choices=PRECISIONS, default="auto",
                   help="autocast dtype; auto uses bf16 only where the CPU has it natively")
    p.add_argument("--lr", type=float, default=1e-3)
    p.add_argument("--warmup", type=int, default=TrainConfig.warmup,
                   help="steps of linear lr warm-up at the start of each invocation")
    p.add_argument("--block", type=int, default=DataConfig.block)
    p.add_argument("--uncond-rate", type=float, default=DataConfig.uncond_rate,
                   help="share of examples that are a whole window with no context")
    p.add_argument("--free-length-rate", type=float, default=DataConfig.free_length_rate,
                   help="share of diffusion canvases whose length ignores the middle's")
    p.add_argument("--function-rate", type=float, default=DataConfig.function_rate,
                   help="share of infill examples cut as HumanEval's are: one documented "
                        "function, the span in its body")
    p.add_argument("--canvases", type=int, default=DataConfig.canvases,
                   help="canvases of each diffusion infill example: fresh maskings of its "
                        "middle after its one context (the held-out set keeps one)")
    p.add_argument("--no-blank-middles", action="store_true",
                   help="draw another span where one is only whitespace")
    p.add_argument("--loss-weight", choices=WEIGHTINGS, default=DataConfig.weighting,
                   help="elbo: 1/t on each masked token (the bound); flat: 1, so heavily "
                        "masked canvases count more")
    p.add_argument("--canvas-room", type=int, default=DataConfig.canvas_room,
                   help="tokens past the block that further canvases may take (a batch pads "
                        "to its longest row)")
    p.add_argument("--d-model", type=int, default=None,
                   help=f"width (default {ModelConfig.d_model}); with --init, grow it to this")
    p.add_argument("--n-layer", type=int, default=None,
                   help=f"layers (default {ModelConfig.n_layer}); with --init, grow to this")
    p.add_argument("--n-head", type=int, default=None,
                   help=f"heads (default {ModelConfig.n_head}; a grown model keeps the head size)")
    p.add_argument("--no-shift", action="store_true", help="predict each token at its own slot")
    p.add_argument("--eval-every", type=int, default=100)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--vocab-size", type=int, default=TrainConfig.vocab_size,
                   help="BPE vocabulary when the tokenizer is first trained")
    p.add_argument("--home", type=Path, default=DEFAULT_HOME, help="corpus and runs live here")
    p.add_argument("--export", type=Path, metavar="DIR",
                   help="write the run's EMA weights as a bundle to DIR and exit")
    p.add_argument("--plot", type=Path, metavar="PNG",
                   help="draw the bundled models' training curve to PNG and exit")
    p.add_argument("--history", type=Path, default=Path("docs/quality-history.json"),
                   help="benchmark scores recorded by `remask bench quality --record`, "
                        "drawn beside the curve with --plot (skipped when missing)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.plot:
        from remask.infill.curve import plot
        from remask.infill.engine import BUNDLED, BUNDLED_AR

        try:
            plot([BUNDLED_AR, BUNDLED], args.plot, args.history)
        except ImportError:
            print("remask train --plot: needs matplotlib (pip install -e '.[plot]')",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.plot}")
        return 0
    run_dir = Path(args.name) if "/" in str(args.name) else args.home / "runs" / args.name
    old = run_dir.with_name(run_dir.name + ".old")
    if not run_dir.exists() and (old / "state.json").is_file():  # killed between two renames
        print(f"remask train: {run_dir} was cut short while saving; its last checkpoint is "
              f"{old}: move it back to {run_dir} to go on", file=sys.stderr)
        return 2
    if args.export:
        if not (run_dir / "state.json").exists():
            print(f"remask train: no run at {run_dir}", file=sys.stderr)
            return 2
        bad = _unusable_run(run_dir)
        if bad:
            print(f"remask train: {bad}", file=sys.stderr)
            return 2
        commit = subprocess.run(["git", "rev-parse", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent).stdout.strip()
        try:
            info = export(run_dir, args.export, " ".join(["remask", *sys.argv[1:]]), commit,
                          args.home)
        except ValueError as e:
            print(f"remask train: {e}", file=sys.stderr)
            return 2
        print(f"exported {info['tokens_total'] / 1e6:.1f}M tokens of training to {args.export}")
        return 0
    if (run_dir / "state.json").exists() and not args.resume:
        print(f"remask train: {run_dir} exists; pass --resume to continue it", file=sys.stderr)
        return 2
    bad = _bad_number(args) or ((run_dir / "state.json").exists() and _unusable_run(run_dir))
    if bad:
        print(f"remask train: {bad}", file=sys.stderr)
        return 2
    if args.cooldown and not (args.max_tokens or args.max_minutes):
        print("remask train: --cooldown needs --max-tokens or --max-minutes", file=sys.stderr)
        return 2
    if args.device != "cpu":
        import torch

        if not args.device.startswith("cuda") or not torch.cuda.is_available():
            print(f"remask train: --device {args.device}: no such device here", file=sys.stderr)
            return 2
    if args.init is not None and not (args.init / "config.json").exists():
        print(f"remask train: --init {args.init}: no model there", file=sys.stderr)
        return 2
    if args.init is not None:
        try:  # a broken one fails now, not after the corpus is built
            load_model(args.init)
        except ValueError as e:
            print(f"remask train: --init {args.init}: not a usable model ({e})", file=sys.stderr)
            return 2
    d_model = args.d_model or ModelConfig.d_model
    try:
        grow_to = _grow_to(args, run_dir)
        model_cfg = ModelConfig(d_model=d_model, n_layer=args.n_layer or ModelConfig.n_layer,
                                n_head=args.n_head or ModelConfig.n_head,
                                d_ff=int(d_model * 8 / 3) // 16 * 16, shift=not args.no_shift)
    except ValueError as e:
        print(f"remask train: {e}", file=sys.stderr)
        return 2
    cfg = TrainConfig(objective=args.objective, batch=args.batch, lr=args.lr, seed=args.seed,
                      warmup=args.warmup,
                      threads=args.threads, precision=args.precision, eval_every=args.eval_every,
                      max_tokens=int(args.max_tokens), max_minutes=args.max_minutes,
                      cooldown=args.cooldown, device=args.device, workers=args.workers,
                      ema=args.ema,
                      vocab_size=args.vocab_size,
                      data=DataConfig(block=args.block, uncond_rate=args.uncond_rate,
                                      free_length_rate=args.free_length_rate,
                                      function_rate=args.function_rate,
                                      canvases=args.canvases,
                                      canvas_room=args.canvas_room,
                                      blank_middles=not args.no_blank_middles,
                                      weighting=args.loss_weight))
    _init_distributed()
    try:
        state = train(run_dir, cfg, model_cfg, init=args.init, home=args.home, grow_to=grow_to)
    except Diverged as e:
        print(f"remask train: {e}", file=sys.stderr)
        return 1
    finally:
        _leave_distributed()
    print(f"{run_dir}: step {state['step']}, {state['tokens'] / 1e6:.2f}M tokens this run")
    return 0


# The least each numeric flag may be (a batch of 0 steps forever on nothing; a block under 16
# tokens holds no prefix, middle and suffix; a width under 16 has no feed-forward), and the
# flags that are fractions: checked before anything is written, so a typo leaves no run behind.
_MINIMUM = {"batch": 1, "canvases": 1, "canvas_room": 0, "warmup": 1, "eval_every": 1, "block": 16,
            "vocab_size": 1, "d_model": 16, "n_layer": 1, "n_head": 1,
            "workers": 0, "max_tokens": 0, "max_minutes": 0}
_FRACTIONS = ("uncond_rate", "free_length_rate", "function_rate", "cooldown", "ema")


def _bad_number(args: argparse.Namespace) -> str | None:
    """The first numeric flag out of its range, as a message; None when all are fine."""
    def flag(name: str) -> str:
        return "--" + name.replace("_", "-")

    for name, least in _MINIMUM.items():
        value = getattr(args, name)
        if value is not None and not value >= least:  # nan is no number of anything
            return f"{flag(name)} must be at least {least}, got {value}"
    for name in ("max_tokens", "max_minutes", "lr"):  # inf: int() raises, lr inf trains NaN
        if not math.isfinite(getattr(args, name)):
            return f"{flag(name)} must be a finite number, got {getattr(args, name)}"
    try:
        checks.threads(args.threads)
    except ValueError as e:
        return str(e)
    for name in _FRACTIONS:
        if not 0.0 <= getattr(args, name) <= 1.0:
            return f"{flag(name)} must be in [0, 1], got {getattr(args, name)}"
    if not args.lr > 0:
        return f"--lr must be positive, got {args.lr}"
    return None


# What a checkpoint :func:`remask.infill.train._save_state` writes holds; resume and export
# read them all, so a run missing one (copied by hand, a full disk) is refused up front.
_RUN_FILES = ("state.json", "config.json", "model.safetensors", "ema.safetensors",
              "optim.safetensors", "tokenizer.json")


def _unusable_run(run_dir: Path) -> str | None:
    """Why the run in ``run_dir`` cannot be resumed or exported, as one line; None if it can.

    Found here it is one line and exit 2, not a traceback once the corpus and model are loaded.
    """
    missing = [n for n in _RUN_FILES if not (run_dir / n).is_file()]
    if missing:
        return f"{run_dir}: not a usable run (missing {', '.join(missing)})"
    try:
        state = json.loads((run_dir / "state.json").read_text())
        if not isinstance(state, dict) or not {"step", "tokens", "tokens_before",
                                               "curve"} <= state.keys():
            raise ValueError("state.json is not a run's state")
        load_model(run_dir)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        return f"{run_dir}: not a usable run ({e})"
    return None


def _grow_to(args: argparse.Namespace, run_dir: Path) -> tuple[int, int] | None:
    """(width, layers) to grow ``--init`` to, None to keep its shape; ValueError if bad.

    A resumed run keeps the shape it has, so the command that started it can be repeated
    every session; flags naming another shape are an error, not silently ignored.
    """
    if args.init is None or (args.d_model is None and args.n_layer is None):
        return None
    cfg = load_config(args.init)
    target = (args.d_model or cfg.d_model, args.n_layer or cfg.n_layer)
    heads = target[0] // (cfg.d_model // cfg.n_head)
    if args.n_head not in (None, heads):
        raise ValueError(f"--n-head {args.n_head}: a model grown from {args.init} keeps its "
                         f"head size, so {target[0]} wide has {heads} heads")
    if (run_dir / "state.json").exists():
        run = load_config(run_dir)
        if (run.d_model, run.n_layer) != target:
            raise ValueError(f"{run_dir} is {run.n_layer} layers × {run.d_model}, not "
                             f"{target[1]} × {target[0]}")
        return None
    grown_config(cfg, *target)  # raises if it can't grow that way
    return None if target == (cfg.d_model, cfg.n_layer) else target


def _init_distributed() -> None:
    """Join the process group when started by torchrun (gloo: CPU-only machines)."""
    import torch.distributed as dist

    if "WORLD_SIZE" in os.environ and int(os.environ["WORLD_SIZE"]) > 1:
        dist.init_process_group("gloo")


def _leave_distributed() -> None:
    """Wait for rank 0's last checkpoint, then leave the group together.

    A rank that simply exited while rank 0 was still writing tore the gloo connections down
    under it, and on a loaded machine the leaver died of SIGABRT (exit -6, the run failed).
    """
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()
