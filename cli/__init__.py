"""The ``remask`` command line: thin commands over the library, one clear line on bad input."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from .common import own_errors

# Each command is a module of this package with ``register(subparsers)``; the module's
# ``run(args) -> int`` is set as the parser's ``func``.
COMMANDS = ("fill", "repair", "propagate", "moved", "train", "bench", "lsp", "tui", "hook")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``only``, just that command's module is imported (fast start)."""
    parser = argparse.ArgumentParser(prog="remask", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMANDS:
        if only is not None and name != only:
            continue
        try:
            module = importlib.import_module(f"{__name__}.{name}")
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            continue  # a front end not built yet
        module.register(sub)
    own_errors(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run one command; its exit status.

    Ctrl-C is one line and 130 wherever it lands (a command's imports take seconds); a
    reader that stops reading (``| head``) ends the command quietly with 141, as the shell
    reports a process SIGPIPE ends.
    """
    argv = sys.argv[1:] if argv is None else argv
    command = argv[0] if argv and argv[0] in COMMANDS else None
    try:
        parser = build_parser(command)
        args, unknown = parser.parse_known_args(argv)
        if unknown:  # said by the command's parser, whose usage line is the one that helps
            args.command_parser.error(f"unrecognized arguments: {' '.join(unknown)}")
        return args.func(args)
    except KeyboardInterrupt:
        print("remask: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # what is left for stdout goes nowhere, not into a second error at exit
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
