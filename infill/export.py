"""A training run's EMA weights as a small fp16 bundle: what ``--model`` loads and git ships.

Apart from the training loop: exporting reads a run's files and writes a directory, nothing
else, and it replaces that directory whole, so it refuses any directory that is not a bundle.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import torch
from safetensors.torch import load_file

from .model import ModelConfig, Transformer, save_model
from .train import DEFAULT_HOME


def export(run: Path, out: Path, command: str, commit: str, home: Path = DEFAULT_HOME) -> dict:
    """Write the EMA weights as a small fp16 bundle with its tokenizer and provenance.

    ``out`` is replaced whole, so it must be new, empty or an earlier bundle; anything else (a
    project, the run itself, ``~``) is a ValueError, left as it was.
    """
    if out.exists() and not (out.is_dir() and (not any(out.iterdir()) or (
            (out / "config.json").is_file() and (out / "model.safetensors").is_file()
            and not (out / "state.json").exists()))):
        raise ValueError(f"--export {out}: exists and is not a model bundle; name a new "
                         "directory (it is replaced whole)")
    state = json.loads((run / "state.json").read_text())
    model = Transformer(ModelConfig(**json.loads((run / "config.json").read_text())))
    model.load_state_dict(load_file(str(run / "ema.safetensors")))
    tmp = out.with_name(out.name + ".tmp")
    shutil.rmtree(tmp, ignore_errors=True)
    save_model(model, tmp, torch.float16)
    shutil.copy(run / "tokenizer.json", tmp / "tokenizer.json")
    manifest = home / "corpus" / "manifest.json"
    if manifest.exists():
        shutil.copy(manifest, tmp / "corpus-manifest.json")
    info = {"tokens_total": state["tokens_before"] + state["tokens"],
            "tokens_this_run": state["tokens"], "steps": state["step"],
            "train_seconds": round(state["seconds"]), "curve": state["curve"],
            "config": state["config"], "init": state.get("init"),
            "train_commands": state.get("commands", []), "command": command, "commit": commit,
            "heldout": state.get("heldout"), "heldout_changes": state.get("heldout_changes", []),
            "shape_changes": state.get("shape_changes", [])}
    (tmp / "training.json").write_text(json.dumps(info, indent=1) + "\n")
    if out.exists():
        shutil.rmtree(out)
    tmp.rename(out)
    return info
