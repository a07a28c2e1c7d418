#!/usr/bin/env bash
# infra/netns/cluster.sh: a cluster of network namespaces on this machine, reached over ssh like real hosts.
#
#   cluster.sh [--state-dir DIR] up        create it (after cleaning up any earlier one); prints the inventory
#   cluster.sh [--state-dir DIR] down      remove everything up created; always safe, idempotent
#   cluster.sh [--state-dir DIR] status    what exists and whether each node answers over ssh (exit 0: all up)
#   cluster.sh [--state-dir DIR] inventory print the ansible inventory for DIR (creates nothing, needs no root)
#   cluster.sh [--state-dir DIR] exec CMD...   run CMD in the ctl namespace (where ansible and clients run)
#   cluster.sh [--state-dir DIR] data-disk NODE [MB]   give NODE a data disk: a loop device over a sparse file
#                                          (default 64 MB) and <state>/host_vars/NODE.yml pointing provision.yml
#                                          at it; `down` detaches it
#
# Layout (infra/netns/README.md): a namespace `ctl` holding a bridge (10.77.0.1/24) where ansible and the
# benchmark clients run, and nodes n1..n3 (10.77.0.11..13), each with a veth eth0 on that bridge, its own
# hosts file (/etc/netns/<ns>/hosts), its own hostname (a UTS namespace) and its own sshd. Keys, known_hosts,
# ssh configuration, sshd logs, the inventory and every node's heaplab_base_dir live in the state directory
# (default /tmp/heaplab-netns, override with --state-dir or HEAPLAB_NETNS_STATE), never in the repository.
# The filesystem is shared: that is why each node has its own base directory.
#
# Needs root, iproute2 with `ip netns`, util-linux `unshare` and openssh-server; when sshd is missing and we
# are root, it is installed with apt-get. Anything else missing: one line saying what, exit 2.
# Exit codes: 0 ok, 1 failed (up cleans up after itself), 2 cannot run here.
set -euo pipefail

NODES=(n1 n2 n3)
CTL=ctl
SUBNET=10.77.0
CTL_IP="$SUBNET.1"
BRIDGE=hlbr0
SSHD=/usr/sbin/sshd
MARKER=.heaplab-netns   # only a directory holding this file is ever removed by `down`
LOCK=/run/lock/heaplab-netns.lock

node_ip() { echo "$SUBNET.$((10 + ${1#n}))"; }

usage() {
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
}

die() { echo "ERROR: $*" >&2; exit 1; }
cannot() { echo "cluster.sh: cannot run here: $*" >&2; exit 2; }
say() { echo "cluster.sh: $*"; }

STATE="${HEAPLAB_NETNS_STATE:-/tmp/heaplab-netns}"
while [[ $# -gt 0 ]]; do
  case "$1" in
    --state-dir) [[ $# -ge 2 ]] || { usage >&2; exit 2; }; STATE="$2"; shift 2 ;;
    --state-dir=*) STATE="${1#--state-dir=}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) break ;;
  esac
done
[[ $# -ge 1 ]] || { echo "ERROR: missing command (up|down|status|inventory|exec|data-disk)" >&2; usage >&2; exit 2; }
cmd="$1"; shift
[[ "$STATE" == /* ]] || { echo "ERROR: --state-dir must be an absolute path (got '$STATE')" >&2; exit 2; }
STATE="${STATE%/}"
# ssh's ControlPath is a unix socket below the state directory; socket paths are limited to 107 bytes.
(( ${#STATE} <= 60 )) || { echo "ERROR: --state-dir must be at most 60 characters (ssh control sockets live below it): $STATE" >&2; exit 2; }

SSH_DIR="$STATE/ssh"
SSH_CONFIG="$SSH_DIR/config"
INVENTORY="$STATE/inventory.yml"

# ---------------------------------------------------------------------------------------------- checks

require_root_and_netns() {
  [[ $EUID -eq 0 ]] || cannot "needs root (network namespaces, veths and sshd on port 22)"
  command -v ip >/dev/null || cannot "no ip command (install iproute2)"
  ip netns list >/dev/null 2>&1 || cannot "\`ip netns\` does not work here (no network namespace support or no CAP_SYS_ADMIN)"
  command -v unshare >/dev/null || cannot "no unshare command (install util-linux)"
  command -v ssh >/dev/null && command -v ssh-keygen >/dev/null || cannot "no ssh client (install openssh-client)"
}

require_sshd() {
  [[ -x "$SSHD" ]] && return 0
  if ! command -v apt-get >/dev/null; then
    cannot "$SSHD is missing and there is no apt-get to install openssh-server"
  fi
  say "installing openssh-server with apt-get (sshd is missing)"
  # Never let the package start a system-wide sshd: a policy-rc.d answering 101 forbids service starts.
  local policy=/usr/sbin/policy-rc.d own_policy=0
  if [[ ! -e "$policy" ]]; then
    printf '#!/bin/sh\nexit 101\n' > "$policy" && chmod 0755 "$policy" && own_policy=1
  fi
  local ok=0 log
  log="$(mktemp /tmp/heaplab-netns-apt.XXXXXX.log)"
  if DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssh-server >"$log" 2>&1 \
     || { DEBIAN_FRONTEND=noninteractive apt-get update -q >>"$log" 2>&1 \
          && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends openssh-server >>"$log" 2>&1; }; then
    ok=1
  fi
  if (( own_policy )); then rm -f "$policy"; fi
  if (( ! ok )) || [[ ! -x "$SSHD" ]]; then
    cannot "openssh-server could not be installed with apt-get (log: $log)"
  fi
  rm -f "$log"
}

# ---------------------------------------------------------------------------------------------- inventory

write_inventory() {
  cat <<EOF
---
# Written by infra/netns/cluster.sh for the state directory $STATE.
# Run ansible (and heaplab) inside the ctl namespace, where the nodes are reachable:
#   infra/netns/cluster.sh exec .venv/bin/heaplab run LAB --inventory $INVENTORY
# Every node shares this machine's filesystem and cores, so each has its own heaplab_base_dir;
# this cluster tests function, not performance.
all:
  vars:
    ansible_user: root
    # Keys, known_hosts and ssh control sockets of this cluster only (cluster.sh down closes the sockets).
    ansible_ssh_args: -F $SSH_CONFIG
  hosts:
    $CTL:
      ansible_connection: local
      heaplab_base_dir: $STATE/nodes/$CTL/heaplab
      heaplab_rpc_host: $CTL
EOF
  local n
  for n in "${NODES[@]}"; do
    cat <<EOF
    $n:
      ansible_host: $(node_ip "$n")
      heaplab_base_dir: $STATE/nodes/$n/heaplab
      heaplab_rpc_host: $n
EOF
  done
  cat <<EOF
  children:
    masters:
      hosts:
        ${NODES[0]}:
    regionservers:
      hosts:
EOF
  for n in "${NODES[@]}"; do
    echo "        $n:"
  done
  cat <<EOF
    clients:
      hosts:
        $CTL:
EOF
}

# ---------------------------------------------------------------------------------------------- down

ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }

# Every process in a namespace: its sshd, whatever ssh sessions started there (JVMs, ansible, ssh masters).
kill_ns_processes() {
  local ns="$1" pids round
  for round in TERM TERM TERM TERM TERM KILL KILL KILL KILL KILL; do
    pids="$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
    [[ -z "${pids// /}" ]] && return 0
    # shellcheck disable=SC2086
    kill -s "$round" $pids 2>/dev/null || true
    sleep 0.5
  done
  pids="$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
  [[ -z "${pids// /}" ]] || echo "cluster.sh: WARNING: processes still in namespace $ns: $pids" >&2
}

close_control_sockets() {
  local sock
  [[ -d "$SSH_DIR/cm" ]] || return 0
  for sock in "$SSH_DIR"/cm/*; do
    [[ -S "$sock" ]] || continue
    # The master may live in the ctl namespace or (ssh run outside it) here; -O exit works from anywhere.
    ssh -o ControlPath="$sock" -O exit dummy >/dev/null 2>&1 || true
    rm -f "$sock"
  done
}

do_down() {
  close_control_sockets
  local ns
  for ns in "${NODES[@]}" "$CTL"; do
    if ns_exists "$ns"; then
      kill_ns_processes "$ns"
      ip netns del "$ns" 2>/dev/null || true
    fi
    rm -rf "/etc/netns/$ns"
  done
  # sshd processes recorded in the state directory (e.g. a namespace deleted by hand while sshd ran on).
  local pidfile pid
  for pidfile in "$STATE"/nodes/*/sshd.pid; do
    [[ -f "$pidfile" ]] || continue
    pid="$(cat "$pidfile" 2>/dev/null || true)"
    if [[ -n "$pid" ]] && grep -qs "$STATE" "/proc/$pid/cmdline"; then
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
  detach_data_disks
  # veths live inside the namespaces and vanish with them; remove any left in this namespace anyway.
  local link
  for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E '^(hl-n[0-9]+|hlbr0)$' || true); do
    ip link del "$link" 2>/dev/null || true
  done
  if [[ -d "$STATE" ]]; then
    if [[ -f "$STATE/$MARKER" ]]; then
      rm -rf "$STATE"
    else
      echo "cluster.sh: WARNING: $STATE has no $MARKER file; not removing it" >&2
    fi
  fi
  local left=()
  for ns in "${NODES[@]}" "$CTL"; do ns_exists "$ns" && left+=("$ns"); done
  if (( ${#left[@]} )); then
    echo "ERROR: namespaces still present after down: ${left[*]}" >&2
    return 1
  fi
  say "down (namespaces ${NODES[*]} $CTL removed, state $STATE removed)"
}

# ---------------------------------------------------------------------------------------------- data disks

# A node's data disk: a sparse file in the state directory behind a loop device. provision.yml (data_disk
# role) formats and mounts it over ssh, so the mount lives in that node's mount namespace only (sshd runs
# under `ip netns exec`, which gives it a private mount namespace) and dies with the node.
do_data_disk() {
  local n="$1" mb="${2:-64}" image dev
  [[ " ${NODES[*]} " == *" $n "* ]] || { echo "ERROR: data-disk: unknown node '$n' (${NODES[*]})" >&2; exit 2; }
  [[ "$mb" =~ ^[0-9]+$ ]] && (( mb >= 16 )) || { echo "ERROR: data-disk: size must be a number of MB >= 16 (got '$mb')" >&2; exit 2; }
  [[ -f "$STATE/$MARKER" ]] && ns_exists "$n" || die "no cluster in $STATE: run $0 --state-dir $STATE up first"
  [[ ! -f "$STATE/disks/$n.loop" ]] || die "$n already has a data disk ($(cat "$STATE/disks/$n.loop"))"
  command -v losetup >/dev/null || cannot "no losetup command (install util-linux)"
  mkdir -p "$STATE/disks" "$STATE/host_vars"
  image="$STATE/disks/$n.img"
  truncate -s "${mb}M" "$image"
  if ! dev="$(losetup --find --show "$image" 2>&1)" || [[ "$dev" != /dev/loop* ]]; then
    rm -f "$image"
    cannot "no usable loop device (losetup --find --show: $dev)"
  fi
  echo "$dev" > "$STATE/disks/$n.loop"
  # host_vars next to the inventory: ansible (and heaplab run --inventory) read them with it, and they
  # win over the inventory's own host vars (the node's base directory moves onto the disk).
  cat > "$STATE/host_vars/$n.yml" <<EOF
---
# Written by infra/netns/cluster.sh data-disk: $n's data disk is $dev (backed by $image).
# provision.yml formats it (ext4, only when empty) and mounts it in $n's mount namespace.
heaplab_data_device: $dev
heaplab_data_mount: $STATE/nodes/$n/data
heaplab_data_persist: false
heaplab_base_dir: $STATE/nodes/$n/data/heaplab
EOF
  say "data disk of $n: $dev ($mb MB, $image); host vars $STATE/host_vars/$n.yml"
}

# Only loop devices whose backing file is this state directory's image are detached.
detach_data_disks() {
  local rec dev back
  for rec in "$STATE"/disks/*.loop; do
    [[ -f "$rec" ]] || continue
    dev="$(cat "$rec")"
    back="$(losetup --list --noheadings --output BACK-FILE "$dev" 2>/dev/null | sed 's/ *(deleted)$//; s/ *$//' || true)"
    if [[ "$back" == "${rec%.loop}.img" ]]; then
      losetup -d "$dev" 2>/dev/null || echo "cluster.sh: WARNING: could not detach $dev" >&2
    fi
    rm -f "$rec"
  done
}

# ---------------------------------------------------------------------------------------------- up

write_hosts_file() {
  local ns="$1" n
  mkdir -p "/etc/netns/$ns"
  {
    echo "# written by infra/netns/cluster.sh"
    echo "127.0.0.1 localhost"
    echo "::1 localhost ip6-localhost ip6-loopback"
    echo "$CTL_IP $CTL"
    for n in "${NODES[@]}"; do echo "$(node_ip "$n") $n"; done
  } > "/etc/netns/$ns/hosts"
}

write_ssh_files() {
  mkdir -p -m 0700 "$SSH_DIR" "$SSH_DIR/cm"
  ssh-keygen -q -t ed25519 -N '' -C "heaplab-netns" -f "$SSH_DIR/id_ed25519"
  cp "$SSH_DIR/id_ed25519.pub" "$SSH_DIR/authorized_keys"
  chmod 0600 "$SSH_DIR/authorized_keys"
  : > "$SSH_DIR/known_hosts"
  cat > "$SSH_CONFIG" <<EOF
# ssh client configuration of the namespace cluster in $STATE (written by cluster.sh up)
Host ${NODES[*]} $SUBNET.*
  User root
  IdentityFile $SSH_DIR/id_ed25519
  IdentitiesOnly yes
  # The host keys are generated fresh by every \`up\` and written here: nothing is accepted blindly.
  UserKnownHostsFile $SSH_DIR/known_hosts
  StrictHostKeyChecking yes
  GlobalKnownHostsFile /dev/null
  BatchMode yes
  ConnectTimeout 10
  ControlMaster auto
  ControlPersist 60s
  ControlPath $SSH_DIR/cm/%C
  LogLevel ERROR
EOF
}

start_node() {
  local n="$1" ip dir
  ip="$(node_ip "$n")"
  dir="$STATE/nodes/$n"
  mkdir -p "$dir/heaplab"
  ssh-keygen -q -t ed25519 -N '' -C "$n" -f "$dir/ssh_host_ed25519_key"
  echo "$n,$ip $(cut -d' ' -f1-2 "$dir/ssh_host_ed25519_key.pub")" >> "$SSH_DIR/known_hosts"
  cat > "$dir/sshd_config" <<EOF
# sshd of namespace $n (written by cluster.sh up)
ListenAddress $ip:22
HostKey $dir/ssh_host_ed25519_key
PidFile $dir/sshd.pid
AuthorizedKeysFile $SSH_DIR/authorized_keys
PermitRootLogin prohibit-password
PubkeyAuthentication yes
PasswordAuthentication no
KbdInteractiveAuthentication no
UsePAM no
# The keys live in /tmp, which sshd's ownership checks would refuse.
StrictModes no
X11Forwarding no
PrintMotd no
AcceptEnv LANG LC_*
MaxSessions 50
MaxStartups 50:30:100
Subsystem sftp internal-sftp
EOF
  "$SSHD" -t -f "$dir/sshd_config" || die "sshd rejected $dir/sshd_config"

  ip netns add "$n"
  ip netns exec "$n" ip link set lo up
  # One veth pair made directly inside the two namespaces: hl-<node> on ctl's bridge, eth0 in the node.
  ip link add "hl-$n" netns "$CTL" type veth peer name eth0 netns "$n"
  ip netns exec "$CTL" ip link set "hl-$n" master "$BRIDGE" up
  ip netns exec "$n" ip addr add "$ip/24" dev eth0
  ip netns exec "$n" ip link set eth0 up
  write_hosts_file "$n"

  # sshd in the foreground (-D) in its own session, UTS namespace (hostname = node name) and network
  # namespace; `ip netns exec` also bind-mounts /etc/netns/<n>/hosts over /etc/hosts for it and its sessions.
  setsid ip netns exec "$n" unshare --uts sh -c "hostname $n && exec $SSHD -D -e -f $dir/sshd_config" \
    > "$dir/sshd.log" 2>&1 < /dev/null &
  echo $! > "$dir/sshd.launcher.pid"
}

wait_for_ssh() {
  local n="$1" deadline=$((SECONDS + 30)) out
  while true; do
    if out="$(ip netns exec "$CTL" ssh -F "$SSH_CONFIG" -o ControlMaster=no "$n" hostname 2>&1)" && [[ "$out" == "$n" ]]; then
      return 0
    fi
    if (( SECONDS >= deadline )); then
      echo "ERROR: node $n does not answer over ssh within 30 s: $out" >&2
      echo "  sshd log ($STATE/nodes/$n/sshd.log):" >&2
      tail -n 5 "$STATE/nodes/$n/sshd.log" >&2 || true
      return 1
    fi
    sleep 0.3
  done
}

do_up() {
  exec 9>"$LOCK"
  flock -w 120 9 || die "another cluster.sh holds $LOCK"
  if [[ -d "$STATE" && ! -f "$STATE/$MARKER" && -n "$(ls -A "$STATE" 2>/dev/null)" ]]; then
    echo "ERROR: $STATE exists, is not empty and was not made by cluster.sh; choose another --state-dir" >&2
    exit 2
  fi
  if [[ -e "$STATE" ]] || ns_exists "$CTL" || ns_exists "${NODES[0]}"; then
    say "cleaning up an earlier cluster first"
    do_down >/dev/null
  fi
  require_sshd
  mkdir -p "$STATE"
  touch "$STATE/$MARKER"
  mkdir -p -m 0755 /run/sshd   # sshd's privilege separation directory
  # From here on, any failure removes what was made.
  trap 'rc=$?; if (( rc != 0 )); then echo "cluster.sh: up failed; cleaning up" >&2; do_down >/dev/null 2>&1 || true; fi' EXIT

  write_ssh_files
  ip netns add "$CTL"
  ip netns exec "$CTL" ip link set lo up
  ip netns exec "$CTL" ip link add "$BRIDGE" type bridge
  ip netns exec "$CTL" ip addr add "$CTL_IP/24" dev "$BRIDGE"
  ip netns exec "$CTL" ip link set "$BRIDGE" up
  write_hosts_file "$CTL"
  mkdir -p "$STATE/nodes/$CTL/heaplab"

  local n
  for n in "${NODES[@]}"; do start_node "$n"; done
  for n in "${NODES[@]}"; do wait_for_ssh "$n"; done
  write_inventory > "$INVENTORY"
  trap - EXIT
  say "up: $CTL ($CTL_IP) and ${NODES[*]} ($(for n in "${NODES[@]}"; do printf '%s ' "$(node_ip "$n")"; done | sed 's/ $//'))"
  say "inventory: $INVENTORY"
  say "run commands in the ctl namespace: $0 --state-dir $STATE exec <command>"
}

# ---------------------------------------------------------------------------------------------- status

do_status() {
  local ok=0 n state pid
  for n in "$CTL" "${NODES[@]}"; do
    if ! ns_exists "$n"; then
      echo "$n: no namespace"; ok=1; continue
    fi
    [[ "$n" == "$CTL" ]] && { echo "$n: namespace up ($CTL_IP)"; continue; }
    pid="$(cat "$STATE/nodes/$n/sshd.pid" 2>/dev/null || true)"
    if [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null; then state="sshd pid $pid"; else state="sshd not running"; ok=1; fi
    if ns_exists "$CTL" && [[ -f "$SSH_CONFIG" ]] \
       && [[ "$(ip netns exec "$CTL" ssh -F "$SSH_CONFIG" -o ControlMaster=no "$n" hostname 2>/dev/null)" == "$n" ]]; then
      state="$state, ssh ok"
    else
      state="$state, ssh fails"; ok=1
    fi
    echo "$n: namespace up ($(node_ip "$n")), $state"
  done
  [[ -f "$INVENTORY" ]] && echo "inventory: $INVENTORY" || { echo "inventory: none ($INVENTORY)"; ok=1; }
  return $ok
}

case "$cmd" in
  up)
    require_root_and_netns
    do_up
    ;;
  down)
    require_root_and_netns
    exec 9>"$LOCK"
    flock -w 120 9 || die "another cluster.sh holds $LOCK"
    do_down
    ;;
  status)
    require_root_and_netns
    do_status
    ;;
  inventory)
    write_inventory
    ;;
  data-disk)
    [[ $# -ge 1 ]] || { echo "ERROR: data-disk needs a node (${NODES[*]})" >&2; exit 2; }
    require_root_and_netns
    exec 9>"$LOCK"
    flock -w 120 9 || die "another cluster.sh holds $LOCK"
    do_data_disk "$@"
    ;;
  exec)
    [[ $# -ge 1 ]] || { echo "ERROR: exec needs a command" >&2; exit 2; }
    require_root_and_netns
    ns_exists "$CTL" || die "no $CTL namespace: run $0 up first"
    exec ip netns exec "$CTL" "$@"
    ;;
  *)
    echo "ERROR: unknown command '$cmd' (up|down|status|inventory|exec|data-disk)" >&2
    usage >&2
    exit 2
    ;;
esac
