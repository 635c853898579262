#!/usr/bin/env bash
# OTB on verl with paperworks' rewards (see README.md). Needs CUDA GPUs, verl and paperworks installed.
# Run from the paperworks repository root:  bash examples/verl_otb/run.sh [key=value overrides for verl]
set -euo pipefail
DATA="${DATA:-$HOME/data/paperworks_otb}"
MODEL="${MODEL:-Qwen/Qwen2.5-1.5B-Instruct}"
GPUS="${GPUS:-1}"
[ -f "$DATA/train.parquet" ] || python examples/verl_otb/prepare_data.py --out "$DATA"
python -m verl.trainer.main_ppo --config-path="$PWD/examples/verl_otb" --config-name=otb_grpo \
    data.train_files="$DATA/train.parquet" data.val_files="$DATA/test.parquet" \
    actor_rollout_ref.model.path="$MODEL" trainer.n_gpus_per_node="$GPUS" "$@"
