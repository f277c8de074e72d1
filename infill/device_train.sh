#!/usr/bin/env bash
# Train the bundled models further on a lent GPU machine, across one or two device calls.
#
#   infill/device_train.sh pack [CORPUS]         # here: corpus → .gpu/ (ignored; carried there)
#   infill/device_train.sh start MINUTES [STAY]  # there: launch diffusion + matched AR baseline
#   infill/device_train.sh finish [DEADLINE]     # there: wait for both, export them into $OUT
#
# "start" continues infill/bundled (diffusion) and infill/bundled-ar (AR-FIM) side by side on
# the one GPU for the same wall-clock, with the same batch, lr schedule and data, so the
# baseline stays matched. The trainers run in their own session, so they outlive the call
# that started them: one schedule can span two calls (a call is capped at 10 minutes) as
# long as the second comes while the machine is still warm. "start" stays STAY seconds
# (default: until both end, then it finishes too) and, if they still run, exports their last
# checkpoints as a fallback. "finish" waits at most DEADLINE seconds, then stops them (a
# trainer checkpoints on SIGTERM) and exports. A trainer that dies in its first minute stops
# the call at once, so a broken run costs seconds, not minutes.
#
# REMASK_GROW="--n-layer 8" grows both bundles to that shape first (infill/grow.py: the
# grown models compute what the bundles did), so a GPU session can spend its minutes on
# capacity the 5.7M-parameter bundle no longer has; both grow alike, so the AR baseline
# stays matched in size. 8 × 256 ships at 14.5 MB (fp16); 6 × 384 would be 24 MB.
# REMASK_DIFFUSION="--canvases 4" passes flags to the diffusion trainer alone (the AR
# objective has no canvases; both still get the same minutes).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-/tmp/out}"
corpus="${2:-${REMASK_HOME:-$HOME/.cache/remask}/corpus}"  # pack's source, read before the export
export PYTHONPATH=/tmp/ns PYTHONUNBUFFERED=1 REMASK_HOME=/tmp/home COLUMNS=160
names=(diffusion ar)

running() { pgrep -f "remask.cli train --name $1 " >/dev/null; }

export_all() {  # $1: suffix for the tarballs
    local commit; commit="$(cat .gpu/commit 2>/dev/null)"
    mkdir -p "$out"
    for name in "${names[@]}"; do
        rm -rf "/tmp/export/$name"
        local ok=""
        for _ in 1 2 3; do  # a checkpoint being swapped in can make one read fail
            python3 -m remask.cli train --name "$name" --export "/tmp/export/$name" && ok=1 && break
            sleep 5
        done
        [ -n "$ok" ] || continue
        python3 - "$name" "$commit" <<'PY'
import json, sys
from pathlib import Path
p = Path("/tmp/export") / sys.argv[1] / "training.json"
info = json.loads(p.read_text())
info["commit"] = sys.argv[2]
p.write_text(json.dumps(info, indent=1) + "\n")
PY
        tar -C /tmp/export -cf "$out/$name$1.tar" "$name"
        cp "/tmp/logs/$name.log" "$out/$name$1.log"
    done
    grep -h "held-out" /tmp/logs/diffusion.log /tmp/logs/ar.log | tail -4
    ls -la "$out"
}

case "${1:-}" in
pack)
    src="$corpus"
    grep -qx '/.gpu/' .git/info/exclude 2>/dev/null || echo '/.gpu/' >> .git/info/exclude
    mkdir -p .gpu/corpus
    for f in heldout.txt heldout.idx.npy train.idx.npy manifest.json tokenizer.json; do
        cp "$src/$f" .gpu/corpus/
    done
    xz -T0 -6 -c "$src/train.txt" > .gpu/corpus/train.txt.xz
    git rev-parse HEAD > .gpu/commit
    du -sh .gpu
    ;;
start)
    minutes="${2:?minutes}"
    stay="${3:-0}"
    t0=$SECONDS
    mkdir -p /tmp/ns/remask /tmp/home/corpus /tmp/logs
    for pkg in infill cli; do ln -sfn "$PWD/$pkg" "/tmp/ns/remask/$pkg"; done
    cp .gpu/corpus/* /tmp/home/corpus/ && rm /tmp/home/corpus/train.txt.xz
    xz -dc .gpu/corpus/train.txt.xz > /tmp/home/corpus/train.txt || exit 1
    nvidia-smi --query-gpu=name,memory.total --format=csv,noheader
    common=(--device "${REMASK_DEVICE:-cuda}" --batch "${REMASK_BATCH:-256}"
            --lr "${REMASK_LR:-2e-3}" --ema 0.998 --max-minutes "$minutes"
            --cooldown "${REMASK_COOLDOWN:-0.4}" --eval-every 250 --threads 1)
    read -ra grow <<< "${REMASK_GROW:-}"
    common+=("${grow[@]}")
    read -ra own <<< "${REMASK_DIFFUSION:-}"
    setsid nohup python3 -m remask.cli train --name diffusion --objective diffusion \
        --init infill/bundled --workers 8 "${common[@]}" "${own[@]}" \
        > /tmp/logs/diffusion.log 2>&1 < /dev/null &
    setsid nohup python3 -m remask.cli train --name ar --objective ar \
        --init infill/bundled-ar --uncond-rate 0.1 --workers 6 "${common[@]}" \
        > /tmp/logs/ar.log 2>&1 < /dev/null &
    for _ in $(seq 30); do  # a trainer that fails in its first minute stops the call
        sleep 2
        for name in "${names[@]}"; do
            if ! running "$name"; then
                pkill -f "remask.cli train --name" ; tail -n 20 /tmp/logs/*.log
                exit 1
            fi
        done
    done
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    if [ "$stay" = 0 ]; then exec "$0" finish; fi
    while [ $((SECONDS - t0)) -lt "$stay" ] && { running diffusion || running ar; }; do
        sleep 5
    done
    nvidia-smi --query-gpu=utilization.gpu,memory.used --format=csv,noheader
    tail -c 400 /tmp/logs/diffusion.log; echo
    if running diffusion || running ar; then export_all -interim; else export_all ""; fi
    ;;
finish)
    deadline="${2:-100000}"
    t0=$SECONDS
    while { running diffusion || running ar; } && [ $((SECONDS - t0)) -lt "$deadline" ]; do
        sleep 2
    done
    pkill -TERM -f "remask.cli train --name"  # past the deadline: checkpoint and stop
    while running diffusion || running ar; do sleep 1; done
    export_all ""
    ;;
*)
    echo "usage: $0 pack | start MINUTES [STAY] | finish [DEADLINE]" >&2
    exit 2
    ;;
esac
