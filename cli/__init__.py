"""The ``remask`` command line: thin commands over the library, one clear line on bad input."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each command is a module of this package with ``register(subparsers)``; the module's
# ``run(args) -> int`` is set as the parser's ``func``.
COMMANDS = ("fill", "repair", "propagate", "train", "bench", "lsp", "tui", "hook")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="remask", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            continue  # a front end not built yet
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("remask: interrupted", file=sys.stderr)
        return 130
