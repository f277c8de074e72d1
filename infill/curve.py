"""Draw the training curve (tokens seen → held-out middle cross-entropy) of one or more bundles.

The curve lives in each bundle's ``training.json`` (appended at every checkpoint and carried
across resumes and the AR → diffusion switch), so the picture can always be redrawn from the
repository alone. Benchmark scores are too slow to take at every checkpoint; the ones taken
per export (``remask bench quality --record``) go in a history file drawn beside the loss.
"""

from __future__ import annotations

import json
from pathlib import Path


def load_curve(bundle: Path) -> list[dict]:
    info = json.loads((bundle / "training.json").read_text())
    return info.get("curve", [])


def load_heldout_changes(bundle: Path) -> list[dict]:
    """Points where the held-out set changed (a wider corpus): the curve is not one line there."""
    info = json.loads((bundle / "training.json").read_text())
    return info.get("heldout_changes", [])


def load_history(history: Path | None) -> list[dict]:
    """The recorded benchmark rows that say how many tokens their model had seen."""
    if history is None or not history.is_file():
        return []
    return [e for e in json.loads(history.read_text()) if e.get("tokens")]


def plot(bundles: list[Path], out: Path, history: Path | None = None) -> None:
    """Write a PNG with one line per objective found in the bundles' curves.

    With a quality history, a second panel shows single-line pass@1 and edit similarity.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    scores = load_history(history)
    fig, axes = plt.subplots(1, 2 if scores else 1, figsize=(12 if scores else 7, 4),
                             dpi=110, sharex=True, squeeze=False)
    ax = axes[0][0]
    seen: dict[str, dict[int, list[tuple[float, float]]]] = {}  # objective → segment → points
    for bundle in bundles:
        cuts = [c["tokens"] for c in load_heldout_changes(bundle)]
        for point in load_curve(bundle):
            segment = sum(point["tokens"] > cut for cut in cuts)  # one line per held-out set
            seen.setdefault(point["objective"], {}).setdefault(segment, []).append(
                (point["tokens"] / 1e6, point["middle_ce"]))
    labels = {"ar": "AR-FIM (exact NLL of the middle)",
              "diffusion": "diffusion (1/t-weighted bound on the middle)"}
    for objective, segments in sorted(seen.items()):
        color = None
        for _, points in sorted(segments.items()):
            xs, ys = zip(*sorted(set(points)), strict=True)
            (line,) = ax.plot(xs, ys, marker=".", color=color,
                              label=None if color else labels.get(objective, objective))
            color = line.get_color()
    changes = {c["tokens"] for bundle in bundles for c in load_heldout_changes(bundle)}
    for i, tokens in enumerate(sorted(changes)):
        ax.axvline(tokens / 1e6, color="grey", linestyle=":",
                   label="corpus widened: a new held-out set" if i == 0 else None)
    ax.set_xlabel("training tokens seen (millions, cumulative)")
    ax.set_ylabel("held-out middle cross-entropy (nats/token)")
    ax.set_title("remask bundled model: training curve")
    ax.grid(alpha=0.3)
    ax.legend()
    if scores:
        _plot_scores(axes[0][1], scores)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


def _plot_scores(ax, scores: list[dict]) -> None:
    for diffusion, style in ((True, "-"), (False, "--")):
        rows = sorted((e for e in scores if e.get("diffusion") == diffusion),
                      key=lambda e: e["tokens"])
        if not rows:
            continue
        kind = "diffusion" if diffusion else "AR"
        xs = [e["tokens"] / 1e6 for e in rows]
        for key, label in (("pass@1 single-line", "single-line pass@1"),
                           ("single_line_edit_sim", "single-line edit similarity")):
            ax.plot(xs, [e[key] for e in rows], style, marker="o", label=f"{kind}: {label}")
    ax.set_xlabel("training tokens seen (millions, cumulative)")
    ax.set_ylabel("HumanEval-Infilling, no oracle length")
    ax.set_title("recorded per export (remask bench quality --record)")
    ax.set_ylim(0, 1)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
