"""The pieces a GPU run needs, checked on the CPU: worker-made batches, the lr schedule, flags."""

import pytest
from safetensors.torch import load_file
from test_train import _train, home  # noqa: F401  (the tiny-corpus fixture)

from remask.cli import main
from remask.infill.data import _line_starts
from remask.infill.train import TrainConfig, _lr, _progress


def test_worker_batches_are_reproducible_for_a_worker_count(home):  # noqa: F811
    for run in ("w1", "w2"):
        assert _train(home, run, "--max-tokens", "1200", "--seed", "3", "--workers", "2") == 0
    a = load_file(str(home / "runs" / "w1" / "model.safetensors"))
    b = load_file(str(home / "runs" / "w2" / "model.safetensors"))
    assert all((a[k] == b[k]).all() for k in a)
    assert _train(home, "w3", "--max-tokens", "1200", "--seed", "3") == 0  # in-process draws
    c = load_file(str(home / "runs" / "w3" / "model.safetensors"))
    assert any((a[k] != c[k]).any() for k in a)


def test_lr_warms_up_holds_then_cools_down_to_a_tenth():
    cfg = TrainConfig(lr=1e-3, warmup=10, max_tokens=1000, cooldown=0.4)
    assert _lr(cfg, 0, 0.0) == pytest.approx(1e-4)
    assert _lr(cfg, 50, 0.5) == pytest.approx(1e-3)  # still before the cooldown (0.6)
    assert _lr(cfg, 50, 0.8) == pytest.approx(1e-3 * (1 - 0.9 * 0.5))
    assert _lr(cfg, 50, 1.2) == pytest.approx(1e-4)  # never below a tenth
    assert _progress(cfg, 250, 0.0) == 0.25
    timed = TrainConfig(max_minutes=2.0)
    assert _progress(timed, 10**9, 60.0) == 0.5  # no token limit: time decides
    assert _lr(TrainConfig(lr=1e-3, warmup=10), 50, 0.99) == 1e-3  # no cooldown: constant


def test_bad_schedule_and_device_flags_exit_2(home, capsys):  # noqa: F811
    assert _train(home, "x1", "--cooldown", "0.3") == 2  # a cooldown needs a known end
    assert "--cooldown needs" in capsys.readouterr().err
    assert _train(home, "x2", "--device", "tpu", "--max-tokens", "100") == 2
    assert "no such device" in capsys.readouterr().err
    assert main(["train", "--home", str(home), "--name", "x3", "--ema", "2"]) == 2
    assert not (home / "runs" / "x1").exists()


@pytest.mark.parametrize("text", ["", "a", "\n", "a\n", "\n\n", "ab\ncd\n\nx", "x\n" * 5])
def test_line_starts(text):
    naive = [0] + [i + 1 for i, c in enumerate(text) if c == "\n" and i + 1 < len(text)]
    assert _line_starts(text) == naive


@pytest.mark.parametrize("flag, value", [
    ("--batch", "0"), ("--threads", "0"), ("--eval-every", "0"), ("--block", "3"),
    ("--workers", "-1"), ("--max-tokens", "-5"), ("--lr", "0"), ("--lr", "nan"),
    ("--ema", "nan"), ("--n-head", "3"), ("--d-model", "8"),
])
def test_a_number_out_of_range_is_one_line_and_no_run(home, capsys, flag, value):  # noqa: F811
    # Before these checks a batch of 0 stepped forever on nothing, and a block of 3 or a
    # width that heads do not divide ended in a traceback with the run directory written.
    assert _train(home, "bad", "--max-tokens", "100", flag, value) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("remask train: ") and "\n" not in err
    assert not (home / "runs" / "bad").exists()
