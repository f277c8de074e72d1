"""A removed parameter's default stands in for its reads (real ``ast``; one test runs the model)."""

from __future__ import annotations

import pytest

from remask.diffing.rewriter import Rewriter, RewriterConfig
from remask.diffing.spans import affected_spans


def removed(before: str, old: str, new: str) -> tuple[str, list]:
    """The text after replacing ``old`` by ``new`` in the signature, and its dangling spans."""
    assert old in before
    after = before.replace(old, new, 1)
    return after, [s for s in affected_spans(before, after) if s.kind == "dangling"]


def followed(after: str, spans: list) -> str:
    """``after`` with each span's first mechanical candidate in place."""
    for s in sorted(spans, key=lambda s: s.start, reverse=True):
        after = after[:s.start] + s.mechanical[0] + after[s.end:]
    return after


CASES = {
    "a test never true goes, with the comment above it": (
        "class Request:\n    def __init__(self, url, referer=None, depth=0):\n"
        "        self.url = url\n        # shortcut for setting referer\n"
        "        if referer is not None:\n            self.headers['referer'] = referer\n"
        "        self.depth = depth\n",
        "referer=None, ", "",
        "class Request:\n    def __init__(self, url, depth=0):\n        self.url = url\n"
        "        self.depth = depth\n"),
    "a test always true leaves its block, dedented, comments and all": (
        "def save(path, data, dry_run=False):\n    if not dry_run:\n        # write it\n"
        "        with open(path, 'w') as f:\n            f.write(data)\n    return path\n",
        ", dry_run=False", "",
        "def save(path, data):\n    # write it\n    with open(path, 'w') as f:\n"
        "        f.write(data)\n    return path\n"),
    "a test never true leaves its else": (
        "def show(x, verbose=False):\n    if verbose:\n        print(repr(x))\n    else:\n"
        "        print(x)\n",
        ", verbose=False", "",
        "def show(x):\n    print(x)\n"),
    "the only statement of its block becomes pass": (
        "def f(items, strict=False):\n    for x in items:\n        if strict:\n"
        "            check(x)\n    return items\n",
        ", strict=False", "",
        "def f(items):\n    for x in items:\n        pass\n    return items\n"),
    "a conditional expression becomes its branch": (
        "def main(as_module=False):\n"
        "    cli.main(args=argv[1:], prog_name='python -m app' if as_module else None)\n",
        "as_module=False", "",
        "def main():\n    cli.main(args=argv[1:], prog_name=None)\n"),
    "an expression default is bracketed where an operator binds it": (
        "def area(w, h=2 + 1):\n    print(h)\n    return w * h\n",
        ", h=2 + 1", "",
        "def area(w):\n    print(2 + 1)\n    return w * (2 + 1)\n"),
    "and/or lose the operands the default decides, and nothing else": (
        "def prefix(plat=0, lib=1):\n    a = plat and EXEC or BASE\n    b = plat or (lib) or 2\n"
        "    c = (x if True else y) if plat else z\n    return a, b, c\n",
        "plat=0, ", "",
        "def prefix(lib=1):\n    a = BASE\n    b = (lib) or 2\n    c = z\n    return a, b, c\n"),
    "a name that is also a builtin's": (
        "def dump(obj, format='json'):\n    return encoders[format](obj)\n",
        ", format='json'", "",
        "def dump(obj):\n    return encoders['json'](obj)\n"),
    "a name the module binds too": (
        "from sympy import simplify\n\ndef solve(eqs, simplify=True):\n"
        "    return reduce(eqs) if simplify else eqs\n",
        ", simplify=True", "",
        "from sympy import simplify\n\ndef solve(eqs):\n    return reduce(eqs)\n"),
    "a name whose edit starts just after it": (
        "def field(*, default=MISSING, default_factory=MISSING):\n"
        "    return Field(default, default_factory)\n",
        "default=MISSING, ", "",
        "def field(*, default_factory=MISSING):\n    return Field(MISSING, default_factory)\n"),
    "an elif is read, not folded": (
        "def f(x, mode=None):\n    if x:\n        a()\n    elif mode is None:\n        b()\n",
        ", mode=None", "",
        "def f(x):\n    if x:\n        a()\n    elif None is None:\n        b()\n"),
    "a block with a string over several lines keeps its indentation: the test is read": (
        "def f(quiet=False):\n    if not quiet:\n        print('''a\n        b''')\n",
        "quiet=False", "",
        "def f():\n    if not False:\n        print('''a\n        b''')\n"),
}


@pytest.mark.parametrize("name", CASES)
def test_a_removed_parameters_default_stands_in(name):
    before, old, new, expected = CASES[name]
    after, spans = removed(before, old, new)
    assert spans and all(s.mechanical for s in spans)
    assert followed(after, spans) == expected


def test_crlf_line_ends_are_kept():
    before, old, new, expected = CASES["the only statement of its block becomes pass"]
    after, spans = removed(before.replace("\n", "\r\n"), old, new)
    assert followed(after, spans) == expected.replace("\n", "\r\n")


def test_the_span_says_why():
    before, old, new, _ = CASES["a test never true goes, with the comment above it"]
    [span] = removed(before, old, new)[1]
    assert span.reason == ("line 5 tests 'referer', a parameter the edit removed: with its "
                           "default None the test is always False")


@pytest.mark.parametrize("before, old, new", [
    # no default: nothing stands in
    ("def f(x, y):\n    return x + y\n", ", y", ""),
    # **kwargs may carry it now
    ("def f(x, json=None, **kw):\n    return x if json is None else json\n", "json=None, ", ""),
    # each read of a [] would be a new list
    ("def f(x, acc=[]):\n    acc.append(x)\n    return acc\n", ", acc=[]", ""),
    # a class attribute the method body cannot see by its bare name
    ("class A:\n    LIMIT = 3\n\n    def f(self, n=LIMIT):\n        return n\n", ", n=LIMIT", ""),
    # a name the body binds reads the local there
    ("def f(x, sep=SEP):\n    SEP = '-'\n    return sep.join(x)\n", ", sep=SEP", ""),
    # a parameter added in its place may be what replaces it
    ("def get(url, prefetch=True, stream=None):\n    if prefetch:\n        load()\n",
     "prefetch=True, stream=None", "stream=False, other=None"),
])
def test_left_to_the_model(before, old, new):
    after, spans = removed(before, old, new)
    assert spans and not any(s.mechanical for s in spans)


def test_an_if_past_the_span_budget_has_its_test_read_instead():
    body = "".join(f"        step{i}()\n" for i in range(40))
    before = f"def run(fast=False):\n    if fast:\n{body}    else:\n        slow()\n"
    after, spans = removed(before, "fast=False", "")
    assert followed(after, spans) == f"def run():\n    if False:\n{body}    else:\n        slow()\n"


def test_a_read_in_an_f_string_is_left_to_the_model():
    before = "def tag(x, kind='a'):\n    return f\"{kind}-{x}\"\n"
    after, [span] = removed(before, ", kind='a'", "")
    assert span.mechanical == () and after[span.start:span.end] == 'return f"{kind}-{x}"'


def test_a_read_of_another_binding_is_not_the_parameter():
    """A nested def with a parameter of that name reads its own."""
    before = ("def f(x, key=None):\n    def g(key):\n        return key\n"
              "    return g(x) if key else x\n")
    after, spans = removed(before, ", key=None", "")
    assert followed(after, spans) == ("def f(x):\n    def g(key):\n        return key\n"
                                      "    return x\n")


def test_the_rewriter_offers_the_default(engine):
    before, old, new, expected = CASES["a test never true goes, with the comment above it"]
    after = before.replace(old, new, 1)
    [proposal] = Rewriter(engine, RewriterConfig()).propose(before, after, "r.py")
    assert proposal.text == expected
    assert proposal.trace["sources"] == ["mechanical"]
