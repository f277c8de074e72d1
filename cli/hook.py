"""``remask hook run|install|uninstall``: the git pre-commit hook.

``run`` exits 1 when it rewrote something (so the commit stops for a review), 0 when there was
nothing to do, 2 when the repository or its ``[tool.remask]`` settings are unusable or a due
rewrite could not be written. With ``--dry-run`` it prints the diffs, writes nothing, and exits
1 when it would have rewritten something.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from remask.hook.config import ConfigError
from remask.hook.install import install, uninstall
from remask.hook.run import HookRun, run_hook, under_pre_commit
from remask.hook.staged import GitError, open_repo, quote_path, temporary_index

from .common import fail, own_errors, unified_diff


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("hook", help="the git pre-commit hook")
    actions = p.add_subparsers(dest="hook_command", required=True, parser_class=_FileNamesParser)
    r = actions.add_parser("run", help="follow up the staged edits (what the hook runs)")
    r.add_argument("files", nargs="*", help="files to rewrite (default: every staged .py file)")
    r.add_argument("--dry-run", action="store_true", help="print the diffs, write nothing")
    i = actions.add_parser("install", help="write .git/hooks/pre-commit")
    i.add_argument("--force", action="store_true",
                   help="move a pre-commit hook remask did not write aside")
    actions.add_parser("uninstall", help="remove remask's pre-commit hook")
    own_errors(actions)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    try:
        if args.hook_command == "run":
            return _run(args)
        repo = open_repo(Path.cwd())
        print(install(repo, args.force) if args.hook_command == "install" else uninstall(repo))
        return 0
    except (GitError, ConfigError) as e:
        return fail("hook", str(e))
    except OSError as e:  # the library turns those it expects into GitError; this is the rest
        return fail("hook", f"{e.filename or 'remask'}: {e.strerror}")


def _run(args: argparse.Namespace) -> int:
    pre_commit = under_pre_commit()
    with Console(stderr=True).status("remask hook") as status:
        result = run_hook(Path.cwd(), args.files, dry_run=args.dry_run, index=not pre_commit,
                          on_file=lambda path: status.update(f"remask hook: {path}"))
    return _report(result, args.dry_run, pre_commit)


def _report(result: HookRun, dry_run: bool, pre_commit: bool) -> int:
    """Print one line per file that was rewritten or skipped; return the exit status."""
    if result.stood_aside:
        print(f"remask hook: {result.stood_aside}")
        return 0
    for o in result.outcomes:
        if dry_run and o.new is not None:
            sys.stdout.write(unified_diff(o.old, o.new, o.path))
        if o.message != "nothing to do":
            print(f"remask hook: {quote_path(o.path)}: {o.message}")
    for warning in result.warnings:
        print(f"remask hook: warning: {warning}")
    if any(o.failed for o in result.outcomes):
        return 2
    n = sum(o.rewritten for o in result.outcomes)
    if n and not dry_run:
        staged = not pre_commit and not temporary_index()
        review = "`git diff --cached`" if staged else "`git diff`, git add"
        print(f"remask hook: rewrote {n} file{'s' * (n != 1)}; review with {review} "
              "and commit again")
    return 1 if n else 0


class _FileNamesParser(argparse.ArgumentParser):
    """Takes a file name that starts with a dash (``-old.py``) as a file, not an unknown option.

    pre-commit passes the staged names after the hook's own arguments, with no ``--`` before
    them; argparse would read ``-old.py`` as an option and fail the whole run. A leftover that
    names an existing file is one of the files, and so is one without a leading dash (a name
    argparse set aside because it came after such a file); a mistyped option stays an error.
    """

    def parse_known_args(self, args: Sequence[str] | None = None,
                         namespace: argparse.Namespace | None = None,
                         ) -> tuple[argparse.Namespace, list[str]]:
        """Parse as argparse does, then move leftovers that are file names into ``files``."""
        namespace, extras = super().parse_known_args(args, namespace)
        if not isinstance(getattr(namespace, "files", None), list):
            return namespace, extras
        names = [a for a in extras if os.path.lexists(a) or not a.startswith("-")]
        namespace.files += names
        return namespace, [a for a in extras if a not in names]
