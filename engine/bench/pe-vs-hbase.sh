#!/usr/bin/env bash
# The engine under the PE write commands measured on Apache HBase 2.6.4 standalone on a 2-core VM
# (issue 3: about 12,000 puts/s with P99.9 about 7 ms for single puts, about 77,000 rows/s with
# --multiPut=100; 8 threads, 200-byte values, presplit 16). Starts a fresh region server with one
# profile on a free port in a temporary directory, runs a warm-up, the single-put and the batch run,
# prints each run's throughput and P99.9, and stops the server.
#
#   engine/bench/pe-vs-hbase.sh [PROFILE] [OUT_DIR]     default: hbase2-offheap, results/runs/pe-vs-hbase-<UTC>
#   EXTRA_OPTS="-XX:StartFlightRecording=..."           extra server JVM flags
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROFILE=${1:-hbase2-offheap}
OUT=${2:-$ROOT/results/runs/pe-vs-hbase-$(date -u +%Y%m%dT%H%M%SZ)}
DIST=$(ls -d "$ROOT"/engine/dist/target/heaplab-engine-*/ 2>/dev/null | head -1)
[[ -n "$DIST" ]] || { echo "ERROR: no engine distribution: run 'make engine' first" >&2; exit 2; }
[[ -f "$DIST/conf/profiles/$PROFILE.xml" ]] || {
  echo "ERROR: unknown profile '$PROFILE' (have: $(cd "$DIST/conf/profiles" && ls | sed 's/\.xml$//' | tr '\n' ' '))" >&2; exit 2; }
mkdir -p "$OUT"
BASE=$(mktemp -d "${TMPDIR:-/var/tmp}/pe-vs-hbase.XXXX")
export ENGINE_CONF_DIR=$BASE/conf ENGINE_LOG_DIR=$BASE/logs
mkdir -p "$ENGINE_CONF_DIR" "$ENGINE_LOG_DIR"
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("", 0)); print(s.getsockname()[1])')
# The profile plus this run's data directory and port.
python3 - "$DIST/conf/profiles/$PROFILE.xml" "$ENGINE_CONF_DIR/engine-site.xml" "$BASE/data" "$PORT" <<'PY'
import sys
import xml.etree.ElementTree as ET
src, dst, root, port = sys.argv[1:]
tree = ET.parse(src)
for key, value in (("hbase.rootdir", root), ("hbase.regionserver.port", port)):
    prop = ET.SubElement(tree.getroot(), "property")
    ET.SubElement(prop, "name").text = key
    ET.SubElement(prop, "value").text = value
tree.write(dst)
PY
# A 4 GB heap as HBase standalone would get on a 16 GB node; direct memory for the request-buffer pool.
printf '%s\n' -Xms4g -Xmx4g -XX:+UseG1GC -XX:MaxDirectMemorySize=1g ${EXTRA_OPTS:-} > "$ENGINE_CONF_DIR/jvm.options"
"$DIST/bin/engine-daemon" start regionserver
trap '"$DIST/bin/engine-daemon" stop regionserver; cp -r "$ENGINE_LOG_DIR" "$OUT/server-logs"; rm -rf "$BASE"' EXIT
PE=("$DIST/bin/engine" pe --nomapred --oneCon=true --valueSize=200 --presplit=16 --autoFlush=true)
echo "warm-up: 8 x 20000 single puts"
"${PE[@]}" --rows=20000 randomWrite 8 > "$OUT/warmup.out"
echo "single put: 8 x 100000"
"${PE[@]}" --report="$OUT/single" --rows=100000 randomWrite 8 > "$OUT/single.out"
echo "batch put: 8 x 400000, --multiPut=100"
"${PE[@]}" --report="$OUT/batch" --rows=400000 --multiPut=100 randomWrite 8 > "$OUT/batch.out"
python3 - "$OUT" <<'PY'
import json
import sys
for name in ("single", "batch"):
    j = json.load(open(f"{sys.argv[1]}/{name}.json"))
    print(f"{name}: {j['throughput']:,.0f} rows/s, P99.9 {j['latency_us']['p999'] / 1000:.1f} ms per call")
PY
echo "results: $OUT"
