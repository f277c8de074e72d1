"""The ``remask`` command line: thin commands over the library, one clear line on bad input."""

from __future__ import annotations

import argparse
import sys

from . import bench, fill, train


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="remask", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    for module in (fill, train, bench):
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
