"""Growing a model: the grown one computes what the small one did, and all of it can train."""

import pytest
import torch

from remask.infill.grow import grow, grown_config
from remask.infill.model import ModelConfig, Transformer, infill_mask


def small_model() -> Transformer:
    torch.manual_seed(0)
    model = Transformer(ModelConfig(vocab_size=300, n_layer=2, n_head=2, d_model=32, d_ff=80,
                                    attention="infill"))
    for p in model.parameters():  # a trained model's norms are not all ones
        p.data += 0.1 * torch.randn_like(p)
    return model.eval()


@pytest.mark.parametrize(("width", "layers"), [(48, 2), (32, 3), (32, 5), (64, 4)])
def test_the_grown_model_computes_what_the_small_one_did(width, layers):
    small = small_model()
    big = grow(small, width, layers).eval()
    assert (big.cfg.d_model, big.cfg.n_layer) == (width, layers)
    assert big.cfg.d_model // big.cfg.n_head == 16  # the head size is kept
    idx = torch.randint(0, 300, (2, 24))
    n_ctx, valid = torch.tensor([10, 16]), torch.ones(2, 24, dtype=torch.bool)
    with torch.no_grad():
        for kw in ({"causal": True}, {"mask": infill_mask(n_ctx, valid)}):
            a, _ = small(idx, **kw)
            b, _ = big(idx, **kw)
            torch.testing.assert_close(b, a, atol=1e-4, rtol=1e-4)
        # with a context cache, as the sampler calls it
        _, past_a = small(idx[:1, :12], causal=True)
        _, past_b = big(idx[:1, :12], causal=True)
        a, _ = small(idx[:, 12:], past=past_a, pos=12)
        b, _ = big(idx[:, 12:], past=past_b, pos=12)
        torch.testing.assert_close(b, a, atol=1e-4, rtol=1e-4)


def test_every_new_weight_learns_within_two_steps():
    """Zeroed output projections block the gradient of what feeds them for one step only."""
    big = grow(small_model(), 48, 4).train()
    before = {k: v.clone() for k, v in big.state_dict().items()}
    opt = torch.optim.SGD(big.parameters(), lr=0.1)
    idx = torch.randint(0, 300, (4, 20))
    for _ in range(2):
        logits, _ = big(idx[:, :-1], causal=True)
        loss = torch.nn.functional.cross_entropy(logits.flatten(0, 1), idx[:, 1:].flatten())
        loss.backward()
        opt.step()
        opt.zero_grad()
    after = big.state_dict()
    stuck = [k for k in before if k.endswith("weight") and "norm" not in k
             and (after[k] == before[k]).any(dim=-1).all()]  # some entry of every row moved
    assert not stuck
    # the parts that started at zero: the copied blocks' outputs, the new residual dimensions
    assert after["blocks.1.attn.proj.weight"].abs().sum() > 0  # block 1 is block 0's copy
    assert after["blocks.0.mlp.down.weight"][32:].abs().sum() > 0
    assert after["embed.weight"][:, 32:].abs().sum() > 0


def test_it_only_grows():
    cfg = ModelConfig(vocab_size=300, n_layer=2, n_head=2, d_model=32, d_ff=80)
    with pytest.raises(ValueError, match="can only grow"):
        grown_config(cfg, 16, 2)
    with pytest.raises(ValueError, match="head size"):
        grown_config(cfg, 40, 2)
