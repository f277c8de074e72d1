"""A hole that is a whole line: its candidates are offered at every indentation the blocks
above allow, Python's parser drops the illegal ones and the model's score picks."""

from __future__ import annotations

import ast

import torch
from scripted import PerLength, Scripted

from remask.diffing import denoise as denoise_module
from remask.diffing.canvas import HOLE_SAMPLES, sampler_for
from remask.diffing.checks import faults
from remask.diffing.holes import cursor_hole
from remask.diffing.indent import COPIED, indent_levels, reindented, starts_blank_line
from remask.diffing.rewriter import Rewriter
from remask.infill.engine import Engine
from remask.infill.sampler import SamplerConfig

NESTED = "def f(xs):\n\tfor x in xs:\n\t\tif x:\n\t\t\treturn True\n\n"
LOOP = '''def has_negative(xs):
    """Whether any item of xs is below zero."""
    for x in xs:
        if x < 0:
            return True

    print(xs)
'''


def test_the_levels_are_the_blocks_enclosing_the_line_above_and_the_line_below():
    assert indent_levels(NESTED[:-1], "\n") == ["\t\t\t", "\t\t", "\t", ""]
    # a header opens one level deeper; comments and blank lines say nothing
    above = "class A:\n    def f(self):\n        # the loop\n\n        while True:\n"
    assert indent_levels(above, "\n        pass\n") == ["            ", "        ", "    ", ""]
    # the next code line's level counts, even one the lines above never reach
    assert indent_levels("x = [\n  1,\n]\n", "\n      # no\n    y = 2\n") == ["", "    "]


def test_only_one_line_candidates_are_copied_and_only_to_other_levels():
    assert reindented("  return x\n", ["  ", "", "    "]) == ["return x\n", "    return x\n"]
    assert reindented("a = 1\nb = 2", ["", "    "]) == []
    assert reindented("   ", ["", "    "]) == []


def test_only_a_hole_that_is_its_line_is_whole():
    assert starts_blank_line("x = 1\n", "\ny = 2\n") and starts_blank_line("", "")
    assert starts_blank_line("a\r\n", "\r\nb")
    assert not starts_blank_line("x = 1\n    ", "\n")
    assert not starts_blank_line("x = 1\n", " + 2\n")


class Unsure(Scripted):
    """Writes ``\\t\\treturn True`` unsure of every token; believes a three-token canvas is
    ``\\treturn True`` (the line after the loop), so scoring prefers that copy."""

    def __init__(self, tokenizer):
        super().__init__(tokenizer, tokenizer.encode("\t\treturn True"))
        self.after = tokenizer.encode("\treturn True")
        assert len(self.after) == 3 != len(self.target)

    def logits(self, ctx, canvas, valid):
        out, n = super().logits(ctx, canvas, valid)
        for b in range(canvas.shape[0]):
            if int(valid[b].sum()) == len(self.after):
                out[b] = -20.0
                out[b, torch.arange(3), torch.tensor(self.after)] = 20.0
            else:
                out[b] = out[b] * 0.1  # commits only as the step budget forces it
        return out, n


def test_a_copy_the_model_believes_more_than_its_original_is_the_fill(engine):
    """The fill writes the line inside the loop; the same line after the loop scores higher,
    so it is the answer, and the original stays offered behind it."""
    rw = Rewriter(Engine(Unsure(engine.tokenizer)))
    sampler = SamplerConfig(lengths=(4,), max_steps=8)
    at = len(NESTED) - 1
    res = rw.denoise_span(NESTED, at, at, "t.py", sampler=sampler)
    assert res.text == "\treturn True"
    assert "\t\treturn True" in res.candidates
    # by score, except the copy after the ``return True`` inside the ``if``: dead code
    assert res.candidates[-1] == "\t\t\treturn True"
    assert res.candidates[:-1] == sorted(res.candidates[:-1], key=lambda c: -res.scores[c])
    # where the user chose the indentation (the cursor after it), the fill is the fill's
    rw = Rewriter(Engine(Scripted(engine.tokenizer, engine.tokenizer.encode("return True"))))
    typed = NESTED[:-1] + "\t"
    res = rw.denoise_span(typed + "\n", len(typed), len(typed), "t.py",
                          sampler=SamplerConfig(lengths=(2,), max_steps=8))
    assert res.candidates == ["return True"]
    at = len(NESTED) - 1  # the same model at column 0, where a ``return`` never compiles:
    res = rw.denoise_span(NESTED, at, at, "t.py", sampler=SamplerConfig(lengths=(2,),
                                                                        max_steps=8))
    assert res.reason == "ok"  # its copies one level in and deeper are the candidates
    assert sorted(res.candidates) == ["\t\t\treturn True", "\t\treturn True", "\treturn True"]


def test_only_the_best_few_candidates_are_copied(engine, monkeypatch):
    """Each copy costs whole-file checks, so only ``COPIED`` of a fill's candidates are."""
    lines = ["\tpass", "\traise ValueError", "\treturn xs", "\tyield xs", "\tprint(xs)"]
    rw = Rewriter(Engine(PerLength(engine.tokenizer, lines)))
    copied: list[str] = []

    def spy(candidate, levels):
        copied.append(candidate)
        return reindented(candidate, levels)
    monkeypatch.setattr(denoise_module, "reindented", spy)
    text = "def f(xs):\n\tfor x in xs:\n\t\tif x:\n\t\t\tcontinue\n\n"
    at = len(text) - 1
    res = rw.denoise_span(text, at, at, "t.py", sampler=SamplerConfig(lengths=(2, 3, 4, 5, 6),
                                                                      max_steps=8))
    assert sorted(c for c in res.candidates if c in lines) == sorted(lines)
    assert len(copied) == COPIED < len(lines)
    assert {c.strip() for c in res.candidates if c not in lines} == {c.strip() for c in copied}


def test_the_bundled_models_whole_line_fill_is_ranked_across_levels(engine):
    """On the real model, the cursor on a blank line: every offered line keeps the file
    parsing, some line is offered at more than one level, and they rank as every fill ranks
    (fewer unbound names, then the score), copies among them."""
    at = LOOP.index("\n\n") + 1
    rw = Rewriter(engine)
    span = cursor_hole(LOOP, at, "???")
    assert span is not None and span.start == span.end == at
    res = rw.denoise_span(LOOP, at, at, "t.py", sampler=sampler_for(
        span, LOOP, at, at, engine.sampler, "???", engine.tokenizer, path="t.py",
        samples=HOLE_SAMPLES))
    for c in res.candidates:
        ast.parse(LOOP[:at] + c + LOOP[at:])
    bodies = [c.strip() for c in res.candidates]
    assert len(set(bodies)) < len(bodies)

    def rank(c: str) -> tuple[int, float]:
        return faults(LOOP[:at] + c + LOOP[at:], "t.py", at), -res.scores[c]
    assert res.candidates == sorted(res.candidates, key=rank)
    p = rw.fill_at(LOOP, at, "t.py")
    assert p is not None and p.text == LOOP[:at] + res.text + LOOP[at:]
