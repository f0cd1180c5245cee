#!/usr/bin/env bash
# Regenerates the bundled instance sets (instances/demo, instances/standard,
# instances/scale, instances/multiport, instances/cluster, instances/reshard) with `tickopt gen`. Deterministic: running it again gives
# byte-identical files (tests/gen_sets.rs checks this).
#
# Usage: scripts/make_instances.sh [ROOT]     (default ROOT: instances)
# Env:   TICKOPT=path/to/tickopt               (default: target/release/tickopt, built if missing)
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=${1:-instances}
TICKOPT=${TICKOPT:-target/release/tickopt}
if [[ ! -x "$TICKOPT" ]]; then
  cargo build --release --quiet
fi

SET=""
set_begin() {
  SET="$ROOT/$1"
  rm -rf "$SET"
  mkdir -p "$SET"
}
# g FAMILY [ARGS...]: generate into the current set and add it to its manifest.
g() {
  "$TICKOPT" gen "$@" --out-dir "$SET" --manifest "$SET/manifest.json" 2>/dev/null
}

# --- demo: a handful of instances, seconds in all -------------------------
set_begin demo
g alltoall --n 8
g ring --n 8
g ring --n 9 --mult 1000000
g petersen
g clique --n 7
g pipeline --stages 4 --microbatches 8
g moe --n 8 --tokens 512 --seed 1

# --- standard: ~50 instances over every family, under a minute ------------
set_begin standard
g ring --n 8
g ring --n 16
g ring --n 33
g ring --n 9 --mult 1000
g bidir_ring --n 8
g bidir_ring --n 15
g ring_skip --n 16 --skip 4
g ring_skip --n 15 --skip 3
g alltoall --n 8
g alltoall --n 9
g alltoall --n 32
g alltoall --n 16 --mult 1000
g moe --n 8 --seed 1
g moe --n 8 --seed 2
g moe --n 32 --zipf 1.2 --seed 3
g moe --n 16 --experts-per-rank 4 --topk 4 --zipf 0.8 --seed 4
g moe --n 16 --tokens 256 --mult 100 --seed 5
g pipeline --stages 4 --microbatches 8
g pipeline --stages 8 --microbatches 32
g pipeline_interleaved --stages 4 --microbatches 8 --virtual-stages 2
g pipeline_interleaved --stages 5 --microbatches 16 --virtual-stages 3
g reshard --from 4 --to 6
g reshard --from 8 --to 3 --in-place
g reshard --from 16 --to 12
g tree --n 15 --arity 2 --direction broadcast
g tree --n 31 --arity 2 --direction allreduce
g tree --n 40 --arity 4 --direction reduce
g star --clients 16 --targets 1
g star --clients 64 --targets 4 --jitter 3 --seed 1
g random --n 20 --p 0.3 --seed 1
g random --n 20 --p 0.3 --seed 2
g random --n 20 --p 0.3 --seed 3
g random --n 60 --p 0.1 --max-chunks 8 --seed 4
g random --n 100 --p 0.05 --seed 5
g random --n 30 --p 0.2 --max-chunks 4 --mult 1000 --seed 6
g clique --n 5
g clique --n 7
g clique --n 8
g clique --n 9
g clique --n 11
g clique --n 7 --mult 100000
g petersen
g petersen --mult 2
g petersen --mult 1000
g blanusa
g blanusa --mult 3
g flower_snark --k 5
g flower_snark --k 7

# --- scale: hundreds to thousands of slots, multiplicities up to 10^6 ------
set_begin scale
g ring --n 1024 --mult 1000000
g ring --n 2001 --mult 1000
g bidir_ring --n 2001 --mult 1000
g ring_skip --n 1000 --skip 31 --mult 1000
g alltoall --n 256
g alltoall --n 128 --mult 1000000
g moe --n 256 --tokens 4096 --seed 1
g moe --n 512 --tokens 1024 --zipf 1.2 --mult 100 --seed 2
g pipeline --stages 512 --microbatches 1000000
g pipeline_interleaved --stages 1001 --microbatches 64 --virtual-stages 4
g reshard --from 1024 --to 768
g reshard --from 1000 --to 999 --in-place --mult 1000
g tree --n 4095 --arity 2 --direction allreduce --mult 1000000
g star --clients 2048 --targets 16 --jitter 7 --mult 1000 --seed 1
g random --n 1000 --p 0.02 --max-chunks 100 --seed 1
g random --n 3000 --p 0.002 --mult 1000000 --seed 2
g clique --n 101 --mult 1000000
g clique --n 257
g flower_snark --k 501 --mult 1000000
g petersen --mult 1000000

# --- multiport: slots with several ports, per-demand bandwidth (DESIGN §11) -
# Instance JSON files (they carry "ports"); optima by port splitting + König
# (READ1_WRITE1) and Hakimi-Kariv (STRICT1 with even ports).
set_begin multiport
g rails --n 8 --rails 2 --mult 4
g rails --n 64 --rails 8 --mult 1000
g rails --n 9 --rails 3 --mult 5
g two_tier --nodes 4 --gpus-per-node 8 --nics 2 --fast 8 --mult 64
g two_tier --nodes 2 --gpus-per-node 8 --nics 4 --fast 16 --mult 100
g moe_nics --nodes 16 --nics 4 --tokens 512 --topk 2
g moe_nics --nodes 8 --nics 3 --tokens 256 --topk 2 --seed 1
g moe_two_tier --nodes 4 --gpus-per-node 8 --nics 2 --mult 8 --hot 4
g moe_two_tier --nodes 2 --gpus-per-node 8 --nics 4 --fast 4 --mult 16 --hot 2 --seed 1

# --- cluster: issue 15 families at cluster scale, optima by structure or planting
set_begin cluster
g ring --n 10001 --mult 1000000
g ring --n 1001 --mult 3
g ring --n 16 --mult 100
g ring --n 16 --mult 100000
g bidir_ring --n 4001 --mult 7
g alltoall --n 63 --mult 7
g alltoall --n 200
# planted odd cliques in 20,000-slot sparse graphs (optimum: the cliques'
# odd-set bound, above Delta; known from the planted colouring)
g planted --n 20000 --k 5 --cliques 100 --clique-mult 4 --degree 4
g planted --n 20000 --k 5 --cliques 100 --clique-mult 4 --degree 4 --mult 1000
g planted --n 20000 --k 3 --cliques 1000 --clique-mult 7 --degree 12 --seed 2

# --- reshard: transformer checkpoints from training to inference meshes ----
# Disjoint GPU sets (training slots send, inference slots receive), so both
# models' optima are the max chunk degree (König). Defaults: LLaMA-2 7B, bf16,
# training TP 8 x PP 4, inference TP 4 x PP 1.
set_begin reshard
g reshard_model --from 256 --to 128
g reshard_model --from 256 --to 16 --to-pp 2
g reshard_model --from 64 --from-tp 2 --from-pp 4 --to 64 --to-tp 8 --to-pp 1
g reshard_model --from 128 --from-pp 2 --to 64 --to-tp 2 --dtype-bits 8 --bw 1MiB
# LLaMA-2 13B, and LLaMA-3 70B (grouped-query attention, 8 KV heads)
g reshard_model --from 256 --to 128 --to-tp 8 --to-pp 2 --layers 40 --hidden 5120 --ffn 13824 --heads 40
g reshard_model --from 512 --from-pp 8 --to 256 --to-tp 8 --to-pp 2 --layers 80 --hidden 8192 --ffn 28672 --heads 64 --kv-heads 8 --vocab 128256
# a small model whose splits do not align (thirds against halves)
g reshard_model --from 12 --from-tp 3 --from-pp 2 --to 8 --to-tp 2 --layers 6 --hidden 96 --ffn 256 --heads 6 --vocab 1000 --bw 64

echo "instance sets written under $ROOT/: $(ls "$ROOT" | tr '\n' ' ')"
