import numpy as np
import pytest
import torch

from remask.infill.data import IGNORE, DataConfig, make_batch
from remask.infill.denoiser import RemaskDenoiser
from remask.infill.engine import BUNDLED
from remask.infill.model import ModelConfig, Transformer, infill_mask, load_model, save_model
from remask.infill.objectives import loss_positions, weighted_ce
from remask.infill.tokenizer import Tokenizer

DOCS = [
    "import os\n\n\ndef walk(top):\n    for root, dirs, files in os.walk(top):\n"
    "        for name in files:\n            yield os.path.join(root, name)\n",
    "class Stack:\n    def __init__(self):\n        self.items = []\n\n"
    "    def push(self, x):\n        self.items.append(x)\n\n    def pop(self):\n"
    "        return self.items.pop()\n",
]


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(BUNDLED)


def tiny(tok, attention="causal", shift=True):
    torch.manual_seed(0)
    return Transformer(ModelConfig(vocab_size=tok.vocab_size, n_layer=2, n_head=2, d_model=32,
                                   d_ff=64, max_len=256, attention=attention, shift=shift))


@pytest.mark.parametrize("objective", ["ar", "diffusion"])
def test_loss_of_a_tiny_config_goes_down(tok, objective):
    model = tiny(tok, "causal" if objective == "ar" else "infill")
    opt = torch.optim.AdamW(model.parameters(), lr=3e-3)
    cfg = DataConfig(block=96, max_middle=24)
    rng = np.random.default_rng(0)
    batch = make_batch(DOCS * 4, tok, cfg, rng, objective)
    losses = []
    for _ in range(40):
        if objective == "ar":
            logits, _ = model(batch.idx, causal=True)
        else:
            logits, _ = model(batch.idx, mask=infill_mask(batch.n_ctx, batch.valid))
        loss = weighted_ce(logits, batch.targets, batch.weights, batch.denom)
        loss.backward()
        opt.step()
        opt.zero_grad()
        losses.append(loss.item())
    assert losses[-1] < 0.5 * losses[0]


@pytest.mark.parametrize("objective", ["ar", "diffusion"])
def test_the_head_sees_a_rounded_row_count_and_the_loss_is_the_same(tok, objective):
    """Training computes the head at ``loss_positions`` only: every target is among them,
    their count is a multiple of 64 here, and the loss equals the full-logits loss."""
    model = tiny(tok, "causal" if objective == "ar" else "infill")
    batch = make_batch(DOCS * 3, tok, DataConfig(block=96, max_middle=24),
                       np.random.default_rng(1), objective)
    causal = objective == "ar"
    mask = None if causal else infill_mask(batch.n_ctx, batch.valid)
    select = loss_positions(batch.targets, 64)
    targeted = batch.targets != IGNORE
    assert int(targeted.sum()) % 64 and int(select.sum()) % 64 == 0  # padding was needed
    assert bool(select[targeted].all()) and int(select.sum()) - int(targeted.sum()) < 64
    full, _ = model(batch.idx, causal=causal, mask=mask)
    rows, _ = model(batch.idx, causal=causal, mask=mask, select=select)
    assert rows.shape == (int(select.sum()), tok.vocab_size)
    torch.testing.assert_close(
        weighted_ce(rows, batch.targets[select], batch.weights[select], batch.denom),
        weighted_ce(full, batch.targets, batch.weights, batch.denom))


def test_context_cache_is_exact(tok):
    model = tiny(tok, "infill").eval()
    cached = RemaskDenoiser(model, tok, use_cache=True)
    full = RemaskDenoiser(model, tok, use_cache=False)
    p, s = tok.encode("def f(x):\n    return "), tok.encode("\n")
    canvas = torch.tensor([[tok.special.mask, 300, tok.special.mask], [301, 302, 303]])
    valid = torch.tensor([[True, True, False], [True, True, True]])
    with torch.no_grad():
        a, na = cached.logits(cached.context(p, s, 8), canvas, valid)
        b, nb = full.logits(full.context(p, s, 8), canvas, valid)
    assert torch.allclose(a[valid], b[valid], atol=1e-4)
    assert na < nb  # the cache recomputes only the canvas


def test_kv_cache_decoding_matches_full_forward(tok):
    model = tiny(tok).eval()
    ids = torch.tensor([tok.encode("for i in range(10):\n    print(i)\n")])
    with torch.no_grad():
        full, _ = model(ids, causal=True)
        _, kv = model(ids[:, :5], causal=True)
        step, _ = model(ids[:, 5:6], past=kv, pos=5)
    assert torch.allclose(full[:, 5], step[:, 0], atol=1e-4)


def test_save_load_round_trip_is_safetensors_only(tok, tmp_path):
    model = tiny(tok)
    save_model(model, tmp_path, torch.float32)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["config.json", "model.safetensors"]
    again = load_model(tmp_path)
    for (k, a), (_, b) in zip(model.state_dict().items(), again.state_dict().items(), strict=True):
        assert torch.equal(a, b), k


def test_corrupt_weights_give_one_line_error(tok, tmp_path):
    save_model(tiny(tok), tmp_path)
    (tmp_path / "model.safetensors").write_bytes(b"\x08\x00\x00\x00\x00\x00\x00\x00{garbage")
    with pytest.raises(ValueError, match="corrupt") as e:
        load_model(tmp_path)
    assert "\n" not in str(e.value)


def test_wrong_shape_checkpoint_is_refused(tok, tmp_path):
    save_model(tiny(tok), tmp_path)
    cfg = (tmp_path / "config.json").read_text().replace('"d_model": 32', '"d_model": 64')
    (tmp_path / "config.json").write_text(cfg)
    with pytest.raises(ValueError, match="shape"):
        load_model(tmp_path)


def test_bundled_models_load_with_their_layouts():
    assert load_model(BUNDLED).cfg.attention == "infill"
    assert load_model(BUNDLED.with_name("bundled-ar")).cfg.attention == "causal"


def test_bf16_weights_keep_fp32_rope_and_predict_like_fp32(tok):
    full, half = load_model(BUNDLED), load_model(BUNDLED, dtype=torch.bfloat16)
    assert all(p.dtype == torch.bfloat16 for p in half.parameters())
    assert half.rope_cos.dtype == half.rope_sin.dtype == torch.float32
    den, den16 = RemaskDenoiser(full, tok), RemaskDenoiser(half, tok)
    ids = tok.encode(DOCS[0] + DOCS[1])
    ctx, ctx16 = den.context(ids[:40], ids[52:], 12), den16.context(ids[:40], ids[52:], 12)
    canvas = torch.full((1, 12), tok.special.mask)
    canvas[0, ::3] = torch.tensor(ids[40:52:3])
    valid = torch.ones(1, 12, dtype=torch.bool)
    with torch.no_grad():
        a, _ = den.logits(ctx, canvas, valid)
        b, _ = den16.logits(ctx16, canvas, valid)
    assert b.dtype == torch.float32 and a.shape == b.shape
    # bf16 rounds the weights (8 bits of mantissa): the scores move a little, the choice hardly
    assert (a.argmax(-1) == b.argmax(-1)).float().mean() >= 0.9
    assert (a.softmax(-1) - b.softmax(-1)).abs().max() < 0.05


def test_precision_names_are_checked():
    from remask.infill.precision import compute_dtype

    assert compute_dtype("fp32") == torch.float32 and compute_dtype("bf16") == torch.bfloat16
    assert compute_dtype("auto") in (torch.float32, torch.bfloat16)
    with pytest.raises(ValueError, match="precision must be one of"):
        compute_dtype("fp8")
