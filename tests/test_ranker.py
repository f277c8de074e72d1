"""The AR ranker: exact log-probabilities of candidate middles, and how the engine uses them."""

import math
import shutil
from collections import Counter
from dataclasses import replace

import pytest
import torch

from remask.infill.ar import ar_score, load_ar
from remask.infill.data import fit_context
from remask.infill.engine import BUNDLED, BUNDLED_AR, Engine, load_engine
from remask.infill.sampler import SamplerConfig, Trace, generate

PREFIX = 'def add(a, b):\n    """Return the sum of a and b."""\n    return '
SUFFIX = "\n\n\nprint(add(1, 2))\n"


@pytest.fixture(scope="module")
def ar():
    return load_ar(BUNDLED_AR)


def test_scores_equal_a_plain_causal_pass(ar):
    """The cached, batched, right-padded scoring gives each middle's exact log-probability."""
    tok, sp = ar.tokenizer, ar.tokenizer.special
    p, s = tok.encode(PREFIX), tok.encode(SUFFIX)
    middles = [tok.encode("a + b"), tok.encode(""), tok.encode("sum((a, b)) if a else b")]
    scores, trace = ar_score(ar, p, s, middles)
    assert trace.forward_passes == 2
    pp, ss = fit_context(p, s, ar.window - 96 - 3)
    ctx = [sp.fim_prefix, *pp, sp.fim_suffix, *ss, sp.fim_middle]
    for m, got in zip(middles, scores, strict=True):
        seq = ctx + m + [sp.eos]
        with torch.no_grad():
            logits, _ = ar.model(torch.tensor([seq]), causal=True)
        logp = torch.log_softmax(logits[0, len(ctx) - 1:-1].float(), dim=-1)
        want = logp.gather(1, torch.tensor(m + [sp.eos])[:, None]).sum()
        assert got == pytest.approx(float(want), abs=1e-3)
    # scored again (re-masked or mechanical candidates of the same span): the context's
    # keys and values are reused, only the candidates' pass runs, and the numbers agree
    again, trace = ar_score(ar, p, s, middles[::-1])
    assert trace.forward_passes == 1
    assert again == pytest.approx(scores[::-1], abs=1e-3)


def test_engine_ranks_its_candidates_best_first():
    engine = load_engine(BUNDLED)
    assert engine.ranker is not None  # the bundled pair shares one tokenizer
    fill = engine.fill(PREFIX, SUFFIX)
    scores = engine.score(PREFIX, SUFFIX, fill.texts)
    assert scores == sorted(scores, reverse=True)
    # the fill carries those scores, so the rewriter need not score its candidates again
    assert fill.scores == (pytest.approx(scores, abs=1e-4) if len(fill.texts) > 1 else [])
    good, junk = engine.score(PREFIX, SUFFIX, ["a + b", "a.sum(a, b):  # -a    return"])
    assert good > junk


def test_a_ranker_with_another_tokenizer_is_not_used(tmp_path):
    other = tmp_path / "ar"
    shutil.copytree(BUNDLED_AR, other)
    (other / "tokenizer.json").write_bytes((other / "tokenizer.json").read_bytes() + b"\n")
    assert load_engine(BUNDLED, ranker=other).ranker is None
    assert load_engine(BUNDLED, ranker=None).ranker is None
    engine = load_engine(BUNDLED, ranker=None)  # the denoiser ranks: mean token log-prob
    assert len(engine.score(PREFIX, SUFFIX, ["a + b", "b"])) == 2


def test_a_hole_that_wants_text_ranks_blank_candidates_last():
    """The ranker likes ending the line at once; a hole that wants text (``min_length``) puts
    blank candidates after every written one, whatever their scores."""
    engine = load_engine(BUNDLED)
    tok = engine.tokenizer
    prefix, suffix = "def add(a, b):\n    return a + b\n", "\n\nprint(add(1, 2))\n"
    rows = [tok.encode(m) for m in ("x = 1\n", "\n")]
    p, s = tok.encode(prefix), tok.encode(suffix)
    free = engine._ranked(p, s, rows, Trace(), SamplerConfig())
    assert free.texts == ["\n", "x = 1\n"]  # by score: the blank is far likelier
    wants = engine._ranked(p, s, rows, Trace(), SamplerConfig(min_length=1))
    assert wants.texts == ["x = 1\n", "\n"] and wants.scores == free.scores[::-1]


def test_the_denoiser_scoring_a_new_context_counts_its_pass():
    """Without a ranker, scoring runs the context through the denoiser first when it is not
    cached: that pass and its tokens land in the trace, as a fill's do."""
    engine = load_engine(BUNDLED, ranker=None)
    cold, warm = Trace(), Trace()
    engine.score(PREFIX, SUFFIX, ["a + b", "b"], trace=cold)
    engine.score(PREFIX, SUFFIX, ["a + b", "b"], trace=warm)
    assert (cold.forward_passes, warm.forward_passes) == (2, 1)
    assert cold.tokens_processed > warm.tokens_processed


def test_the_ranked_score_is_the_ranker_s_plus_the_denoiser_s_opinion():
    """With a ranker the score is its exact log-probability plus the sampler's
    ``denoiser_weight`` times the denoiser's mean token log-probability, each model's context
    run once."""
    engine = load_engine(BUNDLED)
    middles = ["a + b", "b", "sum((a, b)) if a else b"]
    tok = engine.tokenizer
    exact, _ = ar_score(engine.ranker, tok.encode(PREFIX), tok.encode(SUFFIX),
                        [tok.encode(m) for m in middles])
    own = Engine(engine.backend, ranker=None).score(PREFIX, SUFFIX, middles)
    for weight in (0.0, 2.5):
        trace = Trace()
        got = load_engine(BUNDLED).score(PREFIX, SUFFIX, middles,
                                         SamplerConfig(denoiser_weight=weight), trace)
        assert got == pytest.approx([a + weight * d for a, d in zip(exact, own, strict=True)],
                                    abs=1e-3)
        # the ranker's context and candidates; with a weight, the denoiser's two as well
        assert trace.forward_passes == (4 if weight else 2)
    # an AR engine ranks by its own log-probability whatever the weight
    ar_engine = load_engine(BUNDLED_AR)
    assert ar_engine.score(PREFIX, SUFFIX, middles, SamplerConfig(denoiser_weight=2.5)) == \
        pytest.approx(ar_engine.score(PREFIX, SUFFIX, middles), abs=1e-3)


def test_length_norm_divides_the_ranker_s_log_probability_by_the_middle_s_length():
    """``length_norm`` a: the ranker's term is log p(middle, end) / (tokens + 1) ** a; the
    denoiser's mean is a mean already and is left alone."""
    engine = load_engine(BUNDLED)
    tok = engine.tokenizer
    middles = ["a + b", "b", "sum((a, b)) if a else b"]
    exact, _ = ar_score(engine.ranker, tok.encode(PREFIX), tok.encode(SUFFIX),
                        [tok.encode(m) for m in middles])
    own = Engine(engine.backend, ranker=None).score(PREFIX, SUFFIX, middles)
    got = engine.score(PREFIX, SUFFIX, middles, SamplerConfig(length_norm=0.75))
    want = [a / (len(tok.encode(m)) + 1) ** 0.75 + d
            for a, m, d in zip(exact, middles, own, strict=True)]
    assert got == pytest.approx(want, abs=1e-3)
    # the longest middle is the least likely, and normalising narrows its gap to the others
    plain = engine.score(PREFIX, SUFFIX, middles)
    assert got[2] - max(got[:2]) > plain[2] - max(plain[:2])


def test_with_drawn_rows_the_rows_vote():
    """A fill that drew rows adds ``agreement_weight`` × log(rows that wrote a text) to each
    text's score; one of argmax rows alone does not."""
    engine = load_engine(BUNDLED)
    tok = engine.tokenizer
    cfg = SamplerConfig(min_length=1, samples=12, agreement_weight=0.5)
    rows, _ = generate(engine.backend, tok.encode(PREFIX), tok.encode(SUFFIX), cfg)
    votes = Counter(tok.decode(r) for r in rows)  # the same rows: the draws are seeded
    assert max(votes.values()) > 1 and len(votes) > 1
    fill = engine.fill(PREFIX, SUFFIX, sampler=cfg)
    assert sorted(fill.texts) == sorted(votes)
    plain = engine.score(PREFIX, SUFFIX, fill.texts, cfg)
    assert fill.scores == pytest.approx([p + 0.5 * math.log(votes[t])
                                         for p, t in zip(plain, fill.texts, strict=True)],
                                        abs=1e-3)
    argmax = replace(cfg, samples=0)
    prefix, suffix = "def greet(name):\n    print(", ")\n"  # argmax rows that disagree
    fill = engine.fill(prefix, suffix, sampler=argmax)
    assert len(fill.texts) > 1
    assert fill.scores == pytest.approx(engine.score(prefix, suffix, fill.texts, argmax),
                                        abs=1e-3)
