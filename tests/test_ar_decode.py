"""The causal baseline's decoding: greedy tokens, ended at the likeliest complete line."""

import pytest
import torch

from remask.infill.ar import ar_generate, ar_score, load_ar, prefill
from remask.infill.engine import BUNDLED_AR, Engine
from remask.infill.sampler import SamplerConfig

PREFIX = "def mean(numbers):\n    total = 0\n    for n in numbers:\n"
SUFFIX = "    return total / len(numbers)\n"


@pytest.fixture(scope="module")
def ar():
    return load_ar(BUNDLED_AR)


def greedy_path(ar, p, s, n, min_length):
    """The greedy path of up to ``n`` tokens, cut where ``<eos>`` is first the likeliest."""
    sp = ar.tokenizer.special
    logits, kv, _ = prefill(ar, p, s, n)
    pos, out = kv[0][0].shape[2], []
    with torch.no_grad():
        while len(out) < n:
            last = logits[0, -1].float()
            last[[t for t in sp.all() if t != sp.eos]] = -torch.inf
            if len(out) < min_length:
                last[sp.eos] = -torch.inf
            if int(last.argmax()) == sp.eos:
                return out, True
            out.append(int(last.argmax()))
            logits, kv = ar.model(torch.tensor([[out[-1]]]), past=kv, pos=pos)
            pos += 1
    return out, False


CASES = [(PREFIX, SUFFIX), ("def mean(numbers):\n    return ", "\n")]


@pytest.mark.parametrize("min_length", [0, 1])
@pytest.mark.parametrize(("prefix", "suffix"), CASES)
def test_the_middle_is_the_best_scoring_line_end_of_the_greedy_path(ar, prefix, suffix,
                                                                    min_length):
    """Brute force: score every prefix of the greedy path that completes a line, keep the best.

    A prefix completes a line where its text ends with a line break, where the suffix starts
    with one and the model's next token would break the line, or where the path ends.
    """
    tok = ar.tokenizer
    p, s = tok.encode(prefix), tok.encode(suffix)
    n = 24
    got, trace = ar_generate(ar, p, s, max_new=n, min_length=min_length)
    path, _ = greedy_path(ar, p, s, n, min_length)
    assert got == path[:len(got)]
    breaks = suffix.startswith("\n")
    ends = [k for k in range(min_length, len(path) + 1)
            if tok.decode(path[:k]).endswith("\n") or k == len(path)
            or (breaks and tok.decode(path[k:k + 1]).startswith("\n"))]
    if min_length:
        ends = [k for k in ends if tok.decode(path[:k]).strip()]
    scores, _ = ar_score(ar, p, s, [path[:k] for k in ends], max_new=n)
    assert len(got) == ends[max(range(len(ends)), key=scores.__getitem__)]
    assert trace.forward_passes <= 1 + len(path)
    if min_length:
        assert tok.decode(got).strip()


def test_a_single_line_middle_ends_before_the_model_breaks_the_line(ar):
    """A one-line hole (``total = ???``): the baseline decodes as a denoiser's one-line row
    ends, at the line break, where it used to write that break and lines after it."""
    tok = ar.tokenizer
    p, s = tok.encode("def mean(numbers):\n    total = "), tok.encode("\n" + SUFFIX)
    plain, _ = ar_generate(ar, p, s, max_new=24, min_length=1)
    one, _ = ar_generate(ar, p, s, max_new=24, min_length=1, single_line=True)
    assert "\n" in tok.decode(plain)
    path, _ = greedy_path(ar, p, s, 24, 1)
    first_break = next(k for k, t in enumerate(path) if "\n" in tok.decode([t]))
    assert one == path[:len(one)] and 0 < len(one) <= first_break
    assert "\n" not in tok.decode(one) and tok.decode(one).strip()


def test_an_ar_engine_fills_a_one_line_hole_with_one_line(ar):
    """``remask fill --model`` an AR checkpoint: a one-line sampler ends the middle too."""
    prefix, suffix = "def mean(numbers):\n    total = ", "\n" + SUFFIX
    engine = Engine(ar)
    one = engine.fill(prefix, suffix, sampler=SamplerConfig(single_line=True, min_length=1))
    plain = engine.fill(prefix, suffix, sampler=SamplerConfig(min_length=1))
    assert "\n" in plain.text and "\n" not in one.text
    assert one.text.strip() and plain.text.startswith(one.text)
