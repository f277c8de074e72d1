"""Function-shaped training examples: one documented function, the span in its body."""

import numpy as np

from remask.infill.data import DataConfig, cut_example, function_span
from remask.infill.engine import BUNDLED
from remask.infill.tokenizer import Tokenizer

SOURCE = '''import os


def mean(xs: list[int],
         weights=None) -> float:
    """Mean of xs.

    >>> mean([1, 2])
    1.5
    """
    total = sum(xs)
    # the count
    return total / len(xs)


class A:
    def undocumented(self):
        return 1

    def g(self, x):
        \'\'\'One line.\'\'\'
        if x:
            return 2
        return 3
x = 1
'''


def test_a_span_lies_in_a_documented_functions_body_after_its_docstring():
    mean = SOURCE.index("def mean"), SOURCE.index("class A")
    g = SOURCE.index("    def g"), SOURCE.index("x = 1")
    seen = set()
    rng = np.random.default_rng(0)
    for _ in range(200):
        f0, f1, a, b = function_span(SOURCE, rng)
        assert (f0, f1) in (mean, g)  # never the undocumented one, never past the body
        body = SOURCE.index("    total") if f0 == mean[0] else SOURCE.index("        if x")
        assert body <= a < b <= f1
        seen.add((f0, SOURCE[a:b].endswith("\n")))
    assert len(seen) == 4  # both functions; whole lines with and without the line break


def test_text_without_a_documented_function_has_no_span():
    rng = np.random.default_rng(0)
    assert function_span("def f(x):\n    return x\n\nx = 1\n", rng) is None
    assert function_span('def f(x):\n    """Only a docstring."""\n', rng) is None
    assert function_span("print('no functions')\n", rng) is None
    # a one-line def has no body: the next def's is not taken for its own
    assert function_span('def f(): return 1\ndef g():\n    """Doc."""\n    return 2\n',
                         rng)[0] > 0


def test_cut_example_keeps_to_the_function():
    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    cfg = DataConfig(function_rate=1.0, uncond_rate=0.0)
    rng = np.random.default_rng(0)
    for _ in range(50):
        p, m, s = cut_example(SOURCE, tok, cfg, rng)
        text = tok.decode(p) + tok.decode(m) + tok.decode(s)
        assert text.lstrip().startswith("def ") and "import os" not in text
        assert text.strip() in SOURCE


def test_a_function_longer_than_the_scan_is_cut_at_it():
    """The example never takes the rest of a long file as its suffix."""
    long = 'def f(x):\n    """Doc."""\n' + "    x += 1\n" * 2000 + "\nrest = 1\n" * 5000
    f0, f1, a, b = function_span(long, np.random.default_rng(0))
    assert f0 == 0 and f1 <= 8000 and a < b <= f1


def test_at_rate_0_the_cuts_are_the_ones_before_the_option():
    """No random number is drawn for the option at rate 0, so the seeded held-out set (and
    every curve point measured on it) stays as it was. Pinned from the code before it."""
    tok = Tokenizer.load(BUNDLED / "tokenizer.json")
    middles = [tok.decode(cut_example(SOURCE, tok, DataConfig(uncond_rate=0.0),
                                      np.random.default_rng(seed))[1]) for seed in (0, 2, 3)]
    assert middles == ["    >>> mean([1, 2])\n", "    total = sum(xs)\n",
                       '         weights=None) -> float:\n    """Mean of xs.\n\n']
