"""The sampler's mechanics, driven by a scripted denoiser whose choices are known.

The real model's choices can't be predicted, so growth, shrinking and parallel commits are
checked with a backend that plays a fixed script through the real ``Denoiser`` interface; the
real bundled model is exercised in the engine tests below.
"""

from dataclasses import replace

import pytest
import torch
from scripted import Scripted

from remask.infill.engine import BUNDLED, Engine, load_engine
from remask.infill.sampler import Cancelled, SamplerConfig, generate
from remask.infill.tokenizer import Tokenizer


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(BUNDLED)


def test_canvas_grows_to_the_true_length(tok):
    target = tok.encode("return sum(values) / len(values)")
    ids, trace = generate(Scripted(tok, target), [], [], SamplerConfig(lengths=(), init_length=2))
    assert ids[0] == target
    assert sum(s.expanded for s in trace.steps) > 0


def test_canvas_shrinks_to_the_true_length(tok):
    target = tok.encode("x + 1")
    ids, trace = generate(Scripted(tok, target), [], [], SamplerConfig(lengths=(), init_length=12))
    assert ids[0] == target
    assert sum(s.deleted for s in trace.steps) == 12 - len(target)


def test_confident_tokens_commit_many_per_step(tok):
    target = tok.encode("for item in sorted(items, key=len):")
    ids, trace = generate(Scripted(tok, target), [], [],
                          SamplerConfig(lengths=(), init_length=len(target)),
                          oracle_length=len(target))
    assert ids[0] == target
    assert trace.forward_passes == 1
    assert trace.tokens_committed == len(target)


def test_one_token_per_step_when_asked(tok):
    target = tok.encode("a, b = b, a")
    cfg = SamplerConfig(threshold=None, tokens_per_step=1)
    ids, trace = generate(Scripted(tok, target), [], [], cfg, oracle_length=len(target))
    assert ids[0] == target
    assert trace.forward_passes == len(target)
    assert [s.committed for s in trace.steps] == [1] * len(target)


def test_cancel_is_checked_between_steps(tok):
    backend = Scripted(tok, tok.encode("value"), conf=0.1)
    with pytest.raises(Cancelled):
        generate(backend, [], [], SamplerConfig(), cancel=lambda: backend.calls >= 2)
    assert backend.calls == 2


class Recording(Scripted):
    def __init__(self, tokenizer, target):
        super().__init__(tokenizer, target)
        self.batch_sizes = []

    def logits(self, ctx, canvas, valid):
        self.batch_sizes.append(canvas.shape[0])
        return super().logits(ctx, canvas, valid)


def test_one_row_per_starting_length_and_decided_rows_leave_the_batch(tok):
    target = tok.encode("x + y * 2")
    backend = Recording(tok, target)
    ids, trace = generate(backend, [], [], SamplerConfig(lengths=(len(target), 1)))
    assert ids == [target, target]
    # the exact-length row is decided in one pass; the 1-token row grows on alone
    assert backend.batch_sizes[0] == 2 and set(backend.batch_sizes[1:]) == {1}
    assert trace.forward_passes == len(backend.batch_sizes) > 2


def test_the_step_budget_spreads_the_commits_so_every_position_lands_in_time(tok):
    target = tok.encode("total = total + value * weight")
    n = len(target)
    one_at_a_time = SamplerConfig(threshold=None, tokens_per_step=1, lengths=(),
                                  init_length=n, max_steps=3)
    ids, trace = generate(Scripted(tok, target), [], [], one_at_a_time)
    assert ids[0] == target  # no position left masked (and so dropped from the text)
    assert trace.forward_passes == 3
    first = -(-n // 3)  # a linear schedule: each step commits what the steps left need
    assert [s.committed for s in trace.steps] == [first, -(-(n - first) // 2),
                                                  n - first - -(-(n - first) // 2)]
    # a confident model commits more than the schedule asks; the budget only sets a floor
    sure = replace(one_at_a_time, threshold=0.5)
    assert [s.committed for s in generate(Scripted(tok, target), [], [], sure)[1].steps] == [n]
    # a canvas that still wants to grow can't on the last step: it commits text instead
    short = SamplerConfig(lengths=(), init_length=3, max_steps=1)
    ids, trace = generate(Scripted(tok, target), [], [], short)
    assert len(ids[0]) == 3 and ids[0][:2] == target[:2]
    assert trace.steps[0].expanded == 0


class Torn(Scripted):
    """Every position is torn between two tokens, ``a`` a little likelier than ``b``."""

    def __init__(self, tokenizer: Tokenizer, a: int, b: int):
        super().__init__(tokenizer, [])
        self.a, self.b = a, b

    def logits(self, ctx, canvas, valid):
        self.calls += 1
        out = torch.full((*canvas.shape, self.tokenizer.vocab_size), -20.0)
        out[..., self.a], out[..., self.b] = 0.2, 0.0
        return out, canvas.numel()


def test_sampled_rows_draw_beside_the_argmax_rows_and_repeat_with_the_seed(tok):
    """``samples`` adds rows drawn at ``temperature`` (lengths cycling) to the argmax rows;
    the draws differ from the argmax, repeat with the seed, and never touch a re-mask round."""
    a, b = tok.encode("x")[0], tok.encode("y")[0]
    cfg = SamplerConfig(lengths=(2, 3), samples=4, threshold=None, tokens_per_step=8)
    ids, trace = generate(Torn(tok, a, b), [], [], cfg)
    assert [len(r) for r in ids] == [2, 3, 2, 3, 2, 3]  # two argmax rows, four drawn
    assert (trace.steps[0].rows, trace.steps[0].drawn) == (6, 4)  # what the live views show
    assert ids[:2] == [[a, a], [a, a, a]]  # argmax: the likelier token everywhere
    drawn = [t for r in ids[2:] for t in r]
    assert set(drawn) == {a, b}  # 10 draws at p(b) = 0.43: all one token is a 1-in-270 event
    assert generate(Torn(tok, a, b), [], [], cfg)[0] == ids  # seeded: a fill repeats
    assert generate(Torn(tok, a, b), [], [], replace(cfg, seed=1))[0] != ids
    mask = tok.special.mask
    again, trace = generate(Torn(tok, a, b), [], [], cfg, init_canvases=[[mask, b], [mask]])
    assert again == [[a, b], [a]]  # a re-mask round takes the argmax and adds no rows
    assert (trace.steps[0].rows, trace.steps[0].drawn) == (2, 0)


def test_bad_sampler_arguments_raise_value_error():
    with pytest.raises(ValueError):
        SamplerConfig(init_length=0)
    with pytest.raises(ValueError):
        SamplerConfig(threshold=1.5)
    with pytest.raises(ValueError):
        SamplerConfig(lengths=(4, 0))
    with pytest.raises(ValueError):
        SamplerConfig(lengths=(2, 8), min_length=3)
    with pytest.raises(ValueError):
        SamplerConfig(denoiser_weight=-1)
    with pytest.raises(ValueError):
        SamplerConfig(length_norm=-0.5)
    with pytest.raises(ValueError):
        SamplerConfig(samples=-1)
    with pytest.raises(ValueError):
        SamplerConfig(samples=2, temperature=0)


def test_real_engine_keeps_every_byte_outside_the_span():
    engine: Engine = load_engine(BUNDLED)
    prefix = "def mean(xs):\n    \"\"\"Average — naïve.\"\"\"\n    return "
    suffix = "\n\n\nprint(mean([1, 2, 3]))\r\n"
    fill = engine.fill(prefix, suffix)  # one canvas per starting length, ranked
    assert 1 <= len(fill.texts) == len(set(fill.texts)) <= len(engine.sampler.lengths)
    for text, ids in zip(fill.texts, fill.tokens, strict=True):
        assert engine.tokenizer.decode(ids) == text
    trace = fill.trace.as_dict()
    assert trace["forward_passes"] >= trace["steps"] > 0  # + the ranker's passes
    assert trace["tokens_committed"] == sum(trace["committed_per_step"])


@pytest.mark.parametrize("newline", ["\r\n", "\r"])
def test_the_model_reads_windows_and_old_mac_files_as_it_learnt_them(engine, newline):
    """The corpus is LF files: other line breaks put the model off (18 passes of 150, not 28)."""
    prefix = "def mean(xs):\n    total = 0\n    for x in xs:\n        total += x\n    return "
    suffix = "\n\n\nprint(mean([1, 2, 3]))\n"
    lf = engine.fill(prefix, suffix)
    other = engine.fill(prefix.replace("\n", newline), suffix.replace("\n", newline))
    assert other.texts == lf.texts and other.scores == lf.scores
    middles = ["total / len(xs)\n", "0"]
    assert engine.score(prefix.replace("\n", newline), suffix.replace("\n", newline),
                        [m.replace("\n", newline) for m in middles]) == \
        engine.score(prefix, suffix, middles)


def test_real_engine_oracle_length_gives_that_many_tokens():
    engine = load_engine(BUNDLED)
    fill = engine.fill("x = ", "\n", oracle_length=5)
    assert len(fill.tokens[0]) == 5


def test_a_line_break_ends_a_single_line_row(tok):
    """A model that wants two lines gets its first: the break and all after it are dropped."""
    breaks = set(tok.line_break_ids)
    target = tok.encode("x = 1\ny = 2")
    first = tok.encode("x = 1")
    assert breaks & set(target) and target[:len(first)] == first
    cfg = SamplerConfig(lengths=(), init_length=len(target), single_line=True)
    ids, trace = generate(Scripted(tok, target), [], [], cfg, oracle_length=len(target))
    assert ids[0] == first
    assert trace.forward_passes == 1  # the row was decided when its line ended
    # the same canvas across lines keeps the break and the next line
    ids, _ = generate(Scripted(tok, target), [], [], replace(cfg, single_line=False),
                      oracle_length=len(target))
    assert ids[0] == target


def test_a_line_break_never_leaves_a_row_shorter_than_min_length(tok):
    """A model that would end the line at once still writes min_length tokens, none a break."""
    target = tok.encode("\nreturn x")
    assert target[0] in tok.line_break_ids
    cfg = SamplerConfig(lengths=(), init_length=len(target), single_line=True)
    ids, _ = generate(Scripted(tok, target), [], [], cfg, oracle_length=len(target))
    assert ids[0] == []
    ids, _ = generate(Scripted(tok, target), [], [], replace(cfg, min_length=1),
                      oracle_length=len(target))
    assert len(ids[0]) >= 1 and not set(ids[0]) & set(tok.line_break_ids)
    assert "\n" not in tok.decode(ids[0])


def test_min_length_keeps_the_canvas_from_emptying(tok):
    """A model that would delete every position still leaves min_length tokens."""
    ids, trace = generate(Scripted(tok, []), [], [],
                          SamplerConfig(lengths=(), init_length=6, min_length=1))
    assert len(ids[0]) == 1 and sum(s.deleted for s in trace.steps) == 5
    ids, _ = generate(Scripted(tok, []), [], [], SamplerConfig(lengths=(), init_length=6))
    assert ids[0] == []


class PingPong(Scripted):
    """Every other step wants to delete the last position, the others to expand the first —
    the dithering a weak model shows. Text positions are uniform (never confident)."""

    def __init__(self, tokenizer: Tokenizer, first: str):
        super().__init__(tokenizer, [])
        self.first = first

    def logits(self, ctx, canvas, valid):
        sp = self.tokenizer.special
        B, M = canvas.shape
        out = torch.zeros(B, M, self.tokenizer.vocab_size)
        shrink = (self.calls % 2 == 0) == (self.first == "delete")
        self.calls += 1
        for b in range(B):
            n = int(valid[b].sum())
            if shrink:
                out[b, n - 1, sp.delete] = 20.0
            else:
                out[b, 0, sp.expand] = 20.0
        return out, B * M


@pytest.mark.parametrize("first", ["delete", "expand"])
def test_a_canvas_resizes_one_way_only(tok, first):
    """Once a canvas shrank it never grows again (and vice versa): no passes spent dithering."""
    ids, trace = generate(PingPong(tok, first), [], [],
                          SamplerConfig(lengths=(), init_length=8, threshold=0.5, max_resizes=24))
    expanded = sum(s.expanded for s in trace.steps)
    deleted = sum(s.deleted for s in trace.steps)
    if first == "delete":
        assert deleted > 0 and expanded == 0
        assert trace.forward_passes <= 8  # each pass deletes or commits one of the 8 positions
    else:
        assert expanded > 0 and deleted == 0
    assert len(ids[0]) == 8 - deleted + expanded


def test_a_repeated_context_is_not_run_through_the_model_again():
    """The fill's context is cached: a second request on the same text skips it, same result.

    The denoiser's context (two sentinels) is skipped, and the AR ranker's (three) too when
    the fill had more than one text to rank: whether it has depends on the model's rows, and
    those on the CPU's arithmetic (bf16 where the CPU has it), so both cases are checked.
    """
    engine = load_engine(BUNDLED)
    prefix, suffix = "def area(w, h):\n    return ", "\n\n\nprint(area(2, 3))\n"
    first = engine.fill(prefix, suffix)
    again = engine.fill(prefix, suffix)
    assert again.texts == first.texts
    ctx = len(engine.tokenizer.encode(prefix)) + len(engine.tokenizer.encode(suffix))
    ranked = len(first.texts) > 1 and engine.ranker is not None
    skipped = ctx + 2 + (ctx + 3 if ranked else 0)
    assert first.trace.tokens_processed - again.trace.tokens_processed == skipped
    assert first.trace.forward_passes - again.trace.forward_passes == 1 + ranked  # as passes


def test_prepare_computes_ahead_what_a_fill_starts_from():
    """``prepare`` (run while an editor waits for typing to pause) leaves both models'
    context prefills cached: the fill then gives the same candidates without them."""
    # a hole the bundled model answers more than one way, so the ranker runs (it no longer
    # does on a Stack's push body: every row writes ``pass``)
    prefix, suffix = "def greet(name):\n    print(", ")\n"
    wants_text = SamplerConfig(min_length=1)  # as a ``???`` hole: every row keeps a token
    cold = load_engine(BUNDLED).fill(prefix, suffix, sampler=wants_text)
    engine = load_engine(BUNDLED)
    engine.prepare(prefix, suffix, wants_text)
    warm = engine.fill(prefix, suffix, sampler=wants_text)
    assert warm.texts == cold.texts and len(cold.texts) > 1  # ranked: the AR ranker ran
    # the two context prefills, each a pass of its own
    assert warm.trace.forward_passes == cold.trace.forward_passes - 2
    n = len(engine.tokenizer.encode(prefix)) + len(engine.tokenizer.encode(suffix))
    # the denoiser's <pre> p <suf> s and the ranker's <pre> p <suf> s <mid>
    assert cold.trace.tokens_processed - warm.trace.tokens_processed == (n + 2) + (n + 3)
