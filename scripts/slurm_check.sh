#!/usr/bin/env bash
# Runs scripts/bench.sbatch on a real, single-host Slurm and checks that the
# merged shards equal one unsharded run.
#
#   scripts/slurm_check.sh            # TICKOPT=path/to/tickopt to pick the binary
#
# 1. Installs Debian's slurm-wlm and munge when missing (apt-get; needs root).
# 2. Stands up munged, slurmctld and slurmd on this host, with every file
#    (munge key, socket, slurm.conf, state, logs) in a temporary directory
#    and free TCP ports: no systemd, nothing under /etc, no clash with a
#    Slurm already running here.
# 3. Submits scripts/bench.sbatch as a job array over instances/standard
#    with its own defaults (sbatch --wait), merges the shards with
#    `tickopt bench merge`, runs the same bench unsharded, and compares the
#    records on their deterministic fields (every field but the timings).
# 4. Stops only the daemons it started, by PID, and removes its directory
#    (also on failure or Ctrl-C). SLURM_CHECK_KEEP=1 keeps the directory.
#
# Env: TICKOPT (default target/release/tickopt, built if missing),
# SLURM_CHECK_TASKS (array size, default 3), SLURM_CHECK_SET (default
# instances/standard).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

TICKOPT=${TICKOPT:-target/release/tickopt}
TASKS=${SLURM_CHECK_TASKS:-3}
SET=${SLURM_CHECK_SET:-instances/standard}
say() { echo "slurm_check: $*" >&2; }
die() { say "FAIL: $*"; exit 1; }

if [[ ! -x $TICKOPT ]]; then
  if [[ $TICKOPT == target/release/tickopt ]]; then
    say "building $TICKOPT"
    cargo build --release --locked
  else
    die "TICKOPT=$TICKOPT is not an executable"
  fi
fi
TICKOPT=$(cd "$(dirname "$TICKOPT")" && pwd)/$(basename "$TICKOPT")

# --- 1. packages --------------------------------------------------------------
installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
missing=()
for p in slurm-wlm munge; do installed "$p" || missing+=("$p"); done
if (( ${#missing[@]} )); then
  say "installing ${missing[*]}"
  (( EUID == 0 )) || die "need root to install ${missing[*]} (or install them first)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get -o DPkg::Lock::Timeout=600 update -qq
  apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
for b in /usr/sbin/munged /usr/sbin/slurmctld /usr/sbin/slurmd; do
  [[ -x $b ]] || die "$b missing after installing slurm-wlm and munge"
done
for b in sbatch sinfo squeue munge; do
  command -v "$b" >/dev/null || die "$b not on PATH"
done

# --- 2. daemons ---------------------------------------------------------------
T=$(mktemp -d /tmp/tickopt-slurm.XXXXXX)
chmod 711 "$T"
PIDS=()
cleanup() {
  local rc=$?
  # Stop only what this script started, newest first, by PID.
  for (( i=${#PIDS[@]}-1; i>=0; i-- )); do
    kill "${PIDS[i]}" 2>/dev/null || true
  done
  for pid in "${PIDS[@]}"; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
  done
  if (( rc != 0 )); then
    for f in "$T"/log/* "$T"/out/*.log; do
      [[ -f $f ]] && { echo "--- $f (last lines)" >&2; tail -n 20 "$f" >&2; }
    done
  fi
  if [[ ${SLURM_CHECK_KEEP:-0} == 1 ]]; then
    say "kept $T"
  else
    rm -rf "$T"
  fi
  exit "$rc"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mkdir -p "$T/munge" "$T/state" "$T/spool" "$T/log" "$T/out"
chmod 711 "$T/munge"
dd if=/dev/urandom of="$T/munge/munge.key" bs=1024 count=1 status=none
chmod 400 "$T/munge/munge.key"
SOCK=$T/munge/munge.socket
/usr/sbin/munged --foreground --force --socket="$SOCK" \
  --key-file="$T/munge/munge.key" --log-file="$T/log/munged.log" \
  --pid-file="$T/munge/munged.pid" --seed-file="$T/munge/munged.seed" \
  >"$T/log/munged.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do [[ -S $SOCK ]] && break; sleep 0.1; done
munge -n -S "$SOCK" | unmunge -S "$SOCK" >/dev/null || die "munged does not answer on $SOCK"

# Two free TCP ports (the kernel picks them; a tiny race is harmless here).
read -r CTLD_PORT SLURMD_PORT < <(python3 -c '
import socket
s = [socket.socket() for _ in range(2)]
for x in s: x.bind(("127.0.0.1", 0))
print(*[x.getsockname()[1] for x in s])')
HOST=$(hostname -s)
CPUS=$(nproc)
MEM_MB=$(awk '/MemTotal/ {print int($2 / 1024 * 0.8)}' /proc/meminfo)
export SLURM_CONF=$T/slurm.conf
cat >"$SLURM_CONF" <<EOF
ClusterName=tickoptcheck
SlurmctldHost=$HOST(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$CTLD_PORT
SlurmdPort=$SLURMD_PORT
AuthType=auth/munge
AuthInfo=socket=$SOCK
CredType=cred/munge
StateSaveLocation=$T/state
SlurmdSpoolDir=$T/spool
SlurmctldPidFile=$T/slurmctld.pid
SlurmdPidFile=$T/slurmd.pid
SlurmctldLogFile=$T/log/slurmctld.log
SlurmdLogFile=$T/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=none
SchedulerType=sched/builtin
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
JobAcctGatherType=jobacct_gather/none
NodeName=$HOST NodeAddr=127.0.0.1 CPUs=$CPUS RealMemory=$MEM_MB State=UNKNOWN
PartitionName=check Nodes=$HOST Default=YES MaxTime=INFINITE State=UP
EOF
/usr/sbin/slurmctld -D -i >"$T/log/slurmctld.out" 2>&1 &
PIDS+=($!)
/usr/sbin/slurmd -D >"$T/log/slurmd.out" 2>&1 &
PIDS+=($!)
say "munged, slurmctld, slurmd started (pids ${PIDS[*]}; $CPUS CPUs, ${MEM_MB} MB; config $SLURM_CONF)"
for _ in $(seq 120); do
  state=$(sinfo -h -n "$HOST" -o %t 2>/dev/null || true)
  [[ $state == idle ]] && break
  sleep 0.5
done
[[ ${state:-} == idle ]] || die "node $HOST not idle (state: ${state:-none})"

# --- 3. array, merge, compare -------------------------------------------------
say "sbatch --array=1-$TASKS scripts/bench.sbatch $SET"
BENCH_OUT=$T/out TICKOPT=$TICKOPT sbatch --wait --quiet \
  --array="1-$TASKS" --output="$T/out/slurm-%A_%a.log" \
  scripts/bench.sbatch "$SET" || die "the job array failed (logs: $T/out)"
shards=()
for i in $(seq "$TASKS"); do
  d=$T/out/shard-$i-of-$TASKS
  [[ -f $d/results.json ]] || die "array task $i wrote no $d/results.json"
  shards+=("$d")
done
"$TICKOPT" bench merge "${shards[@]}" --out "$T/merged" >/dev/null
"$TICKOPT" bench "$SET" --out "$T/single" --jobs "$CPUS" >/dev/null 2>&1 \
  || die "the unsharded bench failed"
python3 - "$T/merged/results.json" "$T/single/results.json" <<'EOF'
import json, sys

TIMING = ("seconds", "bounds_seconds")

def records(path):
    out = []
    for r in json.load(open(path))["records"]:
        for k in TIMING:
            r.pop(k, None)
        if r.get("cg"):
            r["cg"].pop("seconds", None)
        out.append(r)
    return out

merged, single = records(sys.argv[1]), records(sys.argv[2])
if merged != single:
    keys = lambda rs: {(r["set"], r["file"], r["model"]) for r in rs}
    print(f"merged {len(merged)} records, single {len(single)}", file=sys.stderr)
    print("only merged:", sorted(keys(merged) - keys(single)), file=sys.stderr)
    print("only single:", sorted(keys(single) - keys(merged)), file=sys.stderr)
    for a, b in zip(merged, single):
        if a != b:
            print("first difference:", json.dumps(a), json.dumps(b), sep="\n", file=sys.stderr)
            break
    sys.exit(1)
print(f"slurm_check: {len(merged)} records: merge of the array equals one run", file=sys.stderr)
EOF
say "PASS"
