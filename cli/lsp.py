"""``remask lsp``: the language server over stdio (what editors launch) or ``--tcp HOST:PORT``."""

from __future__ import annotations

import argparse
from pathlib import Path

from remask.bench import checks

from .common import fail


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("lsp", help="run the language server (stdio, or --tcp HOST:PORT)")
    p.add_argument("--tcp", metavar="HOST:PORT", help="listen on a TCP port instead of stdio")
    p.add_argument("--model", type=Path, default=None,
                   help="model directory (default: the bundled model; the 'model' setting "
                        "overrides it)")
    p.add_argument("--threads", type=int, default=1,
                   help="torch threads (default 1: on a shared 2-core machine a second thread "
                        "contends with the editor and makes each fill several times slower)")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    address = None
    if args.tcp is not None:
        host, _, port = args.tcp.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            return fail("lsp", f"--tcp wants HOST:PORT, got '{args.tcp}'")
        address = host, int(port)
    if args.model is not None and not args.model.is_dir():
        return fail("lsp", f"--model {args.model}: no such model directory")
    try:
        checks.threads(args.threads)
    except ValueError as e:
        return fail("lsp", str(e))
    import torch  # only once the arguments are good: importing it takes seconds

    from remask.lsp.server import server

    torch.set_num_threads(args.threads)
    server.model.default = args.model
    if address is not None:
        server.start_tcp(*address)
    else:
        server.start_io()
    return server.exit_code  # 1 after an exit without shutdown, as the LSP asks
