"""HumanEval-Infilling tasks: loading the four splits and judging a completion in the sandbox.

The data (MIT, OpenAI; LICENSE and README beside it) lives outside the package, in
``../shared/benchmarks/humaneval-infilling`` relative to the repository; it is loaded by the
files' real names (the upstream harness maps the random-span splits to names that don't exist).
"""

from __future__ import annotations

import gzip
import json
import random
from dataclasses import dataclass
from pathlib import Path

from .sandbox import Outcome, SandboxConfig, run_program

SPLITS = {
    "single-line": "HumanEval-SingleLineInfilling.jsonl.gz",
    "multi-line": "HumanEval-MultiLineInfilling.jsonl.gz",
    "random-span": "HumanEval-RandomSpanInfilling.jsonl.gz",
    "random-span-light": "HumanEval-RandomSpanInfillingLight.jsonl.gz",
}

# bench/ sits at the repository root, and the shared folder beside the repository.
DEFAULT_DATA = Path(__file__).resolve().parents[2] / "shared" / "benchmarks" / \
    "humaneval-infilling"


@dataclass(frozen=True)
class Task:
    task_id: str
    prompt: str  # the code before the hole
    suffix: str  # the code after it
    canonical_solution: str  # the removed middle
    test: str  # defines check(candidate)
    entry_point: str

    @property
    def problem(self) -> int:
        """The HumanEval problem number: ``SingleLineInfilling/HumanEval/7/L3`` → 7."""
        return int(self.task_id.split("/")[2])

    def program(self, completion: str) -> str:
        """Build the check program exactly as the HumanEval-Infilling harness does."""
        return (self.prompt + completion + self.suffix + "\n" + self.test + "\n"
                + f"check({self.entry_point})")

    def judge(self, completion: str, cfg: SandboxConfig | None = None) -> Outcome:
        return run_program(self.program(completion), cfg)


def load_tasks(split: str, data_dir: Path | None = None) -> list[Task]:
    """All tasks of ``split`` in file order; ValueError with a one-line reason on bad input."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r} (choose from {', '.join(SPLITS)})")
    data_dir = Path(data_dir) if data_dir is not None else DEFAULT_DATA
    path = data_dir / SPLITS[split]
    if not path.is_file():
        raise ValueError(f"{path}: not found (pass --data DIR with the HumanEval-Infilling "
                         "files)")
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            records = [json.loads(line) for line in f if line.strip()]
        return [Task(r["task_id"], r["prompt"], r["suffix"], r["canonical_solution"],
                     r["test"], r["entry_point"]) for r in records]
    except (OSError, EOFError, json.JSONDecodeError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not HumanEval-Infilling data ({type(e).__name__}: {e})") \
            from None


def subset(tasks: list[Task], limit: int | None) -> list[Task]:
    """Pick a deterministic sample of ``limit`` tasks, in file order.

    A seeded uniform sample over tasks, so its pass@1 estimates the whole split's: taking
    one task per problem instead over-weighs problems with short bodies, and in file order
    it would be each problem's first span — a "multi-line" subset of one-line spans.
    """
    if limit is None or limit >= len(tasks):
        return list(tasks)
    if limit < 1:
        raise ValueError("--limit must be at least 1")
    keep = set(random.Random(0).sample(range(len(tasks)), limit))
    return [t for i, t in enumerate(tasks) if i in keep]
