#!/bin/sh
# stop_clients.sh <client-log-dir> [grace-seconds]: stops every client JVM of this working directory, the
# pe, ycsb and admin phases, foreground or background (each runs with its log directory, and so its GC
# log, below <client-log-dir>/<phase>/; only java processes are looked at, never this script or a shell).
# SIGTERM first (pe and ycsb end at once), SIGKILL for those still running after the grace (default 10 s).
# Its last line on stdout: HEAPLAB-RESULT: {"stopped": N, "killed": M}.
dir=${1:?usage: stop_clients.sh <client-log-dir> [grace-seconds]}
grace=${2:-10}

clients() {
  for proc in /proc/[0-9]*; do
    [ "$(cat "$proc/comm" 2>/dev/null)" = java ] || continue
    if tr '\0' '\n' < "$proc/cmdline" 2>/dev/null | grep -qF -- "$dir/"; then
      echo "${proc#/proc/}"
    fi
  done
}

stopped=0
for pid in $(clients); do
  kill -TERM "$pid" 2>/dev/null && stopped=$((stopped + 1))
done
waited=0
while [ -n "$(clients)" ] && [ "$waited" -lt "$((grace * 5))" ]; do
  sleep 0.2
  waited=$((waited + 1))
done
killed=0
for pid in $(clients); do
  kill -KILL "$pid" 2>/dev/null && killed=$((killed + 1))
done
echo "HEAPLAB-RESULT: {\"stopped\": $stopped, \"killed\": $killed}"
