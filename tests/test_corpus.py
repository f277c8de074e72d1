"""The training corpus is built only from the allow-list, with licences checked."""

from pathlib import Path

from remask.infill.corpus import (
    MIN_FUNCTION_BYTES,
    _licence_family,
    _skip_reason,
    find_sources,
    function_key,
    function_keys,
    is_heldout,
    iter_files,
    load_allowlist,
    seen_share,
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


def test_a_renamed_copy_of_a_function_has_the_functions_key():
    body = "    total = 0\n" + "".join(f"    total += {name}.size * {i}  # part {i}\n"
                                       for i, name in enumerate(["layer"] * 12))
    bert = f"def bert_layer(layer):\n{body}    return total\n"
    roberta = bert.replace("bert_layer", "roberta_layer").replace("# part", "# piece")
    other = bert.replace("total += ", "total -= ")
    assert len(bert) >= MIN_FUNCTION_BYTES
    assert function_key(bert) == function_key(roberta) != function_key(other)


def test_a_file_made_mostly_of_copied_functions_is_seen_as_one():
    big = "def {name}(x):\n" + "".join(f"    x = x * {i} + {i}\n" for i in range(20)) + \
        "    return x\n"
    original = big.format(name="bert") + big.format(name="bert_out").replace("*", "-")
    copy = big.format(name="roberta") + "def tiny(x):\n    return x\n"
    seen: set[bytes] = set(function_keys(original))
    assert seen_share(function_keys(copy), seen) == 1.0  # the short function is not counted
    fresh = big.format(name="gpt").replace("+", "//")
    assert seen_share(function_keys(fresh), seen) == 0.0
    methods = "class Roberta:\n" + "".join("    " + line + "\n"
                                           for line in big.format(name="f").splitlines())
    assert seen_share(function_keys(methods), seen) == 1.0  # methods are compared too


def test_python_software_foundation_counts_as_psf():
    assert _licence_family("License :: OSI Approved :: Python Software Foundation License") == {
        "PSF"}
