"""The training corpus is built only from the allow-list, with licences checked."""

from pathlib import Path

from remask.infill.corpus import (
    _licence_family,
    _skip_reason,
    find_sources,
    is_heldout,
    iter_files,
    load_allowlist,
)


def test_allowlist_never_names_a_benchmark_project():
    allow = load_allowlist()
    modules = {p["module"] for p in allow["package"]}
    assert not modules & set(allow["deny"])
    assert {"flask", "click", "werkzeug", "requests", "attrs", "black", "scrapy"} <= set(
        allow["deny"])


def test_sources_have_matching_licences_and_exist():
    sources, _ = find_sources(load_allowlist())
    assert sources[0].name == "stdlib"
    for src in sources:
        assert src.root.is_dir()
        assert _licence_family(src.licence) & _licence_family(src.metadata_licence), src.name


def test_denied_and_unlicensed_entries_are_skipped():
    allow = {"stdlib": {"licence": "PSF-2.0"}, "deny": ["click"],
             "package": [{"dist": "click", "module": "click", "licence": "BSD-3-Clause"},
                         {"dist": "pytest", "module": "_pytest", "licence": "GPL-3.0"},
                         {"dist": "no-such-dist", "module": "no_such_module", "licence": "MIT"}]}
    sources, notes = find_sources(allow)
    assert [s.name for s in sources] == ["stdlib"]
    assert any("denied" in n for n in notes)
    assert any("does not match GPL" in n for n in notes)
    assert any("not installed" in n for n in notes)


def test_vendored_folders_are_skipped():
    sources, _ = find_sources(load_allowlist())
    pip = next(s for s in sources if s.name == "pip")
    files = list(iter_files(pip, load_allowlist()["skip_dirs"]))
    assert files and not any("/_vendor/" in f.as_posix() for f in files)


def test_heldout_split_is_a_stable_one_percent():
    paths = [f"stdlib/module_{i}.py" for i in range(20000)]
    held = [p for p in paths if is_heldout(p)]
    assert 100 < len(held) < 300
    assert held == [p for p in paths if is_heldout(p)]


def test_files_that_teach_nothing_are_skipped():
    p = Path("x.py")
    assert _skip_reason(p, b"x = '\xff'\n") == "not utf-8"
    assert _skip_reason(p, b"def f(:\n") == "does not parse"
    assert _skip_reason(p, b"x = '" + b"a" * 500 + b"'\n") == "long lines"
    assert _skip_reason(p, b"  \n") == "empty"
    assert _skip_reason(p, b"def f(x):\n    return x\n") is None
