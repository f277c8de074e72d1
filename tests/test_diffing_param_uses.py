"""A changed parameter → what the body should do about it (real ``ast``, no model)."""

from __future__ import annotations

import pytest

from remask.diffing.spans import affected_spans


def follow_up(before: str, after: str) -> str:
    """``after`` with every signature span's mechanical candidate applied."""
    spans = [s for s in affected_spans(before, after) if s.kind == "signature"]
    for s in sorted(spans, key=lambda s: s.start, reverse=True):
        after = after[:s.start] + s.mechanical[0] + after[s.end:]
    return after


def added(before: str, old: str, new: str) -> tuple[str, str]:
    assert old in before
    return before, before.replace(old, new, 1)


CASES = {
    "a keyword of that name": (
        "def parse(self, data):\n    return split(data, size=4, cap=True)\n",
        "def parse(self, data)", "def parse(self, data, cap=True)",
        "def parse(self, data, cap=True):\n    return split(data, size=4, cap=cap)\n"),
    "an attribute of that name": (
        "def show(args, env):\n    if args.width:\n        env.write(args.width * '-')\n",
        "def show(args, env)", "def show(args, env, width)",
        "def show(args, env, width):\n    if width:\n        env.write(width * '-')\n"),
    "its default spelled out": (
        "def usage(prog):\n    line = 'Usage: ' + prog\n    return line\n",
        "def usage(prog)", "def usage(prog, prefix='Usage: ')",
        "def usage(prog, prefix='Usage: '):\n    line = prefix + prog\n    return line\n"),
    "a delegating call, *args": (
        "class R:\n    def readline(self):\n        return self._f.readline()\n",
        "def readline(self)", "def readline(self, *args)",
        "class R:\n    def readline(self, *args):\n        return self._f.readline(*args)\n"),
    "a delegating call, **kwargs after the others": (
        "class R:\n    def xpath(self, query):\n        return self.sel.xpath(query)\n",
        "def xpath(self, query)", "def xpath(self, query, **kwargs)",
        "class R:\n    def xpath(self, query, **kwargs):\n"
        "        return self.sel.xpath(query, **kwargs)\n"),
    "a positional forward through the parent's __init__": (
        "class S(Base):\n    def __init__(self, host, port, ssl=None):\n"
        "        Base.__init__(self, host, port,\n                      ssl)\n",
        "ssl=None)", "ssl=None, fd=None)",
        "class S(Base):\n    def __init__(self, host, port, ssl=None, fd=None):\n"
        "        Base.__init__(self, host, port,\n                      ssl, fd)\n"),
    "keywords one a line, trailing comma kept": (
        "def define(cls=None, *, repr=None, eq=None):\n    return attrs(\n"
        "        cls,\n        repr=repr,\n        eq=eq,\n    )\n",
        "eq=None)", "eq=None, order=False)",
        "def define(cls=None, *, repr=None, eq=None, order=False):\n    return attrs(\n"
        "        cls,\n        repr=repr,\n        eq=eq,\n        order=order,\n    )\n"),
    "an __init__ stores it beside the others": (
        "class A:\n    def __init__(self, a, c):\n        self.a = a\n        self.c = c\n",
        "(self, a, c)", "(self, a, b, c)",
        "class A:\n    def __init__(self, a, b, c):\n        self.a = a\n        self.b = b\n"
        "        self.c = c\n"),
    "a default that became None gets the old one back before its first read": (
        "def count(items, seen={}):\n    n = len(items)\n    for x in items:\n"
        "        seen[x] = n\n    return seen\n",
        "seen={}", "seen=None",
        "def count(items, seen=None):\n    n = len(items)\n    if seen is None:\n"
        "        seen = {}\n    for x in items:\n        seen[x] = n\n    return seen\n"),
    "an __init__ stores it after the parent's": (
        'class A(B):\n    def __init__(self):\n        """Doc."""\n        super().__init__()\n'
        "        self.ready = False\n",
        "(self)", "(self, crawler)",
        'class A(B):\n    def __init__(self, crawler):\n        """Doc."""\n'
        "        super().__init__()\n        self.crawler = crawler\n        self.ready = False\n"),
}


@pytest.mark.parametrize("name", CASES)
def test_an_unread_new_parameter_goes_where_the_body_needs_it(name):
    before, old, new, expected = CASES[name]
    before, after = added(before, old, new)
    assert follow_up(before, after) == expected


def test_a_forward_that_would_outgrow_the_longest_line_wraps_under_the_first_argument():
    before = ("class Blueprint(_PackageBoundObject):\n"
              "    def __init__(self, name, import_name, template_folder=None):\n"
              "        _PackageBoundObject.__init__(self, import_name, template_folder)\n")
    before, after = added(before, "template_folder=None)",
                          "template_folder=None,\n                 root_path=None)")
    assert follow_up(before, after).endswith(
        "        _PackageBoundObject.__init__(self, import_name, template_folder,\n"
        "                                     root_path)\n")


NOTHING = {
    "it is read already": ("def f(a):\n    return g(a, b)\n", "f(a)", "f(a, b=2)"),
    "nothing says where": ("def f(a):\n    return a + 1\n", "f(a)", "f(a, b=None)"),
    "a common default": ("def f(a):\n    return g(a) or None\n", "f(a)", "f(a, b=None)"),
    "it replaced another parameter": ("def f(a, old):\n    return g(a, old)\n", "f(a, old)",
                                      "f(a, new=3)"),
    "an __init__ that sets it its own way": (
        "class A:\n    def __init__(self):\n        self.meta = {}\n", "(self)", "(self, meta)"),
    "a default that became None, tested already": (
        "def f(seen={}):\n    seen = seen or {}\n    return seen\n", "seen={}", "seen=None"),
    "a default that became None, tested with is": (
        "def f(seen={}):\n    if seen is None:\n        pass\n    return seen\n", "seen={}",
        "seen=None"),
    "a default that was None": ("def f(a=None):\n    return g(a)\n", "a=None", "a=1"),
    "self's own attribute": ("class A:\n    def run(self):\n        return self.n\n",
                             "run(self)", "run(self, n=2)"),
}


@pytest.mark.parametrize("name", NOTHING)
def test_no_follow_up_where_the_body_gives_no_sign(name):
    before, after = added(*NOTHING[name])
    assert [s for s in affected_spans(before, after) if s.kind == "signature"] == []


def test_a_parameter_rebound_before_any_read_is_still_unread():
    before = ("def usage(prog):\n    prefix = '%s%s' % ('Usage: ', prog)\n"
              "    return prefix\n")
    before, after = added(before, "usage(prog)", "usage(prog, prefix='Usage: ')")
    assert follow_up(before, after) == after.replace("('Usage: ', prog)", "(prefix, prog)")


def test_the_forwarding_call_is_the_one_that_passes_the_most():
    before = ("def run(a, b, c):\n    log(a, b)\n    return work(a, b, c)\n")
    before, after = added(before, "run(a, b, c)", "run(a, b, c, d)")
    assert follow_up(before, after) == after.replace("work(a, b, c)", "work(a, b, c, d)")
