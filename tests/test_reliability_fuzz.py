"""Fuzzing the edit mapping and minimal edits (hypothesis, bounded to run in seconds).

Two guarantees every front end leans on:
- ``apply_edits(old, minimal_edits(old, new)) == new`` for any two texts: full Unicode
  (astral characters, lone CRs, CRLF, tabs, BOMs, control characters, surrogates);
- ``Rewriter.spans(before, after)`` never raises on a small edit of real Python code, returns
  spans inside ``after``, and never covers the bytes the user typed (``diffing/spans.py``: the
  edit is the one region left by the common prefix and suffix; a typed hole marker is the one
  exception — typing the marker asks for it to be filled).
"""

from __future__ import annotations

import inspect
import json
import textwrap
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from remask.diffing.change import find_change, separate_edits
from remask.diffing.edits import minimal_edits
from remask.diffing.proposal import apply_edits
from remask.diffing.rewriter import Rewriter, RewriterConfig

ROOT = Path(__file__).resolve().parent.parent

# real Python: the README example, and stdlib functions with strings, comments, nesting
SNIPPETS = [
    (ROOT / "examples" / "stats.py").read_text(),
    inspect.getsource(textwrap.dedent),
    inspect.getsource(textwrap.TextWrapper._wrap_chunks),
    inspect.getsource(json.dumps),
    "def f(a, b):\n\treturn a + b\n\n\nprint(f(1, 2), f(b=3, a=4))\n",
    "class K:\r\n    def m(self, x):\r\n        y = x * 2  # 𝔸 é\r\n        return y\r\n",
    "\ufeffimport os\n\nfor i in range(3):\n    if i:\n        print(i, os.sep)\n",
]

ANY_TEXT = st.text(st.characters(codec=None), max_size=80)  # every code point, surrogates too
BREAKS = st.sampled_from(["\n", "\r\n", "\r", "\t", "\ufeff", "𝔸", "😀", "\x00", "\x0c"])
MIXED = st.lists(st.one_of(st.characters(), BREAKS), max_size=80).map("".join)
TYPED_PIECES = list("abx_(): =,.'\"#[]{}\t") + ["\n", "\r\n", "é", "𝔸", "???"]
TYPED = st.lists(st.sampled_from(TYPED_PIECES), max_size=6).map("".join)


@settings(max_examples=400, deadline=None)
@given(st.one_of(ANY_TEXT, MIXED), st.one_of(ANY_TEXT, MIXED))
def test_minimal_edits_reproduce_any_unicode_text(old, new):
    edits = minimal_edits(old, new)
    assert apply_edits(old, edits) == new
    assert all(0 <= e.start <= e.end <= len(old) for e in edits)


@st.composite
def edited(draw):
    """A real snippet, maybe with CRLF breaks, and a copy with 1-3 small local edits."""
    before = draw(st.sampled_from(SNIPPETS))
    if draw(st.booleans()):
        before = before.replace("\r\n", "\n").replace("\n", "\r\n")
    after = before
    for _ in range(draw(st.integers(1, 3))):
        pos = draw(st.integers(0, len(after)))
        cut = draw(st.integers(0, min(8, len(after) - pos)))
        after = after[:pos] + draw(TYPED) + after[pos + cut:]
    return before, after


@settings(max_examples=400, deadline=None)
@given(edited())
def test_minimal_edits_reproduce_edited_code(pair):
    before, after = pair
    assert apply_edits(before, minimal_edits(before, after)) == after
    assert apply_edits(after, minimal_edits(after, before)) == before


@pytest.fixture(scope="module")
def rewriter(engine):
    return Rewriter(engine, RewriterConfig())


def _typed_regions(before: str, after: str) -> list[tuple[int, int]]:
    """The user's typed bytes in ``after``: each separate edit's, as remask reads the edits.

    Two edits apart (a typed line, and another further down) leave the text between them as
    it was: that is no typed byte, and a span may cover it.
    """
    out = []
    for alone in separate_edits(before, after):
        ch = find_change(alone, after)
        if ch is not None and ch.start < ch.new_end:
            out.append(ch.typed)
    return out


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(edited(), st.data())
def test_spans_never_raise_and_never_cover_typed_bytes(rewriter, pair, data):
    before, after = pair
    cursor = data.draw(st.one_of(st.none(), st.integers(0, len(after))))
    spans = rewriter.spans(before, after, "fuzz.py", cursor)
    typed = _typed_regions(before, after)
    marker = rewriter.config.marker
    for s in spans:
        assert 0 <= s.start <= s.end <= len(after), s
        assert s.kind in ("repair", "rename", "signature", "dangling", "hole"), s
        for a, b in typed if after[s.start:s.end] != marker else []:
            assert s.end <= a or s.start >= b, (s, (a, b), after[a:b])
    assert sum(s.end - s.start for s in spans) <= rewriter.config.span_cap


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(MIXED, MIXED)
@example("\ud800", "").via("a lone surrogate (newer hypothesis draws them): no parser takes it")
@example("", "x = 1\n\ud800")
def test_spans_never_raise_on_arbitrary_text(rewriter, before, after):
    cursor = len(after) // 2
    for s in rewriter.spans(before, after, "fuzz.py", cursor):
        assert 0 <= s.start <= s.end <= len(after)


@pytest.mark.parametrize("text,cursor", [("\r\n", 1), ("x = 1\r\n\r\ny = 2\r\n", 6)])
def test_cursor_between_cr_and_lf_gives_no_inverted_span(rewriter, text, cursor):
    for s in rewriter.spans(text, text, "m.py", cursor):
        assert s.start <= s.end, s
