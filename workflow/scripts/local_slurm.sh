#!/usr/bin/env bash
# A single-node SLURM cluster on this machine, to try `snakemake --profile workflow/profiles/slurm`
# without a real cluster (the SLURM end-to-end test uses it too).
#
#   sudo bash workflow/scripts/local_slurm.sh up       # install (Debian packages), configure, start
#   sudo bash workflow/scripts/local_slurm.sh status   # daemons, `scontrol ping`, node state
#   sudo bash workflow/scripts/local_slurm.sh down     # cancel jobs, stop the daemons (by PID)
#
# `up` installs slurmctld, slurmd, slurm-client and munge with apt-get if they are missing, writes
# /etc/slurm/slurm.conf for one node (named by `hostname -s`, `nproc` CPUs, 90% of the memory) in
# one partition `cpu` (the partition the slurm profile asks for), starts munged, slurmctld and
# slurmd directly in the foreground mode (-D) in the background (no systemd), records their PIDs
# and waits until `scontrol ping` answers and the node is idle. `down` stops exactly those PIDs
# and removes the config it wrote; it never touches a slurm.conf it did not write.
# There is no accounting database: `sacct` does not work, so Snakemake's SLURM plugin must poll
# with `--slurm-status-command squeue`; finished jobs stay visible to squeue for MinJobAge seconds.
#
# Needs root (apt-get, the daemons). Environment:
#   NESYBENCH_SLURM_STATE  state directory: PIDs, logs, spool (default /tmp/nesybench-slurm)
#   NESYBENCH_SLURM_WAIT   seconds to wait for the node to come up (default 90)
set -euo pipefail

STATE=${NESYBENCH_SLURM_STATE:-/tmp/nesybench-slurm}
WAIT=${NESYBENCH_SLURM_WAIT:-90}
CONF=/etc/slurm/slurm.conf
MARKER="# Written by nesybench workflow/scripts/local_slurm.sh"
PARTITION=cpu
MIN_JOB_AGE=300 # >= 3x the plugin's initial status delay (40 s by default)
DAEMONS=(slurmd slurmctld munged) # stop order; started in reverse

say() { echo "local_slurm: $*" >&2; }
die() {
  say "error: $*"
  exit 1
}

need_root() {
  [[ $(id -u) -eq 0 ]] || die "must run as root (it installs packages and starts daemons)"
}

pid_of() { # the recorded PID of a daemon, if it is still alive
  local file="$STATE/$1.pid" pid
  [[ -f $file ]] || return 1
  pid=$(<"$file")
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null && echo "$pid"
}

install_packages() {
  local missing=()
  command -v slurmctld >/dev/null || missing+=(slurmctld)
  command -v slurmd >/dev/null || missing+=(slurmd)
  command -v sbatch >/dev/null || missing+=(slurm-client)
  command -v munged >/dev/null || missing+=(munge)
  ((${#missing[@]})) || return 0
  say "installing ${missing[*]} (apt-get)"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}

write_config() {
  if [[ -f $CONF ]] && ! grep -qF "$MARKER" "$CONF"; then
    die "$CONF exists and was not written by this script; not touching a real cluster's config"
  fi
  local host cpus mem_mb
  host=$(hostname -s)
  cpus=$(nproc)
  mem_mb=$(awk '/^MemTotal:/ {printf "%d", $2 / 1024 * 0.9}' /proc/meminfo)
  mkdir -p /etc/slurm
  cat >"$CONF" <<EOF
$MARKER for a single-node test
# cluster on $host; \`local_slurm.sh down\` removes it.
ClusterName=nesybench
SlurmctldHost=$host(127.0.0.1)
SlurmUser=slurm
AuthType=auth/munge
CredType=cred/munge
StateSaveLocation=$STATE/slurmctld
SlurmdSpoolDir=$STATE/slurmd
SlurmctldPidFile=$STATE/slurmctld.daemon.pid
SlurmdPidFile=$STATE/slurmd.daemon.pid
SlurmctldLogFile=$STATE/slurmctld.log
SlurmdLogFile=$STATE/slurmd.log
SlurmctldDebug=info
SlurmdDebug=info
# No cgroups (containers, laptops without a delegated cgroup tree): track job processes
# through /proc, bind no tasks.
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core_Memory
ReturnToService=2
# squeue reports a finished job for MinJobAge seconds: the plugin's squeue status polling needs
# this to be at least 3x its initial status delay.
MinJobAge=$MIN_JOB_AGE
SchedulerParameters=sched_interval=5
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus RealMemory=$mem_mb State=UNKNOWN
PartitionName=$PARTITION Nodes=$host Default=YES MaxTime=INFINITE State=UP
EOF
  say "wrote $CONF (node $host, $cpus CPUs, ${mem_mb} MB, partition $PARTITION)"
}

start_munge() {
  if [[ ! -s /etc/munge/munge.key ]]; then
    mungekey --create --keyfile /etc/munge/munge.key
  fi
  chown munge:munge /etc/munge/munge.key
  chmod 0400 /etc/munge/munge.key
  install -d -o munge -g munge -m 0755 /run/munge
  install -d -o munge -g munge -m 0700 /var/lib/munge /var/log/munge
  if munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
    say "munged is already running (not ours; using it)"
    return 0
  fi
  # setsid and setpriv exec in place, so the recorded PID is the daemon's; its own session keeps
  # it out of the caller's terminal signals (Ctrl-C).
  setsid setpriv --reuid=munge --regid=munge --init-groups \
    munged --foreground --force </dev/null >"$STATE/munged.log" 2>&1 &
  echo $! >"$STATE/munged.pid"
  local i
  for ((i = 0; i < 50; i++)); do
    munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  die "munged did not start (see $STATE/munged.log)"
}

node_state() {
  sinfo --noheader --Node --format=%T 2>/dev/null | head -n 1
}

wait_ready() {
  local i d state=""
  for ((i = 0; i < WAIT; i++)); do
    for d in slurmctld slurmd; do
      pid_of "$d" >/dev/null || die "$d exited (see $STATE/$d.log)"
    done
    if scontrol ping 2>/dev/null | grep -q "is UP"; then
      state=$(node_state)
      [[ $state == idle ]] && return 0
    fi
    sleep 1
  done
  die "the node is not idle after ${WAIT}s (state: ${state:-none}; see $STATE/*.log)"
}

show_logs() {
  local f
  for f in "$STATE"/*.log; do
    [[ -f $f ]] || continue
    echo "---- $f (last 20 lines)" >&2
    tail -n 20 "$f" >&2
  done
}

up_failed() {
  local rc=$?
  trap - EXIT
  ((rc)) || return 0
  show_logs
  down
  exit "$rc"
}

up() {
  need_root
  if pid_of slurmctld >/dev/null || pid_of slurmd >/dev/null; then
    die "already up (state in $STATE); run \`$0 down\` first"
  fi
  install_packages
  if [[ -e $STATE ]]; then
    [[ -f $STATE/.local_slurm || -z $(ls -A "$STATE") ]] ||
      die "$STATE exists and is not a state directory of this script; set NESYBENCH_SLURM_STATE"
    rm -rf "$STATE"
  fi
  # slurmctld drops to SlurmUser=slurm and writes its log and state here.
  install -d -o slurm -g slurm -m 0755 "$STATE" "$STATE/slurmctld"
  mkdir -p "$STATE/slurmd"
  touch "$STATE/.local_slurm"
  write_config
  # A failure or an interrupt from here on tears down whatever was started.
  trap up_failed EXIT
  trap 'exit 130' INT TERM
  start_munge
  setsid slurmctld -D </dev/null >>"$STATE/slurmctld.out" 2>&1 &
  echo $! >"$STATE/slurmctld.pid"
  setsid slurmd -D </dev/null >>"$STATE/slurmd.out" 2>&1 &
  echo $! >"$STATE/slurmd.pid"
  wait_ready
  trap - EXIT INT TERM
  say "up: $(hostname -s) idle in partition $PARTITION (PIDs: munged $(pid_of munged || echo -)," \
    "slurmctld $(pid_of slurmctld), slurmd $(pid_of slurmd)); state in $STATE"
}

stop_pid() { # SIGTERM, then SIGKILL after 10 s
  local name=$1 pid=$2 i
  kill -TERM "$pid" 2>/dev/null || return 0
  for ((i = 0; i < 50; i++)); do
    kill -0 "$pid" 2>/dev/null || {
      say "stopped $name ($pid)"
      return 0
    }
    sleep 0.2
  done
  kill -KILL "$pid" 2>/dev/null || true
  say "killed $name ($pid)"
}

down() {
  need_root
  local name pid i
  if pid_of slurmctld >/dev/null; then
    # Cancel every job of this private cluster, so no job step outlives slurmd.
    scancel --full --quiet --partition="$PARTITION" 2>/dev/null || true
    for ((i = 0; i < 30; i++)); do
      [[ -z $(squeue --noheader --states=PENDING,RUNNING,COMPLETING,SUSPENDED 2>/dev/null) ]] &&
        break
      sleep 1
    done
  fi
  for name in "${DAEMONS[@]}"; do
    if pid=$(pid_of "$name"); then
      stop_pid "$name" "$pid"
    fi
    rm -f "$STATE/$name.pid"
  done
  if [[ -f $CONF ]] && grep -qF "$MARKER" "$CONF"; then
    rm -f "$CONF"
  fi
  # Keep the logs for a post-mortem; drop the spool and the saved controller state.
  rm -rf "$STATE/slurmctld" "$STATE/slurmd"
  say "down"
}

status() {
  local name pid rc=0
  for name in munged slurmctld slurmd; do
    if pid=$(pid_of "$name"); then
      echo "$name: running (PID $pid)"
    else
      echo "$name: not running"
      [[ $name == munged ]] || rc=1
    fi
  done
  if ((rc == 0)); then
    scontrol ping || rc=1
    sinfo --Node --long || rc=1
    squeue || rc=1
  fi
  return "$rc"
}

case "${1:-}" in
up) up ;;
down) down ;;
status) status ;;
*)
  echo "usage: $0 up|down|status" >&2
  exit 2
  ;;
esac
