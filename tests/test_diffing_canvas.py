"""Which canvas each span gets: decided from the real spans the cursor and edits produce."""

import pytest

from remask.diffing.canvas import (
    HOLE_LENGTH_NORM,
    HOLE_LINE_STEPS,
    LINE_LENGTH_NORM,
    LINE_MAX,
    LINE_STEPS,
    LINE_TOKENS,
    sampler_for,
)
from remask.diffing.holes import cursor_hole
from remask.diffing.proposal import Span
from remask.infill.engine import BUNDLED
from remask.infill.sampler import SamplerConfig
from remask.infill.tokenizer import Tokenizer

BASE = SamplerConfig(init_length=16, max_length=96)


@pytest.fixture(scope="module")
def tok():
    return Tokenizer.load(BUNDLED)


def canvas_at(text: str, cursor: int, tok: Tokenizer, line_threshold: float | None = None,
              samples: int = 0) -> SamplerConfig:
    span = cursor_hole(text, cursor, "???")
    return sampler_for(span, text, span.start, span.end, BASE, "???", tok, line_threshold,
                       samples=samples)


def test_the_rest_of_a_line_after_code_is_one_short_line(tok):
    text = "def f(x):\n    y = x + \n    return y\n"
    cfg = canvas_at(text, text.index(" \n") + 1, tok)
    assert cfg.single_line and cfg.init_length == LINE_TOKENS < BASE.init_length
    assert cfg.max_length == LINE_MAX < BASE.max_length
    assert cfg.min_length == 1  # `y = x +` is no line yet: an empty rest is no answer
    # only a line's worth of starting lengths: longer rows add passes, not passes@1
    assert cfg.lengths and max(cfg.lengths) <= LINE_TOKENS < max(BASE.lengths)


@pytest.mark.parametrize("typed, wants_text", [
    ("    y = x", False),  # complete: the rest of the line may well be empty
    ("    y = x +", True),
    ("    for v in x", True),  # the colon is missing
    ("    retur", False),  # parses as a bare name: Python cannot tell
])
def test_the_rest_of_a_line_may_be_empty_only_where_the_line_parses(tok, typed, wants_text):
    text = f"def f(x):\n{typed}\n    return x\n"
    cfg = canvas_at(text, text.index(typed) + len(typed), tok)
    assert cfg.single_line and cfg.min_length == int(wants_text)


@pytest.mark.parametrize("text, anchor", [
    ("def f(x):\n    return ???\n", "???"),  # a marker after code: one line, never empty
    ("def f(x):\n    pass\n", "pass"),  # a body to write: may span lines, never empty
    ("def f(x):\n    \n", "    \n"),  # an empty body
])
def test_holes_that_want_text_never_empty(tok, text, anchor):
    cfg = canvas_at(text, text.index(anchor) + 1, tok)
    assert cfg.min_length == 1
    assert cfg.single_line == (anchor == "???")
    assert cfg.init_length == (LINE_TOKENS if anchor == "???" else BASE.init_length)


def test_only_one_line_holes_commit_at_the_line_threshold(tok):
    line = "def f(x):\n    return ???\n"
    body = "def f(x):\n    pass\n"
    assert canvas_at(line, line.index("???") + 1, tok, 0.1).threshold == 0.1
    assert canvas_at(line, line.index("???") + 1, tok, None).threshold == BASE.threshold
    assert canvas_at(body, body.index("pass") + 1, tok, 0.1).threshold == BASE.threshold


def test_only_one_line_holes_leave_ranking_to_the_ar_ranker(tok):
    line = "def f(x):\n    return ???\n"
    body = "def f(x):\n    pass\n"
    assert canvas_at(line, line.index("???") + 1, tok).denoiser_weight == 0
    assert canvas_at(body, body.index("pass") + 1, tok).denoiser_weight == BASE.denoiser_weight > 0


def test_one_line_holes_and_longer_ones_rank_with_their_own_length_norm(tok):
    line = "def f(x):\n    return ???\n"
    own_line = "def f(x):\n    ???\n"
    body = "def f(x):\n    pass\n"
    assert canvas_at(line, line.index("???") + 1, tok).length_norm == LINE_LENGTH_NORM
    assert canvas_at(own_line, own_line.index("???") + 1, tok).length_norm == HOLE_LENGTH_NORM
    assert canvas_at(body, body.index("pass") + 1, tok).length_norm == HOLE_LENGTH_NORM > 0
    assert 0 < LINE_LENGTH_NORM != HOLE_LENGTH_NORM and BASE.length_norm == 0


def test_a_one_line_hole_asked_for_takes_more_steps_than_one_shown_while_typing(tok):
    """Drawn rows on a typing budget commit most tokens by force, at the temperature."""
    line = "def f(x):\n    return ???\n"
    body = "def f(x):\n    pass\n"
    typed = canvas_at(line, line.index("???") + 1, tok)
    asked = canvas_at(line, line.index("???") + 1, tok, samples=5)
    assert (typed.samples, typed.max_steps) == (0, LINE_STEPS)
    assert (asked.samples, asked.max_steps) == (5, HOLE_LINE_STEPS) and LINE_STEPS < HOLE_LINE_STEPS
    assert canvas_at(body, body.index("pass") + 1, tok, samples=5).max_steps == BASE.max_steps


def test_a_renamed_reference_gets_a_canvas_its_size(tok):
    text = "total = 1\nprint(total)\n"
    s = text.index("total)")
    span = Span(s, s + 5, "rename", "a use of 'total'", mechanical=("grand_total",))
    cfg = sampler_for(span, text, s, s + 5, BASE, "???", tok)
    n = len(tok.encode("grand_total"))
    assert (cfg.init_length, cfg.max_length) == (n, n + 1)
    assert cfg.lengths == ()  # its size is known: one canvas, no length search
    assert not cfg.single_line


@pytest.mark.parametrize("text, anchor", [
    ("def f(x):\n    ???\n    return x\n", "???"),  # a hole on its own line: a block
    ("def f(x):\n    return ???\n", "???"),  # after code: one line
    ("def f(x):\n    y = x +\n    return y\n", "+\n"),  # the rest of a line being typed
    ("def f(x):\n    y = x\n    return y\n", "x\n"),  # a complete line: may end here
])
def test_old_mac_line_ends_get_the_canvas_unix_ones_get(tok, text, anchor):
    r"""A file with lone ``\r`` line ends is read line by line, not as one long line."""
    mac = text.replace("\n", "\r")
    at = text.index(anchor) + (1 if anchor == "???" else len(anchor) - 1)
    assert canvas_at(mac, at, tok) == canvas_at(text, at, tok)
