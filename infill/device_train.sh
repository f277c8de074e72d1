#!/usr/bin/env bash
# Train the bundled models further on a lent GPU machine, inside one device call.
#
#   infill/device_train.sh pack            # here: corpus → .gpu/ (ignored; carried to the GPU)
#   infill/device_train.sh run MINUTES     # there: diffusion and its matched AR baseline
#
# "run" continues infill/bundled (diffusion) and infill/bundled-ar (AR-FIM) side by side on
# the one GPU for the same wall-clock, with the same batch, lr schedule and data, so the
# baseline stays matched; each exports a bundle tarred into $OUT with its log. A process that
# dies in the first minute stops the call at once, so a broken run costs seconds, not minutes.
set -uo pipefail
cd "$(dirname "$0")/.."
case "${1:-}" in
pack)
    src="${REMASK_HOME:-$HOME/.cache/remask}/corpus"
    grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
    mkdir -p .gpu/corpus
    for f in heldout.txt heldout.idx.npy train.idx.npy manifest.json tokenizer.json; do
        cp "$src/$f" .gpu/corpus/
    done
    xz -T0 -6 -c "$src/train.txt" > .gpu/corpus/train.txt.xz
    git rev-parse HEAD > .gpu/commit
    du -sh .gpu
    ;;
run)
    minutes="${2:?minutes}"
    out="${OUT:-/tmp/out}"
    mkdir -p "$out" /tmp/ns/remask /tmp/home/corpus
    for pkg in infill cli; do ln -sfn "$PWD/$pkg" "/tmp/ns/remask/$pkg"; done
    export PYTHONPATH=/tmp/ns PYTHONUNBUFFERED=1 REMASK_HOME=/tmp/home COLUMNS=160
    cp .gpu/corpus/* /tmp/home/corpus/ && rm /tmp/home/corpus/train.txt.xz
    xz -dc .gpu/corpus/train.txt.xz > /tmp/home/corpus/train.txt || exit 1
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    common=(--device "${REMASK_DEVICE:-cuda}" --batch "${REMASK_BATCH:-256}" --lr 2e-3 --ema 0.998 --max-minutes "$minutes"
            --cooldown 0.4 --eval-every 250 --threads 1)
    python3 -m remask.cli train --name diffusion --objective diffusion --init infill/bundled \
        --workers 8 "${common[@]}" > "$out/diffusion.log" 2>&1 &
    pid_d=$!
    python3 -m remask.cli train --name ar --objective ar --init infill/bundled-ar \
        --uncond-rate 0.1 --workers 6 "${common[@]}" > "$out/ar.log" 2>&1 &
    pid_a=$!
    for _ in $(seq 30); do  # a run that fails in its first minute stops the call
        sleep 2
        for pid in $pid_d $pid_a; do
            if ! kill -0 "$pid" 2>/dev/null && ! wait "$pid"; then
                kill $pid_d $pid_a 2>/dev/null
                tail -20 "$out/diffusion.log" "$out/ar.log"
                exit 1
            fi
        done
    done
    wait $pid_d; wait $pid_a
    commit="$(cat .gpu/commit 2>/dev/null)"
    for name in diffusion ar; do
        python3 -m remask.cli train --name "$name" --export "/tmp/export/$name" &&
            python3 - "$name" "$commit" <<'PY'
import json, sys
from pathlib import Path
p = Path("/tmp/export") / sys.argv[1] / "training.json"
info = json.loads(p.read_text())
info["commit"] = sys.argv[2]
p.write_text(json.dumps(info, indent=1) + "\n")
PY
        tar -C /tmp/export -cf "$out/$name.tar" "$name"
    done
    grep -h "held-out" "$out/diffusion.log" "$out/ar.log" | tail -4
    ls -la "$out"
    ;;
*)
    echo "usage: $0 pack | run MINUTES" >&2
    exit 2
    ;;
esac
