"""``unreachable_statements``: statements after a return, raise, break or continue in their block;
``idle_statements``: a pass beside code, ``x = x``, an assignment echoed; ``dropped_values``:
locals made on the spot, then only updated, never read."""

import pytest

from remask.diffing.deadcode import dropped_values, idle_statements, unreachable_statements

HERE = "# here\n"  # the offset asked about: the innermost body around this comment is walked


@pytest.mark.parametrize(("source", "count"), [
    ("def f(s):\n    words = s.split()\n" + HERE + "    return words\n    return words[0]\n", 1),
    ("def f(s):\n" + HERE + "    return s\n", 0),
    ("def f(xs):\n" + HERE + "    for x in xs:\n        continue\n        print(x)\n"
     "        x += 1\n    else:\n        return 0\n        pass\n", 3),
    ("def f(xs):\n" + HERE + "    while xs:\n        break\n    return xs\n", 0),  # after the loop
    ("def f(a):\n" + HERE + "    if a:\n        raise ValueError(a)\n        a = 0\n", 1),
    ("def f(a):\n" + HERE + "    try:\n        return a\n        a += 1\n    except E:\n"
     "        return 0\n    finally:\n        return 1\n        a = 2\n", 2),
    # what an if whose every branch returns leaves dead is not counted: only straight after
    ("def f(a):\n" + HERE + "    if a:\n        return 1\n    else:\n        return 2\n"
     "    return 3\n", 0),
    # the body holding the offset, as for reads: not its neighbours
    ("def f():\n    return 1\n    g()\n\ndef g():\n" + HERE + "    pass\n", 0),
    ("class C:\n    def m(self):\n" + HERE + "        return 1\n        self.x = 2\n", 1),
    ("def f():\n" + HERE + '    s = """\nno\n"""\n    return s\n    s = 1\n', 1),  # whole file
    ("return = (\n" + HERE, 0),  # Python cannot parse it
])
def test_counts_statements_no_path_reaches(source, count):
    assert unreachable_statements(source, source.index(HERE)) == count


@pytest.mark.parametrize(("source", "count"), [
    ("def f(x):\n" + HERE + "    pass\n    return x\n", 1),  # a pass beside code
    ("def f(x):\n" + HERE + "    '''Docs.'''\n    pass\n", 0),  # beside a docstring: the body
    ("def f(x):\n" + HERE + "    if x:\n        pass\n    else:\n        x()\n", 0),
    ("def f(x):\n" + HERE + "    x = x\n    return x\n", 1),
    ("class C:\n    def m(self):\n" + HERE + "        self.a = self.a\n", 1),
    ("def f(x):\n" + HERE + "    self.a = x.a\n", 0),
    # a line echoed: each repeat counts; the same line apart from it does not
    ("def f(s):\n" + HERE + "    i = 0\n    i = 0\n    i = 0\n    return i\n", 2),
    ("def f(s):\n" + HERE + "    i += 1\n    i += 1\n", 1),
    ("def f(s):\n" + HERE + "    i = 0\n    s()\n    i = 0\n", 0),
    ("def f(it):\n" + HERE + "    next(it)\n    next(it)\n", 0),  # a call: skipping lines
    ("def f(xs):\n" + HERE + "    xs\n    xs.append\n    xs.append(1)\n", 2),  # alone
    # an expression that calls nothing does nothing; a call, an await or a docstring may
    ("def f(s):\n" + HERE + "    s == 1\n    1 / 0\n    s[0]\n    g(s) + 1\n    ...\n", 3),
    ("async def f(s):\n" + HERE + "    await s\n    (yield)\n    (n := 1)\n", 0),
    ("x = x\n" + HERE, 0),  # module level: a re-export
    ("def f(x):\n" + HERE + "    x = x\n    return (\n", 0),  # Python cannot parse it
])
def test_counts_statements_that_do_nothing(source, count):
    assert idle_statements(source, source.index(HERE)) == count


MEAN = "def mean(values):\n    total = 0\n    for v in values:\n        total += v\n" + HERE


@pytest.mark.parametrize(("source", "count"), [
    (MEAN + "    return 0\n", 1),  # the sum dropped
    (MEAN + "    return total / len(values)\n", 0),
    (MEAN + "    print(total)\n", 0),
    (MEAN + "    total\n", 1),  # read alone, and dropped again
    ("def f(xs):\n    out = []\n    for x in xs:\n        out.append(x)\n" + HERE
     + "    return xs\n", 1),  # a list built by method calls, then dropped
    ("def f(xs):\n    seen = {}\n    for x in xs:\n        seen[x] = 1\n" + HERE
     + "    return len(xs)\n", 1),  # a dict built by item assignment
    ("def f(xs):\n    n = 0\n    for x in xs:\n        n = n + x\n" + HERE + "    return x\n",
     1),  # its own reads only update it
    ("def f(xs):\n    n = 0\n" + HERE + "    return [n for x in xs]\n", 0),  # a comprehension
    ("def f(xs):\n    n = 0\n    def g():\n        return n\n" + HERE + "    return g\n", 0),
    ("def f(xs):\n    n, m = 0, 1\n" + HERE + "    return xs\n", 0),  # unpacking: not counted
    ("def f(xs):\n    r = g(xs)\n" + HERE + "    r.close()\n", 0),  # a call's result
    ("def f(xs):\n    for i in xs:\n        pass\n    i = 0\n" + HERE + "    return xs\n", 0),
    ("def f(total):\n    total += 1\n" + HERE + "    return 0\n", 0),  # a parameter
    ("def f():\n    global n\n    n = 0\n" + HERE + "    return 1\n", 0),
    ("def f():\n    _n = 0\n    x = 1\n" + HERE + "    return locals()\n", 0),
    ("def f():\n    _unused = []\n" + HERE + "    return 1\n", 0),
    ("def f():\n    seen = set()\n    acc = -1\n" + HERE + "    del seen\n", 1),  # del reads it
    ("total = 0\n" + HERE, 0),  # module level: another module may read it
    ("def f():\n    total = 0\n" + HERE + "    return (\n", 0),  # Python cannot parse it
])
def test_counts_values_built_and_dropped(source, count):
    assert dropped_values(source, source.index(HERE)) == count
