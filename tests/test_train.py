"""`remask train` end to end on a tiny corpus: runs, resumes, is deterministic, runs under DDP."""

import json
import os
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest
import torch
from safetensors.torch import load_file

from remask.cli import main
from remask.infill.corpus import write_split
from remask.infill.model import ModelConfig, Transformer, load_model, save_model

TINY = ["--d-model", "32", "--n-layer", "2", "--n-head", "2", "--block", "96", "--batch", "4",
        "--vocab-size", "300", "--eval-every", "3"]


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    """A tiny corpus laid out as `remask train` builds it (stdlib files only)."""
    root = tmp_path_factory.mktemp("home")
    corpus = root / "corpus"
    corpus.mkdir()
    stdlib = Path(sysconfig.get_paths()["stdlib"])
    files = ["bisect.py", "colorsys.py", "heapq.py", "keyword.py", "this.py", "fnmatch.py"]
    docs = [(f, (stdlib / f).read_bytes()) for f in files]
    write_split(corpus, "train", docs[:-1])
    write_split(corpus, "heldout", docs[-1:])
    (corpus / "manifest.json").write_text(json.dumps({"files": {"train": 5, "heldout": 1}}))
    return root


def _train(home: Path, run: str, *extra: str) -> int:
    return main(["train", "--home", str(home), "--name", run, "--objective", "ar", *TINY, *extra])


def test_train_resume_and_export(home, tmp_path):
    assert _train(home, "r1", "--max-tokens", "1000") == 0
    state = json.loads((home / "runs" / "r1" / "state.json").read_text())
    assert state["step"] == 3 and state["curve"]
    assert _train(home, "r1", "--max-tokens", "1000") == 2  # exists: needs --resume
    assert _train(home, "r9", "--uncond-rate", "1.5") == 2
    assert _train(home, "r9", "--function-rate", "-0.1") == 2
    assert _train(home, "r9", "--warmup", "0") == 2
    assert _train(home, "r1", "--resume", "--max-tokens", "2000", "--uncond-rate", "0.5") == 0
    state = json.loads((home / "runs" / "r1" / "state.json").read_text())
    assert state["step"] == 6
    assert state["config"]["data"]["uncond_rate"] == 0.5  # the config the run trains with now
    out = tmp_path / "bundle"
    assert main(["train", "--home", str(home), "--name", "r1", "--export", str(out)]) == 0
    info = json.loads((out / "training.json").read_text())
    assert info["tokens_total"] == state["tokens"] and info["command"].startswith("remask")
    assert {p.name for p in out.iterdir()} >= {"config.json", "model.safetensors",
                                               "tokenizer.json", "training.json"}
    # adapt the AR checkpoint to diffusion; tokens add up across the two phases
    assert main(["train", "--home", str(home), "--name", "d1", "--objective", "diffusion",
                 "--init", str(out), *TINY, "--max-tokens", "1000", "--uncond-rate", "0.3",
                 "--warmup", "5"]) == 0
    dstate = json.loads((home / "runs" / "d1" / "state.json").read_text())
    assert dstate["tokens_before"] == info["tokens_total"]
    assert dstate["config"]["data"]["uncond_rate"] == 0.3
    assert dstate["config"]["warmup"] == 5
    assert json.loads((home / "runs" / "d1" / "config.json").read_text())["attention"] == "infill"


def test_a_resume_warms_up_only_for_a_new_lr_or_batch(home, capsys, monkeypatch):
    """The optimizer's moments come back with the checkpoint: the same lr and batch need no
    ramp, a new one does."""
    monkeypatch.setenv("COLUMNS", "400")  # rich wraps its log to the terminal's width

    def said() -> str:
        return capsys.readouterr().err

    assert _train(home, "w1", "--max-tokens", "400") == 0
    assert "warm-up 200 steps" in said()
    assert _train(home, "w1", "--resume", "--max-tokens", "800") == 0
    assert "no warm-up (the lr and batch it had)" in said()
    assert _train(home, "w1", "--resume", "--max-tokens", "1200", "--lr", "1e-4") == 0
    assert "warm-up 200 steps" in said()


def test_same_seed_same_weights(home):
    for run in ("s1", "s2"):
        assert _train(home, run, "--max-tokens", "700", "--seed", "7") == 0
    a = load_file(str(home / "runs" / "s1" / "model.safetensors"))
    b = load_file(str(home / "runs" / "s2" / "model.safetensors"))
    assert all((a[k] == b[k]).all() for k in a)


def test_ddp_with_two_processes(home):
    torchrun = shutil.which("torchrun") or str(Path(sys.executable).with_name("torchrun"))
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    proc = subprocess.run(
        [torchrun, "--standalone", "--nproc_per_node", "2", "-m", "remask.cli", "train",
         "--home", str(home), "--name", "ddp", "--objective", "ar", *TINY,
         "--max-tokens", "1500"], capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    state = json.loads((home / "runs" / "ddp" / "state.json").read_text())
    assert state["tokens"] == state["step"] * 4 * 96 * 2  # both ranks' tokens counted


def test_diffusion_weights_count_resize_tokens_once():
    """Real canvas tokens weigh 1/t (their mask chance); always-masked <expand>/<delete> weigh 1."""
    import numpy as np

    from remask.infill.data import IGNORE, DataConfig, diffusion_example
    from remask.infill.engine import BUNDLED
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    sp = tok.special
    p, m, s = tok.encode_span("def f(x):\n", "    return x + 1\n", "\nprint(f(2))\n")
    cfg = DataConfig(expand_rate=1.0, delete_rate=1.0)
    seen_special = seen_real = 0
    for seed in range(20):
        row = diffusion_example(p, m, s, tok, cfg, np.random.default_rng(seed), shift=True)
        targets, weights = row.targets, row.weights
        resize = (sp.expand, sp.delete)
        pairs = list(zip(targets, weights, strict=True))
        real = {w for t, w in pairs if t != IGNORE and t not in resize}
        special = {w for t, w in pairs if t in resize}
        assert special <= {1.0}
        assert len(real) <= 1 and all(w >= 1.0 for w in real)  # one t per example
        seen_special += bool(special)
        seen_real += any(w > 1.0 for w in real)
    assert seen_special == 20 and seen_real > 0


def test_flat_weighting_scales_each_canvas_by_its_mask_rate():
    """``--loss-weight flat`` draws the same examples and weighs each canvas t times what the
    bound gives it: its code tokens 1, its <expand>/<delete> t, so their share holds."""
    import numpy as np

    from remask.infill.data import IGNORE, DataConfig, diffusion_example
    from remask.infill.engine import BUNDLED
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    resize = (tok.special.expand, tok.special.delete)
    p, m, s = tok.encode_span("def f(x):\n", "    y = x * 2\n    return y + 1\n",
                              "\nprint(f(2))\n")
    rates = []
    for seed in range(20):
        elbo, flat = (diffusion_example(
            p, m, s, tok, DataConfig(expand_rate=0.5, delete_rate=0.5, canvases=3,
                                     weighting=w), np.random.default_rng(seed), shift=True)
            for w in ("elbo", "flat"))
        assert elbo.seq == flat.seq and elbo.targets == flat.targets
        for k in range(1, max(elbo.segment) + 1):
            at = [i for i, t in enumerate(elbo.targets)
                  if t != IGNORE and elbo.segment[i + 1] == k]  # shifted: i predicts i + 1
            ratio = {round(flat.weights[i] / elbo.weights[i], 9) for i in at}
            code = {flat.weights[i] for i in at if elbo.targets[i] not in resize}
            assert len(ratio) == 1 and code <= {1.0}, (seed, k, ratio, code)
            t = ratio.pop()
            assert DataConfig.min_t <= t <= 1.0
            rates.append(t)
    assert len(set(rates)) > 10  # each canvas its own rate


def test_free_length_canvas_hides_the_middles_length():
    """A free canvas has the drawn length; its runs of code read back as the middle."""
    import numpy as np

    from remask.infill.data import DataConfig, diffusion_example, free_canvas
    from remask.infill.engine import BUNDLED
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    sp = tok.special
    m = tok.encode("    return sorted(set(numbers))[::-1]\n")
    rng = np.random.default_rng(0)
    for n in (1, 3, len(m) - 1, len(m), len(m) + 5, 60):
        canvas = free_canvas(m, n, sp, rng)
        assert len(canvas) == n
        plain = [t for t in canvas if t not in (sp.expand, sp.delete)]
        if n >= len(m):  # too long: the middle in order, padded with deletes
            assert plain == m and canvas.count(sp.delete) == n - len(m)
        else:  # too short: every kept token in order, the rest merged into expands
            assert sp.delete not in canvas and sp.expand in canvas
            it = iter(m)
            assert all(t in it for t in plain)
    p, s = tok.encode("def f(numbers):\n"), tok.encode("\nprint(f([3, 1]))\n")
    cfg = DataConfig(free_length_rate=1.0)
    lengths = set()
    for seed in range(40):
        row = diffusion_example(p, m, s, tok, cfg, np.random.default_rng(seed), shift=True)
        lengths.add(len(row.seq) - row.n_ctx - 1)
    assert min(lengths) < len(m) // 2 and max(lengths) > 2 * len(m)


def test_several_canvases_follow_one_context_and_see_only_it_and_themselves():
    """Each canvas is the middle masked afresh, at the first canvas's positions, attending to
    the context and itself; one canvas is the layout inference uses, mask and positions."""
    import numpy as np
    import torch

    from remask.infill.data import IGNORE, DataConfig, diffusion_example, make_batch
    from remask.infill.engine import BUNDLED
    from remask.infill.model import infill_mask
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    sp = tok.special
    p, m, s = tok.encode_span("def f(x):\n", "    return x + 1\n", "\nprint(f(2))\n")
    cfg = DataConfig(canvases=3, expand_rate=0.0, delete_rate=0.0)
    row = diffusion_example(p, m, s, tok, cfg, np.random.default_rng(0), shift=True)
    n_ctx = len(p) + len(s) + 2
    assert row.n_ctx == n_ctx and row.segment[:n_ctx] == [0] * n_ctx
    assert row.denom == 3 * len(m)
    for k in (1, 2, 3):
        at = [i for i, g in enumerate(row.segment) if g == k]
        assert row.seq[at[0]] == sp.fim_middle and len(at) == len(m) + 1
        assert [row.pos[i] for i in at] == list(range(n_ctx, n_ctx + len(m) + 1))
        # shifted: the canvas's i-th token is predicted at the slot before it, its own
        got = {at[0] + i: t for i, t in enumerate(m) if row.targets[at[0] + i] != IGNORE}
        assert all(row.seq[j + 1] == sp.mask for j in got) and set(got.values()) <= set(m)
    mask = infill_mask(torch.tensor([n_ctx]), torch.ones(1, len(row.seq), dtype=torch.bool),
                       torch.tensor([row.segment]))[0, 0]
    first, second = row.segment.index(1), row.segment.index(2)
    assert mask[first, :n_ctx].all() and mask[first, first:second].all()
    assert not mask[first, second:].any() and not mask[second, first:second].any()
    assert not mask[:n_ctx, n_ctx:].any()  # the context never sees a canvas
    # a whole window with no context keeps one canvas
    row = diffusion_example([], m, [], tok, cfg, np.random.default_rng(0), shift=True)
    assert max(row.segment) == 1
    # one canvas: the mask the denoiser builds from n_ctx alone, positions 0..T-1
    docs = [open(__file__).read()] * 4
    b = make_batch(docs, tok, DataConfig(), np.random.default_rng(1), "diffusion")
    rows = b.valid[:, None, :, None]  # what padding attends to is never read
    assert torch.equal(infill_mask(b.n_ctx, b.valid, b.segment) & rows,
                       infill_mask(b.n_ctx, b.valid) & rows)
    assert torch.equal(b.pos, torch.arange(b.idx.shape[1]).repeat(4, 1))


def test_further_canvases_stop_at_the_room_past_the_block():
    """After a long context a short middle gets all four canvases, a long one only those that
    fit (two: a third would pass block + canvas_room)."""
    import numpy as np

    from remask.infill.data import DataConfig, diffusion_example
    from remask.infill.engine import BUNDLED
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    p = tok.encode("".join(f"v{i} = f({i})\n" for i in range(60)))[:220]
    s = tok.encode("\nprint(f(2))\n")
    cfg = DataConfig(canvases=4, delete_rate=0.0, expand_rate=0.0)
    for middle, most in (("    return x + 1\n", 4), ("    y = x * 2\n" * 12, 2)):
        m = tok.encode(middle)
        row = diffusion_example(p, m, s, tok, cfg, np.random.default_rng(0), shift=True)
        assert max(row.segment) == most and len(row.seq) <= cfg.block + cfg.canvas_room


def test_blank_middles_can_be_drawn_again():
    """A document of code between blank lines gives whitespace-only middles, unless told not
    to; the draw keeps the span's kind, so the mix of kinds stays."""
    import numpy as np

    from remask.infill.data import DataConfig, cut_example
    from remask.infill.engine import BUNDLED
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    doc = "".join(f"x{i} = {i}\n\n\n    \n" for i in range(40))
    for keep in (True, False):
        rng = np.random.default_rng(0)
        blanks = sum(not tok.decode(m).strip() for p, m, s in (
            cut_example(doc, tok, DataConfig(blank_middles=keep, uncond_rate=0.0), rng)
            for _ in range(200)))
        assert (blanks > 40) if keep else blanks == 0, (keep, blanks)


def test_a_run_with_canvases_counts_the_tokens_its_batches_hold(home):
    """Rows past the block are counted; ``--canvas-room 0`` keeps every row inside it."""
    import json

    def tokens_per_step(run: str, *extra: str) -> float:
        assert _train(home, run, "--objective", "diffusion", "--canvases", "4",
                      "--max-tokens", "800", *extra) == 0
        state = json.loads((home / "runs" / run / "state.json").read_text())
        return state["tokens"] / state["step"]

    assert tokens_per_step("kc") > 4 * 96
    assert tokens_per_step("kc0", "--canvas-room", "0") == 4 * 96
    assert _train(home, "kc9", "--canvas-room", "-1") == 2


def test_a_row_of_positions_gives_the_logits_of_its_offset():
    """RoPE read per token: a (B, T) position tensor computes what ``pos=int`` does."""
    import torch

    from remask.infill.model import ModelConfig, Transformer

    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=64, n_layer=2, n_head=2, d_model=32, d_ff=64))
    idx = torch.randint(0, 64, (2, 7))
    want, _ = model(idx, causal=True, pos=5)
    got, _ = model(idx, causal=True, pos=torch.arange(5, 12).repeat(2, 1))
    assert torch.allclose(want, got, atol=1e-5)


@pytest.mark.parametrize("data", [{"free_length_rate": 1.0}, {"function_rate": 1.0},
                                  {"canvases": 4}, {"blank_middles": False},
                                  {"weighting": "flat"}])
def test_heldout_set_ignores_the_canvas_scheme_and_the_mix(home, data):
    """The held-out batches are the same whatever --free-length-rate or --function-rate, so
    curves stay comparable."""

    import torch

    from remask.infill.data import DataConfig
    from remask.infill.engine import BUNDLED
    from remask.infill.heldout import heldout_batches
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    a = heldout_batches(home / "corpus", tok, DataConfig(), "diffusion", 16, shift=True)
    b = heldout_batches(home / "corpus", tok, DataConfig(**data), "diffusion", 16, shift=True)
    assert all(torch.equal(x.idx, y.idx) and torch.equal(x.targets, y.targets)
               and torch.equal(x.weights, y.weights) for x, y in zip(a, b, strict=True))


def test_a_curve_continued_on_another_heldout_set_records_the_change(home, tmp_path):
    assert _train(home, "h1", "--max-tokens", "700") == 0
    same = tmp_path / "same"
    assert main(["train", "--home", str(home), "--name", "h1", "--export", str(same)]) == 0
    info = json.loads((same / "training.json").read_text())
    assert info["heldout"] and info["heldout_changes"] == []
    other = tmp_path / "other"  # the same weights, as if trained beside another corpus
    shutil.copytree(same, other)
    (other / "training.json").write_text(json.dumps({**info, "heldout": "0" * 12}))
    for init, run in ((same, "h2"), (other, "h3")):
        assert _train(home, run, "--init", str(init), "--max-tokens", "700") == 0
    assert json.loads((home / "runs" / "h2" / "state.json").read_text())["heldout_changes"] == []
    out = tmp_path / "continued"
    assert main(["train", "--home", str(home), "--name", "h3", "--export", str(out)]) == 0
    (change,) = json.loads((out / "training.json").read_text())["heldout_changes"]
    assert change["tokens"] == info["tokens_total"]
    assert f"{'0' * 12} -> {info['heldout']}" in change["why"]


_HEAP_PROBE = r'''
import ctypes, sys
libc = ctypes.CDLL("libc.so.6")
libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
libc.free.argtypes = [ctypes.c_void_p]
class Info(ctypes.Structure):
    _fields_ = [(n, ctypes.c_size_t) for n in ("arena ordblks smblks hblks hblkhd usmblks "
                                               "fsmblks uordblks fordblks keepcost").split()]
libc.mallinfo2.restype = Info
if len(sys.argv) > 1:
    from remask.infill.train import pin_mmap_threshold
    assert pin_mmap_threshold()
libc.free(libc.malloc(16 << 20))  # glibc would now serve blocks up to 16 MB from the heap
mapped = libc.mallinfo2().hblkhd
block = libc.malloc(4 << 20)
print(libc.mallinfo2().hblkhd - mapped)
'''


@pytest.mark.skipif(not sys.platform.startswith("linux") or os.confstr("CS_GNU_LIBC_VERSION")
                    is None, reason="glibc's allocator")
def test_the_pinned_threshold_keeps_big_blocks_out_of_the_heap():
    """After the pin a freed 16 MB block no longer pulls 4 MB blocks into the heap.

    Probed in a fresh process, whose heap has no free chunk that big: after a training run
    one may (freed activations coalesce), and glibc then serves the block from it whatever
    the threshold — which made the probe of a whole run fail one time in three suites.
    """
    def mapped_by_a_4mb_block(*argv: str) -> int:
        out = subprocess.run([sys.executable, "-c", _HEAP_PROBE, *argv], capture_output=True,
                             text=True, check=True)
        return int(out.stdout.split()[-1])

    assert mapped_by_a_4mb_block() == 0  # glibc's dynamic threshold, as it is by default
    assert mapped_by_a_4mb_block("pin") >= 4 << 20


def test_a_training_run_pins_the_threshold_first(home, monkeypatch):
    import remask.infill.train as train_module

    pinned = []
    monkeypatch.setattr(train_module, "pin_mmap_threshold", lambda: pinned.append(True))
    assert _train(home, "pin", "--max-tokens", "200") == 0
    assert pinned == [True]


def test_remask_train_grows_its_init_and_resumes_at_the_grown_shape(home, tmp_path, capsys):
    init = tmp_path / "small"
    small = Transformer(ModelConfig(vocab_size=300, n_layer=2, n_head=2, d_model=32, d_ff=80,
                                    attention="infill"))
    save_model(small, init, torch.float32)
    args = ["train", "--home", str(home), "--objective", "diffusion", "--init", str(init),
            "--block", "96", "--batch", "4", "--eval-every", "3", "--vocab-size", "300"]
    assert main([*args, "--name", "g1", "--d-model", "48", "--n-layer", "3",
                 "--max-tokens", "700"]) == 0
    run = home / "runs" / "g1"
    cfg = json.loads((run / "config.json").read_text())
    assert (cfg["d_model"], cfg["n_layer"], cfg["n_head"]) == (48, 3, 3)
    assert load_model(run).num_params() > small.num_params()
    state = json.loads((run / "state.json").read_text())
    assert [c["why"] for c in state["shape_changes"]] == [
        "grown from 2 layers × 32 to 3 × 48"]  # the curve says where the model changed
    # the same command resumes the grown run; another shape is refused in one line
    assert main([*args, "--name", "g1", "--d-model", "48", "--n-layer", "3", "--resume",
                 "--max-tokens", "1400"]) == 0
    assert json.loads((run / "state.json").read_text())["step"] == 4  # 384 tokens a step
    capsys.readouterr()
    assert main([*args, "--name", "g1", "--d-model", "64", "--resume"]) == 2
    assert "is 3 layers × 48" in capsys.readouterr().err
    assert main([*args, "--name", "g2", "--d-model", "16"]) == 2
    assert "can only grow" in capsys.readouterr().err
    assert main([*args, "--name", "g3", "--d-model", "48", "--n-head", "2"]) == 2
    assert "3 heads" in capsys.readouterr().err


def test_a_run_that_diverges_keeps_its_last_good_checkpoint(home, capsys):
    """A loss gone to nan went on being saved: the next checkpoint overwrote the good one."""
    from safetensors.torch import load_file

    assert _train(home, "nan1", "--max-tokens", "1000") == 0
    run = home / "runs" / "nan1"
    good = load_file(str(run / "model.safetensors"))
    capsys.readouterr()
    assert _train(home, "nan1", "--resume", "--lr", "1e30", "--max-tokens", "3000") == 1
    assert "no longer finite" in capsys.readouterr().err
    kept = load_file(str(run / "model.safetensors"))
    assert all(torch.equal(good[k], kept[k]) for k in good)


def test_a_diffusion_curve_records_the_first_steps_blank_rates(home):
    args = ["train", "--home", str(home), "--name", "blanks-d", "--objective", "diffusion", *TINY,
            "--max-tokens", "700"]
    assert main(args) == 0
    point = json.loads((home / "runs" / "blanks-d" / "state.json").read_text())["curve"][-1]
    assert 0.0 <= point["false_delete"] <= 1.0 and 0.0 <= point["missed_delete"] <= 1.0
    assert _train(home, "blanks-ar", "--max-tokens", "700") == 0  # AR: no canvases, no deletes
    ar = json.loads((home / "runs" / "blanks-ar" / "state.json").read_text())["curve"][-1]
    assert "middle_ce" in ar and "false_delete" not in ar


def test_blank_rates_see_a_model_that_answers_with_deletes(home):
    import torch

    from remask.infill.data import DataConfig
    from remask.infill.engine import BUNDLED
    from remask.infill.heldout import blank_rates, heldout_batches
    from remask.infill.model import load_model
    from remask.infill.tokenizer import Tokenizer

    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    model = load_model(BUNDLED)
    batches = heldout_batches(home / "corpus", tok, DataConfig(), "diffusion", 16,
                              model.cfg.shift, lengths=True)
    before = blank_rates(model, batches, tok.special.delete)
    with torch.no_grad():  # the <delete> logit lifted: a model drifting towards blanks
        model.embed.weight[tok.special.delete] *= 1.5
    after = blank_rates(model, batches, tok.special.delete)
    assert after["false_delete"] > before["false_delete"] + 0.05
    assert after["missed_delete"] <= before["missed_delete"]

