#!/usr/bin/env bash
# A throw-away 3-node MariaDB Galera cluster on loopback, for checking the store's claims with
# replicas writing to different nodes (README "Reliability" → Galera). Never touches the system
# server: every node has its own datadir, socket and ports under $GALERA_DIR.
#
#   deploy/galera/cluster.sh start    # bootstrap node 1, join nodes 2 and 3 (rsync SST)
#   deploy/galera/cluster.sh dsns     # the three DSNs, comma-separated (TEST_GALERA_DSNS)
#   deploy/galera/cluster.sh status   # wsrep_cluster_size and state of each node
#   deploy/galera/cluster.sh stop     # stop the nodes (by their pid files) and delete $GALERA_DIR
#
# Needs mariadb-server (wsrep built in) and galera-4 (apt-get install -y galera-4), rsync.
# Node i (1..3) listens for SQL on 127.0.0.1:$((GALERA_PORT+i-1)) (user rpe, no password),
# Galera on 24567+10i, IST on 24568+10i, SST on 24569+10i.
set -euo pipefail

GALERA_DIR=${GALERA_DIR:-/tmp/rpe-galera}
GALERA_PORT=${GALERA_PORT:-23306}
PROVIDER=${GALERA_PROVIDER:-/usr/lib/galera/libgalera_smm.so}
GALERA_USER=${GALERA_USER:-mysql}
NODES=(1 2 3)

gport() { echo $((24567 + 10 * $1)); }
sqlport() { echo $((GALERA_PORT + $1 - 1)); }
sock() { echo "$GALERA_DIR/node$1.sock"; }
cli() { mariadb --no-defaults -uroot --socket="$(sock "$1")" -N -B "${@:2}"; }

config() {
  local i=$1 peers="" j
  for j in "${NODES[@]}"; do peers+="${peers:+,}127.0.0.1:$(gport "$j")"; done
  cat >"$GALERA_DIR/node$i.cnf" <<CNF
[mysqld]
datadir=$GALERA_DIR/node$i
socket=$(sock "$i")
port=$(sqlport "$i")
bind-address=127.0.0.1
pid-file=$GALERA_DIR/node$i.pid
log-error=$GALERA_DIR/node$i.err
skip-name-resolve
innodb_buffer_pool_size=32M
innodb_log_file_size=16M
performance_schema=OFF
binlog_format=ROW
default_storage_engine=InnoDB
innodb_autoinc_lock_mode=2
wsrep_on=ON
wsrep_provider=$PROVIDER
wsrep_cluster_name=rpe_galera
wsrep_cluster_address=gcomm://$peers
wsrep_node_name=node$i
wsrep_node_address=127.0.0.1:$(gport "$i")
wsrep_node_incoming_address=127.0.0.1:$(sqlport "$i")
wsrep_provider_options="gmcast.listen_addr=tcp://127.0.0.1:$(gport "$i");ist.recv_addr=127.0.0.1:$(($(gport "$i") + 1));gcache.size=64M"
wsrep_sst_method=rsync
wsrep_sst_receive_address=127.0.0.1:$(($(gport "$i") + 2))
CNF
}

wait_synced() {
  local i=$1 pid=$2 n
  for n in $(seq 1 180); do
    if [ "$(cli "$i" -e "SHOW STATUS LIKE 'wsrep_local_state_comment'" 2>/dev/null | cut -f2)" = Synced ]; then return 0; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 1
  done
  echo "galera: node $i did not reach Synced; last lines of its log:" >&2
  tail -n 30 "$GALERA_DIR/node$i.err" >&2 || true
  return 1
}

start() {
  mkdir -p "$GALERA_DIR"
  local i
  for i in "${NODES[@]}"; do
    config "$i"
    mkdir -p "$GALERA_DIR/node$i"
  done
  # The nodes run as $GALERA_USER, not root: the rsync SST daemon a joiner starts would
  # otherwise drop to "nobody" and fail to write the joiner's datadir.
  chown -R "$GALERA_USER" "$GALERA_DIR"
  mariadb-install-db --no-defaults --datadir="$GALERA_DIR/node1" --user="$GALERA_USER" \
    --auth-root-authentication-method=normal --skip-test-db >"$GALERA_DIR/install.log" 2>&1
  for i in "${NODES[@]}"; do
    local extra=()
    [ "$i" = 1 ] && extra=(--wsrep-new-cluster)
    mariadbd --defaults-file="$GALERA_DIR/node$i.cnf" --user="$GALERA_USER" "${extra[@]}" >>"$GALERA_DIR/node$i.out" 2>&1 &
    wait_synced "$i" $!
    if [ "$i" = 1 ]; then
      cli 1 -e "CREATE USER IF NOT EXISTS 'rpe'@'127.0.0.1'; GRANT ALL ON *.* TO 'rpe'@'127.0.0.1'"
    fi
  done
  status
}

dsns() {
  local out="" i
  for i in "${NODES[@]}"; do out+="${out:+,}rpe@tcp(127.0.0.1:$(sqlport "$i"))/razorpay_erpnext_galera?parseTime=true"; done
  echo "$out"
}

status() {
  local i
  for i in "${NODES[@]}"; do
    echo "node$i 127.0.0.1:$(sqlport "$i") $(cli "$i" -e "SHOW STATUS WHERE Variable_name IN ('wsrep_cluster_size','wsrep_local_state_comment')" | tr '\t\n' '= ')"
  done
}

stop() {
  local i pid
  for i in "${NODES[@]}"; do
    pid=$(cat "$GALERA_DIR/node$i.pid" 2>/dev/null || true)
    [ -n "$pid" ] && kill "$pid" 2>/dev/null || true
  done
  for i in "${NODES[@]}"; do
    pid=$(cat "$GALERA_DIR/node$i.pid" 2>/dev/null || true)
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.5; done
  done
  rm -rf "$GALERA_DIR"
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  dsns) dsns ;;
  *) echo "usage: $0 start|stop|status|dsns" >&2; exit 2 ;;
esac
