"""The training driver: AR-FIM pre-training and adaptation to masked diffusion.

A run lives in a directory (``~/.cache/remask/runs/NAME`` by default) holding fp32 weights, an
EMA copy, the optimizer state and ``state.json`` — all safetensors/JSON, nothing pickled — so
``--resume`` continues exactly where the last session stopped, and tokens add up across
sessions. ``export`` writes the small fp16 bundle that ships with the package.
"""

from __future__ import annotations

import ctypes
import json
import os
import shutil
import signal
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import torch
import torch.distributed as dist
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from safetensors.torch import load_file, save_file

from .corpus import Corpus, build_corpus
from .data import DataConfig
from .grow import grow, shape_change
from .heldout import blank_rates, evaluate, heldout_batches, heldout_id
from .model import ModelConfig, Transformer, infill_mask, load_model, save_model
from .objectives import loss_positions, weighted_ce
from .precision import compute_dtype
from .stream import batch_stream, to_device
from .tokenizer import Tokenizer, train_tokenizer

DEFAULT_HOME = Path(os.environ.get("REMASK_HOME", Path.home() / ".cache" / "remask"))


MMAP_THRESHOLD = 1 << 20  # bytes: glibc serves blocks this big or bigger by mmap, always


def pin_mmap_threshold(nbytes: int = MMAP_THRESHOLD) -> bool:
    """Fix glibc's mmap threshold, so a freed activation goes back to the system at once.

    glibc raises the threshold to the size of each mmapped block freed (up to 32 MB), and
    from then on blocks of that size come from the heap, which tensors of changing shapes
    fragment. A one-thread CPU run grew to ~16 GB resident in 110 minutes (session 32),
    mostly from matmul shapes that changed every step (:func:`.objectives.loss_positions`
    rounds them now); the pin halves what varying shapes cost (600 steps: 3.2 → 1.5 GB)
    and trims the rest (shapes rounded: 0.41 → 0.32 GB). False where the C library is not
    glibc.
    """
    try:
        return bool(ctypes.CDLL("libc.so.6").mallopt(-3, nbytes))  # -3: M_MMAP_THRESHOLD
    except (OSError, AttributeError):
        return False


@dataclass(frozen=True)
class TrainConfig:
    objective: str = "ar"  # "ar" (FIM pre-training / baseline) or "diffusion"
    batch: int = 16
    lr: float = 1e-3
    warmup: int = 200
    weight_decay: float = 0.1
    grad_clip: float = 1.0
    ema: float = 0.999
    seed: int = 0
    threads: int = 1
    eval_every: int = 100
    eval_examples: int = 96
    max_tokens: int = 0  # stop after this many tokens in total (0: no limit)
    max_minutes: float = 0.0  # stop after this long in this invocation (0: no limit)
    cooldown: float = 0.0  # last fraction of a run of known length over which lr decays
    device: str = "cpu"  # "cpu" or "cuda" (a GPU machine, when one is lent)
    workers: int = 0  # processes making batches (0: in-process, bit-exact resume)
    vocab_size: int = 4096
    precision: str = "auto"  # "bf16", "fp32", or "auto" (bf16 where the CPU has it natively)
    data: DataConfig = field(default_factory=DataConfig)


def _rank() -> tuple[int, int]:
    if dist.is_available() and dist.is_initialized():
        return dist.get_rank(), dist.get_world_size()
    return 0, 1


def prepare_data(home: Path, vocab_size: int, log) -> tuple[Path, Tokenizer]:
    """Build the corpus and tokenizer under ``home`` once; later runs reuse them."""
    corpus = home / "corpus"
    if not (corpus / "manifest.json").exists():
        log(f"building corpus in {corpus}")
        build_corpus(corpus, log=log)
    tok_path = corpus / "tokenizer.json"
    if not tok_path.exists():
        log("training tokenizer")
        tok = train_tokenizer(Corpus(corpus, "train").texts(), vocab_size)
        tok.save(tok_path)
    return corpus, Tokenizer.load(tok_path)


def _lr(cfg: TrainConfig, steps_here: int, progress: float, warm: bool = True) -> float:
    """Warm up, then constant: an open-ended run leaves the annealing to the EMA.

    An invocation warms up (``warm``) unless it resumes at the lr and batch size the run last
    had: the optimizer's moments come back with the checkpoint, so only a new lr or batch
    needs the ramp (200 steps is ~45 minutes of a CPU session at batch 128). A run of known
    length (``max_tokens`` or ``max_minutes``; ``progress`` runs 0 → 1) may decay the lr
    linearly to a tenth over its last ``cooldown`` fraction, which a short GPU run needs.
    """
    lr = cfg.lr * (min(1.0, (steps_here + 1) / cfg.warmup) if warm else 1.0)
    if cfg.cooldown and progress > 1 - cfg.cooldown:
        lr *= 1 - 0.9 * min(1.0, (progress - 1 + cfg.cooldown) / cfg.cooldown)
    return lr


def _progress(cfg: TrainConfig, tokens: int, seconds: float) -> float:
    """How far the run is towards its token or time limit, whichever comes first."""
    return max(tokens / cfg.max_tokens if cfg.max_tokens else 0.0,
               seconds / (60 * cfg.max_minutes) if cfg.max_minutes else 0.0)


def _save_state(run: Path, model: Transformer, ema: Transformer, opt: torch.optim.Optimizer,
                state: dict) -> None:
    """Write the checkpoint to a temp dir and swap it in, so a kill never leaves half of one."""
    tmp = run.with_name(run.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    save_model(model, tmp, torch.float32)
    ema_state = {k: v.detach().cpu().contiguous() for k, v in ema.state_dict().items()}
    save_file(ema_state, str(tmp / "ema.safetensors"))
    tensors, meta = {}, {}
    for pid, s in opt.state_dict()["state"].items():
        for key, val in s.items():
            if torch.is_tensor(val) and val.dim() > 0:
                tensors[f"{pid}.{key}"] = val.detach().cpu().contiguous()
            else:
                meta[f"{pid}.{key}"] = float(val)
    save_file(tensors, str(tmp / "optim.safetensors"))
    state = {**state, "optim_scalars": meta}
    (tmp / "state.json").write_text(json.dumps(state, indent=1))
    for name in ("tokenizer.json",):
        if (run / name).exists():
            shutil.copy(run / name, tmp / name)
    old = run.with_name(run.name + ".old")
    shutil.rmtree(old, ignore_errors=True)
    if run.exists():
        run.rename(old)
    tmp.rename(run)
    shutil.rmtree(old, ignore_errors=True)


def _load_optimizer(run: Path, opt: torch.optim.Optimizer, scalars: dict) -> None:
    tensors = load_file(str(run / "optim.safetensors"))
    sd = opt.state_dict()
    state: dict[int, dict] = {}
    for key, val in {**tensors, **scalars}.items():
        pid, name = key.split(".", 1)
        state.setdefault(int(pid), {})[name] = torch.tensor(val) if name == "step" else val
    sd["state"] = state
    opt.load_state_dict(sd)


def _heldout_changes(prior: dict, heldout: str) -> list[dict]:
    """The init's held-out changes, plus one here if its curve was taken on another set."""
    changes = list(prior.get("heldout_changes", []))
    if prior.get("curve") and prior.get("heldout") not in (None, heldout):
        changes.append({"tokens": prior.get("tokens_total", 0),
                        "why": f"held-out set {prior['heldout']} -> {heldout} (another corpus)"})
    return changes


def train(run: Path, cfg: TrainConfig, model_cfg: ModelConfig | None = None,
          init: Path | None = None, home: Path = DEFAULT_HOME, console: Console | None = None,
          grow_to: tuple[int, int] | None = None) -> dict:
    """Train (or resume) the run in ``run``; return its final state.

    ``grow_to`` (width, layers) grows ``init`` to that shape first (:mod:`.grow`).
    """
    rank, world = _rank()
    console = console or Console(stderr=True)
    log = console.log if rank == 0 else (lambda *a, **k: None)
    torch.set_num_threads(cfg.threads)
    pin_mmap_threshold()
    device = torch.device(cfg.device)
    dtype = compute_dtype(cfg.precision, device.type)
    torch.manual_seed(cfg.seed)  # same seed, same initial weights on every rank
    corpus, tok = prepare_data(home, cfg.vocab_size, log)
    if init is not None and (init / "tokenizer.json").exists():
        tok = Tokenizer.load(init / "tokenizer.json")
    resumed = (run / "state.json").exists()
    if resumed:
        state = json.loads((run / "state.json").read_text())
        tok = Tokenizer.load(run / "tokenizer.json")
        model = load_model(run)
        model_cfg = model.cfg
    else:
        if init is not None:
            base = load_model(init)
            prior = _read_json(init / "training.json")
            shapes = list(prior.get("shape_changes", []))
            if grow_to is not None:  # the curve records where the model changed
                shapes.append(shape_change(base.cfg, grow_to, prior.get("tokens_total", 0)))
                base = grow(base, *grow_to, seed=cfg.seed)
            model_cfg = ModelConfig(**{**asdict(base.cfg), "attention": _attention(cfg)})
            model = Transformer(model_cfg)
            model.load_state_dict(base.state_dict())
        else:
            model_cfg = ModelConfig(**{**asdict(model_cfg or ModelConfig()),
                                       "vocab_size": tok.vocab_size, "attention": _attention(cfg)})
            model = Transformer(model_cfg)
            prior, shapes = {}, []
        heldout = heldout_id(corpus)
        state = {"step": 0, "tokens": 0, "tokens_before": prior.get("tokens_total", 0),
                 "curve": prior.get("curve", []), "config": _jsonable(asdict(cfg)),
                 "init": str(init) if init else None, "seconds": 0.0,
                 "heldout": heldout, "heldout_changes": _heldout_changes(prior, heldout),
                 "shape_changes": shapes}
        if rank == 0:
            run.mkdir(parents=True, exist_ok=True)
            tok.save(run / "tokenizer.json")
    model.train().to(device)
    ema = Transformer(model_cfg)
    ema_path = run / "ema.safetensors"
    ema.load_state_dict(load_file(str(ema_path)) if resumed else model.state_dict())
    ema.eval().requires_grad_(False).to(device)
    decay, other = [], []
    for name, p in model.named_parameters():
        (decay if p.dim() >= 2 and "embed" not in name else other).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": cfg.weight_decay},
                             {"params": other, "weight_decay": 0.0}], lr=cfg.lr,
                            betas=(0.9, 0.95))
    if resumed:
        _load_optimizer(run, opt, state.get("optim_scalars", {}))
    ddp = torch.nn.parallel.DistributedDataParallel(model) if world > 1 else model
    rng = np.random.default_rng(cfg.seed + rank)
    if resumed and "rng" in state:
        rng.bit_generator.state = state["rng"][rank % len(state["rng"])]
    evals = _Evals(*[[to_device(b, device) for b in heldout_batches(
        corpus, tok, cfg.data, cfg.objective, cfg.eval_examples, model_cfg.shift, lengths)]
        if rank == 0 and (not lengths or cfg.objective == "diffusion") else []
        for lengths in (False, True)], tok.special.delete)
    batches = batch_stream(Corpus(corpus, "train"), tok, cfg.data, cfg.objective,
                           model_cfg.shift, cfg.batch, rng, cfg.workers,
                           [cfg.seed, rank, state["step"]], device)
    state.setdefault("commands", []).append(" ".join(["remask", *sys.argv[1:]]))
    state["config"] = _jsonable(asdict(cfg))  # this invocation's: a resume may change it
    warm = state.get("lr_batch") != [cfg.lr, cfg.batch]
    state["lr_batch"] = [cfg.lr, cfg.batch]
    log(f"model {model.num_params() / 1e6:.2f}M params, {cfg.objective}, "
        f"{'resumed at step ' + str(state['step']) if resumed else 'new run'}, world {world}, "
        f"{'bf16' if dtype == torch.bfloat16 else 'fp32'}, "
        f"{f'warm-up {cfg.warmup} steps' if warm else 'no warm-up (the lr and batch it had)'}")

    stop = {"now": False}

    def _on_signal(signum, frame):
        stop["now"] = True

    old_handlers = {s: signal.signal(s, _on_signal) for s in (signal.SIGTERM, signal.SIGINT)}
    t_start, saved_at, first_step = time.time(), state["step"], state["step"]
    progress = Progress(TextColumn("[bold]{task.description}"), BarColumn(),
                        TextColumn("{task.fields[info]}"), TimeElapsedColumn(),
                        console=console, disable=rank != 0)
    with progress:
        task = progress.add_task(cfg.objective, total=cfg.max_tokens or None,
                                 completed=state["tokens"], info="")
        window = []
        while not stop["now"]:
            if cfg.max_tokens and state["tokens"] >= cfg.max_tokens:
                break
            if cfg.max_minutes and time.time() - t_start > cfg.max_minutes * 60:
                break
            t0 = time.time()
            lr = _lr(cfg, state["step"] - first_step,
                     _progress(cfg, state["tokens"], t0 - t_start), warm)
            for g in opt.param_groups:
                g["lr"] = lr
            b = next(batches)
            select = loss_positions(b.targets)
            with torch.autocast(device.type, dtype=dtype, enabled=dtype != torch.float32):
                if cfg.objective == "ar":
                    logits, _ = ddp(b.idx, causal=True, select=select)
                else:
                    logits, _ = ddp(b.idx, mask=infill_mask(b.n_ctx, b.valid, b.segment),
                                    pos=b.pos, select=select)
            loss = weighted_ce(logits, b.targets[select], b.weights[select], b.denom)
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), cfg.grad_clip)
            opt.step()
            opt.zero_grad(set_to_none=True)
            with torch.no_grad():  # EMA with warm-up: early on it follows the weights closely
                decay = min(cfg.ema, (1 + state["step"]) / (10 + state["step"]))
                torch._foreach_lerp_(list(ema.parameters()), list(model.parameters()), 1 - decay)
            state["step"] += 1
            tokens_per_step = b.idx.numel() * world  # more than batch × block with canvases
            state["tokens"] += tokens_per_step
            loss_value = loss.item()  # waits for the step: a GPU runs ahead of the host
            state["seconds"] += time.time() - t0
            window = (window + [(loss_value, time.time() - t0, tokens_per_step)])[-20:]
            tps = sum(w[2] for w in window) / sum(w[1] for w in window)
            info = f"loss {np.mean([w[0] for w in window]):.3f}  lr {lr:.1e}  {tps:,.0f} tok/s  " \
                   f"{(state['tokens_before'] + state['tokens']) / 1e6:.2f}M tokens"
            progress.update(task, completed=state["tokens"], info=info)
            if state["step"] % cfg.eval_every == 0:
                if not (_finite(model) and _finite(ema)):  # every rank the same: all stop
                    break
                if rank == 0:
                    _checkpoint(run, model, ema, opt, state, rng, evals, cfg, log, info)
                saved_at = state["step"]
    for s, h in old_handlers.items():
        signal.signal(s, h)
    if not (_finite(model) and _finite(ema)):
        raise Diverged(f"step {state['step']}: the weights are no longer finite (the loss "
                       f"diverged); the checkpoint of step {saved_at} is kept")
    if rank == 0 and state["step"] > saved_at:
        _checkpoint(run, model, ema, opt, state, rng, evals, cfg, log, "final")
    return state


class Diverged(RuntimeError):
    """Training blew up: nothing non-finite was saved over the last good checkpoint."""


def _finite(model: torch.nn.Module) -> bool:
    """Whether every weight is a number: a diverged run's checkpoint would overwrite a good one."""
    return all(bool(torch.isfinite(p).all()) for p in model.parameters())


@dataclass(frozen=True)
class _Evals:
    """The held-out batches a checkpoint is judged on (:mod:`.heldout`); empty off rank 0."""

    middle: list
    blanks: list
    delete: int


def _checkpoint(run, model, ema, opt, state, rng, evals: _Evals, cfg, log, info) -> None:
    metrics = evaluate(ema, evals.middle, cfg.objective)
    if evals.blanks:  # what middle CE cannot see: blank answers (:mod:`.heldout`)
        metrics |= blank_rates(ema, evals.blanks, evals.delete)
    total = state["tokens_before"] + state["tokens"]
    state["curve"].append({"tokens": total, "step": state["step"], "objective": cfg.objective,
                           **{k: round(v, 4) for k, v in metrics.items()}})
    state["rng"] = [rng.bit_generator.state]
    _save_state(run, model, ema, opt, state)
    blanks = f", content argmax <delete> {metrics['false_delete']:.2%}" \
        if "false_delete" in metrics else ""
    log(f"step {state['step']}  {info}  held-out middle CE {metrics['middle_ce']:.3f}{blanks}")


def _attention(cfg: TrainConfig) -> str:
    return "causal" if cfg.objective == "ar" else "infill"


def _read_json(path: Path) -> dict:
    return json.loads(path.read_text()) if path.exists() else {}


def _jsonable(d: dict) -> dict:
    return json.loads(json.dumps(d, default=list))

