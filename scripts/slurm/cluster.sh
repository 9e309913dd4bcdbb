#!/usr/bin/env bash
# A one-node Slurm on this machine, from Debian's packages, for trying srun and sbatch.
#
#   scripts/slurm/cluster.sh up     install slurmctld, slurmd, slurm-client, munge if missing
#                                   (apt-get), then start munged, slurmctld and slurmd directly
#                                   (no systemd) with their configuration in /run/workbook-slurm
#   scripts/slurm/cluster.sh down   stop all three (by their pid files), remove the folder
#   scripts/slurm/cluster.sh env    the setting every Slurm command needs (SLURM_CONF), to source
#
# Root only. `up` takes a few seconds (plus the install the first time) and is idempotent:
# an old instance is stopped first. The node is this host with 8 CPUs declared (so that the
# tests' 8-rank jobs fit on a small machine; a real site declares its real cores), one
# partition `workbook`, MpiDefault=pmix; everything on 127.0.0.1, so the host name need
# not resolve.
set -euo pipefail

RUN=/run/workbook-slurm
NODE=$(hostname -s)
die() { echo "slurm/cluster.sh: $*" >&2; exit 1; }

install() {
  local missing=()
  for pair in slurmctld:slurmctld slurmd:slurmd srun:slurm-client munged:munge; do
    command -v "${pair%%:*}" >/dev/null || missing+=("${pair##*:}")
  done
  [ ${#missing[@]} -eq 0 ] && return
  # The log goes with setup's own (an ignored folder of the checkout), not into /tmp.
  local log
  log="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/.cache/setup/slurm-apt.log"
  mkdir -p "$(dirname "$log")"
  echo "slurm/cluster.sh: installing ${missing[*]} (apt-get)"
  DEBIAN_FRONTEND=noninteractive timeout 900 apt-get install -y -q --no-install-recommends "${missing[@]}" \
    > "$log" 2>&1 \
    || die "apt-get install ${missing[*]} failed (log: $log); try apt-get update first"
}

stop_pidfile() { # pidfile name: TERM, wait up to 5 s, then KILL
  [ -f "$1" ] || return 0
  local pid; pid=$(cat "$1")
  kill -TERM "$pid" 2>/dev/null || return 0
  for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
  echo "slurm/cluster.sh: $2 (pid $pid) ignored SIGTERM; killing it" >&2
  kill -KILL "$pid" 2>/dev/null || true
}

# The children of process $1 (from /proc: no procps needed).
children() {
  local f s rest
  for f in /proc/[0-9]*/stat; do
    read -r s 2>/dev/null < "$f" || continue
    rest=${s##*) }
    set -- "$1" $rest
    if [ "$3" = "$1" ]; then f=${f#/proc/}; echo "${f%/stat}"; fi
  done
  return 0
}

down() {
  if [ -f "$RUN/slurm.conf" ]; then
    SLURM_CONF=$RUN/slurm.conf timeout 10 scancel --quiet --full --user=root 2>/dev/null || true
  fi
  # A job step's slurmstepd outlives slurmd by design (steps survive a restart of the
  # daemon); this cluster's steps, slurmd's children, end with it: given 5 s after the
  # scancel, then killed.
  local steps="" pid
  if [ -f "$RUN/slurmd.pid" ]; then steps=$(children "$(cat "$RUN/slurmd.pid")"); fi
  for pid in $steps; do
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
  done
  stop_pidfile "$RUN/slurmd.pid" slurmd
  stop_pidfile "$RUN/slurmctld.pid" slurmctld
  stop_pidfile "$RUN/munged.pid" munged
  rm -rf "$RUN"
}

conf() {
  cat <<CONF
# The workbook's one-node Slurm (scripts/slurm/cluster.sh); every path is under $RUN.
ClusterName=workbook
SlurmctldHost=$NODE(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
AuthInfo=socket=$RUN/munge/munge.socket
CredType=cred/munge
StateSaveLocation=$RUN/state
SlurmdSpoolDir=$RUN/spool
# The jobs' temporary files (the PMIx plugin's spmix_appdir_* among them) live under $RUN
# too, so that an interrupted step leaves nothing in /tmp once Slurm is stopped.
TmpFS=$RUN/tmp
SlurmctldPidFile=$RUN/slurmctld.pid
SlurmdPidFile=$RUN/slurmd.pid
SlurmctldLogFile=$RUN/slurmctld.log
SlurmdLogFile=$RUN/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
MpiDefault=pmix
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
ReturnToService=2
KillWait=5
InactiveLimit=0
JobCompType=jobcomp/none
AccountingStorageType=accounting_storage/none
NodeName=$NODE NodeAddr=127.0.0.1 CPUs=8 State=UNKNOWN
PartitionName=workbook Nodes=$NODE Default=YES MaxTime=60 State=UP OverSubscribe=NO
CONF
}

up() {
  [ "$(id -u)" = 0 ] || die "needs root (it starts slurmctld, slurmd and munged)"
  install
  down
  mkdir -p "$RUN/state" "$RUN/spool" "$RUN/munge" "$RUN/tmp"
  chmod 700 "$RUN/munge"
  dd if=/dev/urandom of="$RUN/munge.key" bs=1024 count=1 status=none
  chmod 400 "$RUN/munge.key"
  munged --force --key-file="$RUN/munge.key" --socket="$RUN/munge/munge.socket" \
    --pid-file="$RUN/munged.pid" --log-file="$RUN/munged.log" --seed-file="$RUN/munged.seed" \
    || die "munged did not start: see $RUN/munged.log"
  conf > "$RUN/slurm.conf"
  export SLURM_CONF=$RUN/slurm.conf
  slurmctld -f "$SLURM_CONF" || die "slurmctld did not start: see $RUN/slurmctld.log"
  slurmd -f "$SLURM_CONF" || die "slurmd did not start: see $RUN/slurmd.log"
  for _ in $(seq 100); do
    state=$(timeout 5 sinfo -h -n "$NODE" -o %t 2>/dev/null || true)
    case $state in idle*|mix*|alloc*) echo "slurm/cluster.sh: Slurm up: node $NODE ($state), partition workbook; export SLURM_CONF=$SLURM_CONF"; return ;; esac
    sleep 0.2
  done
  die "node $NODE never became idle (state '${state:-none}'): see $RUN/slurmctld.log and $RUN/slurmd.log"
}

case "${1:-}" in
  up) up ;;
  down) down; echo "slurm/cluster.sh: Slurm stopped" ;;
  env) echo "export SLURM_CONF=$RUN/slurm.conf" ;;
  *) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
