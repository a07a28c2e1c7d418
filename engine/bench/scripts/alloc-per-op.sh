#!/usr/bin/env bash
# Heap bytes the region server allocates and copies per operation, on each profile (engine/docs/allocation.md).
#
#   engine/bench/scripts/alloc-per-op.sh [OUT_DIR]        (default /tmp/heaplab-alloc)
#
# For each variant below: a fresh region server started with bin/engine-daemon (its profile merged
# into engine-site.xml, lab 03's ci JVM: G1, 256 MB heap, 48 MB young generation), a table of 4
# regions, a warm-up, then three measured pe runs with --report: single puts, batches of 100 puts and
# random gets, THREADS clients x ROWS rows each, 200-byte values. Each pe summary carries the server's
# METRICS right before and after its measured calls (server_metrics); alloc_table.py turns them into
# bytes per row and per call. The client runs in its own JVM, so none of its allocation is counted.
#
# Variants: hbase1-onheap, hbase2-offheap (profiles as shipped), hbase2-offheap-min0 (minimal.allocate.size
# 0), hbase2-offheap-simple (SimpleRpcServer instead of Netty: the minimal size applies to its requests),
# hbase2-offheap-simple-min0 (both).
# Environment: ENGINE (the distribution, default engine/dist/target/heaplab-engine-0.1.0), THREADS (64),
# ROWS (3000), PORT (26020; a free port, so as not to meet another engine on 16020), VARIANTS (all).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ENGINE="$(cd "${ENGINE:-$here/../../dist/target/heaplab-engine-0.1.0}" && pwd)"
OUT="${1:-/tmp/heaplab-alloc}"
THREADS="${THREADS:-64}"
ROWS="${ROWS:-3000}"
PORT="${PORT:-26020}"
VARIANTS="${VARIANTS:-hbase1-onheap hbase2-offheap hbase2-offheap-min0 hbase2-offheap-simple hbase2-offheap-simple-min0}"

# variant -> profile and engine-site overrides (key=value ...)
profile_of() {
  case "$1" in
    hbase1-onheap) echo hbase1-onheap ;;
    hbase2-offheap*) echo hbase2-offheap ;;
    *) echo "ERROR: unknown variant $1" >&2; exit 2 ;;
  esac
}
overrides_of() {
  case "$1" in
    hbase2-offheap-min0) echo "hbase.server.allocator.minimal.allocate.size=0" ;;
    hbase2-offheap-simple) echo "hbase.rpc.server.impl=SimpleRpcServer" ;;
    hbase2-offheap-simple-min0) echo "hbase.rpc.server.impl=SimpleRpcServer hbase.server.allocator.minimal.allocate.size=0" ;;
    *) echo "" ;;
  esac
}

# engine-site.xml = the shipped one, the profile's properties, then ours (later wins)
merge_site() {
  python3 - "$ENGINE/conf/engine-site.xml" "$ENGINE/conf/profiles/$1.xml" "$2" <<'PY'
import sys
import xml.etree.ElementTree as ET
props = {}
for path in sys.argv[1:3]:
    for p in ET.parse(path).getroot().iter("property"):
        props[p.findtext("name")] = p.findtext("value")
for kv in sys.argv[3].split():
    k, _, v = kv.partition("=")
    props[k] = v
print("<?xml version=\"1.0\"?>\n<configuration>")
for k, v in props.items():
    print(f"  <property><name>{k}</name><value>{v}</value></property>")
print("</configuration>")
PY
}

total_rows=$((THREADS * ROWS))
summaries=()
for variant in $VARIANTS; do
  dir="$OUT/$variant"
  rm -rf "$dir"
  mkdir -p "$dir/conf" "$dir/logs"
  export ENGINE_CONF_DIR="$dir/conf" ENGINE_LOG_DIR="$dir/logs"
  merge_site "$(profile_of "$variant")" "hbase.rootdir=$dir/data hbase.regionserver.port=$PORT \
    hbase.regionserver.global.memstore.size=0.35 $(overrides_of "$variant")" > "$dir/conf/engine-site.xml"
  printf '%s\n' -Xms256m -Xmx256m -Xmn48m -XX:+UseG1GC -XX:MaxDirectMemorySize=256m > "$dir/conf/jvm.options"
  "$ENGINE/bin/engine-daemon" start regionserver
  trap '"$ENGINE/bin/engine-daemon" stop regionserver >/dev/null' EXIT
  pe() { # pe NAME FLAGS...: stdout and stderr in logs/pe-NAME.out
    local name="$1"
    shift
    ENGINE_OPTS="-Xmx1g -XX:+UseG1GC" "$ENGINE/bin/engine" pe --nomapred --oneCon=true --valueSize=200 \
      --autoFlush=true --presplit=4 "$@" > "$dir/logs/pe-$name.out" 2>&1
  }
  "$ENGINE/bin/engine" admin create TestTable --presplit=4 --rows="$total_rows" > /dev/null
  pe warmup --rows=500 randomWrite "$THREADS"                                   # JIT, pools, regions
  pe single_put --rows="$ROWS" --report="$dir/single_put" randomWrite "$THREADS"
  pe batch_put --rows="$ROWS" --multiPut=100 --report="$dir/batch_put" randomWrite "$THREADS"
  pe random_read --rows="$ROWS" --report="$dir/random_read" randomRead "$THREADS"
  "$ENGINE/bin/engine-daemon" stop regionserver
  trap - EXIT
  summaries+=("$variant/single_put=$dir/single_put.json" "$variant/batch_put=$dir/batch_put.json"
    "$variant/random_read=$dir/random_read.json")
done
python3 "$here/alloc_table.py" "${summaries[@]}" | tee "$OUT/table.md"
