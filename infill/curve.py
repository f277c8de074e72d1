"""Draw the training curve (tokens seen → held-out middle cross-entropy) of one or more bundles.

The curve lives in each bundle's ``training.json`` (appended at every checkpoint and carried
across resumes and the AR → diffusion switch), so the picture can always be redrawn from the
repository alone.
"""

from __future__ import annotations

import json
from pathlib import Path


def load_curve(bundle: Path) -> list[dict]:
    info = json.loads((bundle / "training.json").read_text())
    return info.get("curve", [])


def plot(bundles: list[Path], out: Path) -> None:
    """Write a PNG with one line per objective found in the bundles' curves."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    seen: dict[str, list[tuple[float, float]]] = {}
    for bundle in bundles:
        for point in load_curve(bundle):
            seen.setdefault(point["objective"], []).append(
                (point["tokens"] / 1e6, point["middle_ce"]))
    labels = {"ar": "AR-FIM (exact NLL of the middle)",
              "diffusion": "diffusion (1/t-weighted bound on the middle)"}
    for objective, points in sorted(seen.items()):
        xs, ys = zip(*sorted(set(points)), strict=True)
        ax.plot(xs, ys, marker=".", label=labels.get(objective, objective))
    ax.set_xlabel("training tokens seen (millions, cumulative)")
    ax.set_ylabel("held-out middle cross-entropy (nats/token)")
    ax.set_title("remask bundled model: training curve")
    ax.grid(alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)
