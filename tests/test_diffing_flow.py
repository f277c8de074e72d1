"""``reads_before_binding``: reads of a name the body binds that no binding reaches yet."""

import pytest

from remask.diffing.flow import reads_before_binding

HERE = "# here\n"  # the offset asked about: the innermost body around this comment is walked


@pytest.mark.parametrize(("source", "count"), [
    ("x = x\n" + HERE, 1),  # a module name read in its own first binding
    ("x = 1\nx = x\n" + HERE, 0),
    ("list = list((1,))\n" + HERE, 0),  # at module level the builtin is what is read
    ("def f(n):\n" + HERE + "    total += n\n    total = 0\n", 1),
    ("def f(n):\n" + HERE + "    total = 0\n    total += n\n", 0),
    ("def f(xs):\n    return result\n" + HERE + "    result = []\n", 1),
    ("def f(xs):\n" + HERE + "    len = len(xs)\n", 1),  # a local shadows the builtin
    ("def f(xs):\n" + HERE + "    del xs\n    return xs\n", 1),
    # one path that binds it is enough: branches, loops (a later pass), handlers
    ("def f(a):\n" + HERE + "    if a:\n        y = 1\n    return y\n", 0),
    ("def f(xs):\n" + HERE + "    for x in xs:\n        if x:\n            print(prev)\n"
     "        prev = x\n", 0),
    ("def f(xs):\n" + HERE + "    while xs:\n        if n:\n            break\n"
     "        n = xs.pop()\n", 0),
    ("def f():\n" + HERE + "    try:\n        import json\n    except ImportError:\n"
     "        json = None\n    return json\n", 0),
    # the body holding the offset, not its neighbours or nested functions
    ("def f():\n    return y + z\n    y = 1\n\ndef g():\n" + HERE + "    pass\n", 0),
    ("def f():\n" + HERE + "    return y + z\n    y = 1\n", 1),
    ("def f(a):\n" + HERE + "    def g():\n        return b\n    b = a\n", 0),
    ("def f():\n    def g():\n" + HERE + "        return b\n        b = 1\n", 1),
    # a method, an async def, and lines that fool the indentation (a string at column 0,
    # a bracket closed at column 0): the whole file is parsed then, with the same answer
    ("class C:\n    def m(self):\n" + HERE + "        return n\n        n = 1\n", 1),
    ("async def f():\n" + HERE + "    await n\n    n = g()\n", 1),
    ("def f():\n" + HERE + '    s = """\nno\n"""\n    return n\n    n = 1\n', 1),
    ("def f():\n" + HERE + "    s = [\n1]\n    return n + s\n    n = 1\n", 1),
])
def test_counts_reads_no_binding_reaches(source, count):
    assert reads_before_binding(source, source.index(HERE)) == count


@pytest.mark.parametrize("source", [
    "def f(\n" + HERE,  # does not parse
    "def f():\n" + HERE + "    global y\n    print(y)\n    y = 1\n",  # not modelled
    "def f(p):\n" + HERE + "    match p:\n        case [a]:\n            return b\n    b = 1\n",
])
def test_says_nothing_where_it_cannot_know(source):
    assert reads_before_binding(source, source.index(HERE)) == 0
