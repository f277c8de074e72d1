"""Security: weights load from safetensors only; verifier commands come only from the user.

Covered elsewhere, not repeated here: a transformers directory holding only pickle weights is
refused (tests/test_hf_models.py::test_pickle_weights_are_refused) and an ``auto_map``
checkpoint without ``--trust-remote-code`` exits 2 without importing its modeling file
(tests/test_hf_models.py::test_cli_refuses_remote_code_without_the_flag); benchmark sandboxing
is tests/test_sandbox.py.
"""

from __future__ import annotations

import os
import pickle
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from remask.infill import model as model_module
from remask.infill.engine import BUNDLED, load_engine
from remask.infill.model import load_model


class _Payload:
    """Unpickling this creates ``path``: proof that a pickle ran."""

    def __init__(self, path: Path) -> None:
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def _pickle_only_copy(tmp_path: Path) -> tuple[Path, Path]:
    """The bundled model with its safetensors swapped for a booby-trapped pickle."""
    d = tmp_path / "pickled"
    shutil.copytree(BUNDLED, d)
    (d / "model.safetensors").unlink()
    marker = tmp_path / "UNPICKLED"
    (d / "pytorch_model.bin").write_bytes(pickle.dumps(_Payload(marker)))
    return d, marker


def test_load_model_never_unpickles(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bundled model loads with torch.load and pickle.load(s) booby-trapped."""
    def refuse(*args, **kwargs):
        raise AssertionError("a loader unpickled something")

    monkeypatch.setattr(torch, "load", refuse)
    monkeypatch.setattr(pickle, "load", refuse)
    monkeypatch.setattr(pickle, "loads", refuse)
    model = load_model(BUNDLED)
    assert sum(p.numel() for p in model.parameters()) > 0
    engine = load_engine(BUNDLED, use_cache=False)
    assert engine is not None
    assert "torch.load" not in Path(model_module.__file__).read_text()


def test_pickle_only_remask_checkpoint_is_refused_unopened(tmp_path: Path) -> None:
    d, marker = _pickle_only_copy(tmp_path)
    with pytest.raises(ValueError, match="model.safetensors: missing"):
        load_engine(d, use_cache=False)
    assert not marker.exists()


@pytest.mark.slow
def test_cli_refuses_pickle_checkpoint_in_one_line(tmp_path: Path) -> None:
    d, marker = _pickle_only_copy(tmp_path)
    src = tmp_path / "m.py"
    src.write_text("def f(x):\n    return ???\n")
    res = subprocess.run([sys.executable, "-m", "remask.cli", "fill", str(src), "--write",
                          "--model", str(d)], capture_output=True, text=True, timeout=240)
    assert res.returncode == 2, res.stderr
    assert len(res.stderr.strip().splitlines()) == 1 and "Traceback" not in res.stderr
    assert "model.safetensors" in res.stderr
    assert not marker.exists()
    assert src.read_text() == "def f(x):\n    return ???\n"


@pytest.mark.slow
def test_repo_config_cannot_inject_a_verify_command(tmp_path: Path) -> None:
    """``[tool.remask] verify`` in a repository's pyproject is not run by the hook.

    hook/config.py reads only ``kinds``, ``marker`` and ``model`` and ignores other keys; a
    verifier comes only from the user's own ``--verify`` flag (cli/edit_common.py).
    """
    from hook_repo import GitRepo

    env = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    env.update(GIT_CONFIG_GLOBAL=str(tmp_path / "gitconfig"), GIT_CONFIG_NOSYSTEM="1")
    repo = GitRepo(tmp_path / "repo")
    pwned = tmp_path / "PWNED"
    repo.write("pyproject.toml", f'[tool.remask]\nverify = "touch {pwned}"\n'
                                 f'verifier = "touch {pwned}"\n')
    repo.commit()
    repo.stage_rename()  # a staged rename with call sites left behind: the hook proposes
    res = subprocess.run([sys.executable, "-m", "remask.cli", "hook", "run"], cwd=repo.root,
                         env=env, capture_output=True, text=True, timeout=400)
    assert res.returncode in (0, 1), res.stderr
    assert "Traceback" not in res.stderr
    assert b"grand_total(xs)" in repo.staged("totals.py")  # the hook did run its rewrite
    assert not pwned.exists()
