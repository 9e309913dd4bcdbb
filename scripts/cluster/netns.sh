#!/usr/bin/env bash
# A two-node cluster on one machine, for Open MPI over TCP (root only).
#
# Each node is a network namespace with its own hostname (UTS namespace): node-a at
# 10.77.0.1 and node-b at 10.77.0.2, both plugged into a bridge (the "switch") that also
# gives this machine, the "login node", the address 10.77.0.254. WB_NODES=4 (2 to 8)
# makes more nodes: node-c at 10.77.0.3, node-d at 10.77.0.4 and so on. Shared memory cannot cross
# between nodes, so ranks on different nodes talk TCP; mpirun starts its daemons on the
# nodes through scripts/cluster/netns-rsh (which enters a node's namespaces) instead of ssh.
#
#   scripts/cluster/netns.sh up          create it (idempotent: an old one is removed first)
#   scripts/cluster/netns.sh down        remove it, killing whatever runs inside
#   scripts/cluster/netns.sh run CMD...  up, CMD with the cluster's settings, down (always)
#   scripts/cluster/netns.sh env         the settings that point mpirun at it (to source)
#   scripts/cluster/netns.sh shape NODE rate=100mbit|delay=2ms   slow what NODE sends (tc)
#   scripts/cluster/netns.sh shape NODE rate=100mbit,to=NODE2    only what it sends NODE2
#   scripts/cluster/netns.sh link NODE1 NODE2 rate=1gbit          one slow link, both ways
#   scripts/cluster/netns.sh unshape NODE                         undo it
#   scripts/cluster/netns.sh shaped      each node's shaping (tc qdisc), or "none"
#
# Expect `up` to take well under a second; `run make run CH=00` shows ranks 0, 1 on
# node-a and 2, 3 on node-b. Everything lives under /run/workbook-cluster.
set -euo pipefail

RUN=/run/workbook-cluster
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
N=${WB_NODES:-2}
[[ $N =~ ^[2-8]$ ]] || { echo "netns.sh: WB_NODES=$N: the cluster has 2 to 8 nodes" >&2; exit 1; }
NODES=()
declare -A IP=()
for i in $(seq "$N"); do
  node=node-$(printf "\\x$(printf %x $((96 + i)))")
  NODES+=("$node")
  IP[$node]=10.77.0.$i
done
# Once a cluster is up, the other commands take its nodes, whatever WB_NODES says now.
if [[ ${1:-} =~ ^(shape|link|unshape|shaped|env)$ ]] && [ -s "$RUN/nodes" ]; then
  NODES=()
  IP=()
  while read -r addr node; do NODES+=("$node"); IP[$node]=$addr; done < "$RUN/nodes"
  N=${#NODES[@]}
fi
BRIDGE=wbbr0
LOGIN_IP=10.77.0.254

die() { echo "netns.sh: $*" >&2; exit 1; }

# The settings that make mpirun use the cluster: the hostfile, the remote shell, TCP
# between nodes (shared memory within one), and only the cluster's link. Both "nodes"
# share this machine's cores, which neither daemon knows: each would bind its first rank
# to core 0, so two busy-polling ranks would share one core (4 ms ping-pong, measured),
# and with 2 ranks per node neither sees that 4 ranks share 2 cores, so they would spin
# instead of yielding (a 128 B allreduce took 12 ms). So: no binding, and yield when idle,
# as Open MPI does by itself for 4 ranks on one 2-core node (both can be overridden: e.g.
# OMPI_MCA_mpi_yield_when_idle=0 for 2 ranks, one per core).
settings() {
  cat <<SETTINGS
export HOSTFILE=$RUN/hosts
export OMPI_MCA_plm_rsh_agent=$RUN/netns-rsh
export OMPI_MCA_btl=tcp,vader,self
export OMPI_MCA_btl_tcp_if_include=10.77.0.0/24
export OMPI_MCA_oob_tcp_if_include=10.77.0.0/24
export OMPI_MCA_hwloc_base_binding_policy=\${OMPI_MCA_hwloc_base_binding_policy:-none}
export OMPI_MCA_mpi_yield_when_idle=\${OMPI_MCA_mpi_yield_when_idle:-1}
SETTINGS
  # More than two nodes: ranks go round the nodes (rank r on node r mod N), one per node
  # first, so that a slow link between two nodes is a link between two given ranks.
  if [ "$N" -gt 2 ]; then echo "export MPIRUN_ARGS=\${MPIRUN_ARGS:---map-by node}"; fi
}

down() {
  local node
  # Every node a cluster of any size may have left, whatever WB_NODES says now.
  for node in node-{a..h}; do
    if ip netns list 2>/dev/null | grep -qw "wb-$node"; then
      # Whatever still runs inside a node dies with it (nothing should, after a job).
      for pid in $(ip netns pids "wb-$node" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
      ip netns del "wb-$node" 2>/dev/null || true
    fi
    # The nodes share this machine's /tmp and /dev/shm: what Open MPI kept there under a
    # node's hostname (its session folder, its shared-memory segments) goes with the node.
    rm -rf /tmp/ompi."$node".* /dev/shm/vader_segment."$node".*
    ip link del "wb-$node" 2>/dev/null || true
    if [ -e "$RUN/uts/$node" ]; then umount "$RUN/uts/$node" 2>/dev/null || true; fi
  done
  ip link del "$BRIDGE" 2>/dev/null || true
  rm -rf "$RUN"
}

up() {
  [ "$(id -u)" = 0 ] || die "needs root (network namespaces): run as root or with sudo"
  command -v ip >/dev/null || die "no 'ip' command: apt-get install iproute2"
  command -v nsenter >/dev/null || die "no 'nsenter': apt-get install util-linux"
  down
  mkdir -p "$RUN/uts"
  # Open MPI splits the agent's path on spaces: a copy at a path without any.
  install -m 755 "$HERE/netns-rsh" "$RUN/netns-rsh"
  ip link add "$BRIDGE" type bridge || die "cannot create bridge $BRIDGE (no bridge support in this kernel?)"
  ip addr add "$LOGIN_IP/24" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  : > "$RUN/hosts"
  : > "$RUN/nodes"
  for node in "${NODES[@]}"; do
    ip netns add "wb-$node"
    ip link add "wb-$node" type veth peer name eth0 netns "wb-$node"
    ip link set "wb-$node" master "$BRIDGE" up
    ip -n "wb-$node" addr add "${IP[$node]}/24" dev eth0
    ip -n "wb-$node" link set eth0 up
    ip -n "wb-$node" link set lo up
    touch "$RUN/uts/$node"
    unshare --uts="$RUN/uts/$node" hostname "$node"
    echo "${IP[$node]} slots=2" >> "$RUN/hosts"
    echo "${IP[$node]} $node" >> "$RUN/nodes" # netns-rsh's map from address to node
  done
  settings > "$RUN/env"
  # Each node reaches the other and the login node, or the cluster is no use.
  for node in "${NODES[@]}"; do
    for ip_addr in "${IP[@]}" "$LOGIN_IP"; do
      timeout 5 ip netns exec "wb-$node" bash -c "exec 3<>/dev/tcp/$ip_addr/9" 2>/dev/null || true
    done
    got=$(nsenter --net="/run/netns/wb-$node" --uts="$RUN/uts/$node" hostname)
    [ "$got" = "$node" ] || die "node $node has hostname '$got'"
  done
  local list=() node
  for node in "${NODES[@]}"; do list+=("$node ${IP[$node]}"); done
  echo "netns.sh: cluster up: $(IFS=,; echo "${list[*]}" | sed 's/,/, /g') (2 slots each); hostfile $RUN/hosts"
}

# Traffic shaping with tc (iproute2), on the node's own eth0, inside its namespace: what
# NODE sends goes at the rate (a tbf qdisc) and/or waits the delay (netem, which takes a
# rate too), so a round trip to NODE gains the delay once. With to=NODE2 only what NODE
# sends to NODE2 is slowed (an htb qdisc: a class at the rate for NODE2's address, picked
# by a u32 filter, and an unlimited class for the rest); shaping both ends that way makes
# one slow link between two nodes, both ways. Each call for another NODE2 adds a class.
# The qdisc lives and dies with the namespace: `down` (and so every EXIT trap that calls
# it) removes it with the node. Some kernels lack netem (CONFIG_NET_SCH_NETEM unset); tbf
# and htb are more common.
shape() {
  local node=${1:-} spec=${2:-} delay="" rate="" to="" part
  [ -n "${IP[$node]:-}" ] || die "shape which node? one of: ${NODES[*]}"
  ip netns list 2>/dev/null | grep -qw "wb-$node" || die "node $node is not up (scripts/cluster/netns.sh up)"
  command -v tc >/dev/null || die "no 'tc' command: apt-get install iproute2"
  IFS=, read -ra parts <<< "$spec"
  for part in "${parts[@]}"; do
    case $part in
      delay=*) delay=${part#delay=} ;;
      rate=*) rate=${part#rate=} ;;
      to=*) to=${part#to=} ;;
      *) die "shape: '$part' is neither delay=TIME, rate=RATE nor to=NODE (e.g. delay=2ms or rate=100mbit,to=node-c)" ;;
    esac
  done
  [ -n "$delay$rate" ] || die "shape $node how? e.g. delay=2ms or rate=100mbit"
  local tcn=(ip netns exec "wb-$node" tc)
  if [ -n "$to" ]; then
    [ -n "${IP[$to]:-}" ] && [ "$to" != "$node" ] || die "shape $node to=$to: to one of the other nodes: ${NODES[*]}"
    [ -z "$delay" ] && [ -n "$rate" ] || die "shape $node to=$to: only rate=RATE with to= (htb has no delay)"
    local class=1:$((10 + ${IP[$to]##*.}))
    if ! "${tcn[@]}" qdisc show dev eth0 | grep -q "^qdisc htb 1: root"; then
      "${tcn[@]}" qdisc replace dev eth0 root handle 1: htb default 1 r2q 1000 \
        || die "tc could not add htb on $node"
      "${tcn[@]}" class add dev eth0 parent 1: classid 1:1 htb rate 100gbit burst 1mb quantum 60000
    fi
    "${tcn[@]}" class replace dev eth0 parent 1: classid "$class" htb rate "$rate" burst 16kb quantum 60000 \
      || die "tc could not add an htb class on $node (rate=$rate: e.g. rate=100mbit)"
    "${tcn[@]}" filter add dev eth0 parent 1: protocol ip prio 1 u32 match ip dst "${IP[$to]}/32" \
      flowid "$class" || die "tc could not add a u32 filter on $node (no cls_u32 in this kernel?)"
    echo "netns.sh: $node shaped: what it sends $to (${IP[$to]}) at $rate"
    return
  fi
  if [ -n "$delay" ]; then
    "${tcn[@]}" qdisc replace dev eth0 root netem delay "$delay" ${rate:+rate "$rate"} \
      || die "tc could not add netem on $node: this kernel has no netem? (rate= alone uses tbf)"
  else
    # A queue of 100 ms at the rate: a burst of messages waits, none is dropped.
    "${tcn[@]}" qdisc replace dev eth0 root tbf rate "$rate" burst 64kb latency 100ms \
      || die "tc could not add tbf on $node (rate=$rate: e.g. rate=100mbit)"
  fi
  echo "netns.sh: $node shaped: $("${tcn[@]}" qdisc show dev eth0 | head -1)"
}

unshape() {
  local node=${1:-}
  [ -n "${IP[$node]:-}" ] || die "unshape which node? one of: ${NODES[*]}"
  ip netns exec "wb-$node" tc qdisc del dev eth0 root 2>/dev/null || true
}

# One line per node that is up: its shaping qdiscs (netem, tbf, htb), or "none".
shaped() {
  local node q
  for node in "${NODES[@]}"; do
    ip netns list 2>/dev/null | grep -qw "wb-$node" || continue
    q=$(ip netns exec "wb-$node" tc qdisc show 2>/dev/null | grep -E "netem|tbf|htb" || true)
    echo "$node: ${q:-none}"
  done
}

case "${1:-}" in
  up) up ;;
  shape) shape "${2:-}" "${3:-}" ;;
  link)
    [[ ${4:-} == rate=* ]] || die "link NODE1 NODE2 rate=RATE (e.g. link node-b node-c rate=1gbit)"
    shape "${2:-}" "$4,to=${3:-}" && shape "${3:-}" "$4,to=${2:-}" ;;
  unshape) unshape "${2:-}"; echo "netns.sh: ${2} unshaped" ;;
  shaped) shaped ;;
  down) down; echo "netns.sh: cluster removed" ;;
  env) settings ;;
  run)
    shift
    [ $# -gt 0 ] || die "run what? e.g. scripts/cluster/netns.sh run make run CH=00"
    up
    trap 'down; echo "netns.sh: cluster removed"' EXIT
    eval "$(settings)"
    "$@"
    ;;
  *) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 2 ;;
esac
