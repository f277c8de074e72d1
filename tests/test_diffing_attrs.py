"""``unknown_attributes``: what a method reads off ``self`` that its class never gets."""

import pytest

from remask.diffing.attrs import unknown_attributes
from remask.diffing.checks import faults

WRAPPER = '''import os


class Base:
    kind = "b"

    def __init__(self, n):
        self.n = n


class Wrapper(Base):
    """Wraps."""
    limit: int = 3

    def __init__(self, n, width):
        super().__init__(n)
        self.width = width
        self._cache = {}

    @property
    def size(self):
        return self.width * self.n

    @staticmethod
    def helper(x):
        return x

    def run(self, x):
        y = self.size + self.limit + self.kind + self.__class__.__name__
        return FILL

    def again(self):
        return self.run(1)
'''


@pytest.mark.parametrize(("fill", "count"), [
    ("self.width", 0),  # assigned in __init__
    ("self.helper(x) + self.n", 0),  # a static method; a base's attribute
    ("self._cache.get(x)", 0),
    ("self.run(x - 1)", 0),  # the method itself
    ("os.sep", 0),  # not read off self
    ("self.widht", 1),  # a typo
    ("self._.__x(self.nope)", 2),  # made up, as the model writes them
    ("self.nope + self.nope", 1),  # one per name
])
def test_reads_nothing_gives_the_instance_are_counted(fill, count):
    text = WRAPPER.replace("FILL", fill)
    assert unknown_attributes(text, text.index(fill)) == count


def test_the_method_may_give_itself_what_it_reads():
    text = WRAPPER.replace("return FILL", "self.fresh = x\n        return self.fresh")
    assert unknown_attributes(text, text.index("return self.fresh")) == 0


@pytest.mark.parametrize("text", [
    "def f(self):\n    return self.zz\n",  # a function, not a method
    "class A(Unknown):\n    def f(self):\n        return self.zz\n",  # a base from elsewhere
    "class A(mod.Base):\n    def f(self):\n        return self.zz\n",
    "class A(metaclass=M):\n    def f(self):\n        return self.zz\n",
    "class A:\n    def g(self):\n        setattr(self, 'zz', 1)\n    def f(self):\n"
    "        return self.zz\n",  # attributes given by name
    "class A:\n    def g(self, d):\n        self.__dict__.update(d)\n    def f(self):\n"
    "        return self.zz\n",
    "class A:\n    def __getattr__(self, name):\n        return 1\n    def f(self):\n"
    "        return self.zz\n",
    "class LoggingMixin:\n    def f(self):\n        return self.zz\n",  # its host gives it
    "class A:\n    def f(obj):\n        return obj.zz\n",  # no self: a decorator in a body
    "class A:\n    def f(self):\n        return self.zz\n    def g(self:\n",  # no parse
])
def test_a_class_not_known_whole_counts_nothing(text):
    assert unknown_attributes(text, text.index("return")) == 0


def test_what_a_subclass_in_the_file_sets_a_base_may_read():
    # unittest's context managers: the base reads ``self._base_type``, each subclass sets it
    text = ("class Base:\n    def handle(self):\n        return self._base_type\n\n\n"
            "class Raises(Base):\n    _base_type = BaseException\n")
    assert unknown_attributes(text, text.index("return")) == 0
    alone = text[:text.index("\n\n\nclass Raises")] + "\n"
    assert unknown_attributes(alone, alone.index("return")) == 1


def test_nested_functions_classmethods_and_decorators():
    text = ("class A:\n    y = 1\n\n    @classmethod\n    def make(cls):\n"
            "        def inner():\n            return cls.zz + cls.y\n        return inner\n")
    assert unknown_attributes(text, text.index("cls.zz")) == 1
    crlf_tabs = text.replace("\n", "\r\n").replace("    ", "\t")
    assert unknown_attributes(crlf_tabs, crlf_tabs.index("cls.zz")) == 1


def test_faults_rank_a_made_up_attribute_below_a_real_one():
    good = WRAPPER.replace("FILL", "self.width")
    bad = WRAPPER.replace("FILL", "self.widths")
    at = WRAPPER.index("FILL")
    assert faults(bad, "w.py", at) == faults(good, "w.py", at) + 1
