#!/usr/bin/env bash
# The engine under the PE write commands measured on Apache HBase 2.6.4 standalone on a 2-core VM
# (about 12,000 puts/s with P99.9 about 7 ms for single puts, about 77,000 rows/s with
# --multiPut=100; 8 threads, 200-byte values, presplit 16). Starts a fresh region server with one
# profile on a free port in a temporary directory, runs a warm-up, the single-put and the batch run,
# prints each run's throughput and P99.9, and stops the server.
# The read target: Apache HBase serves about 35,000 random gets/s from its block cache
# (PE randomRead, 8 threads, after a major compaction); the engine's target is 2x that with no GC pause
# above 50 ms. After the writes, the table is flushed and major-compacted (reads come from one store file
# per region through the block cache), one randomRead pass warms the cache, and the measured randomRead pass reports throughput, P99.9 and the longest GC
# pause of the server during it (gc-events.jsonl).
#
#   engine/bench/pe-vs-hbase.sh [PROFILE] [OUT_DIR] [MODE]  defaults: hbase2-offheap,
#                                                           results/runs/pe-vs-hbase-<UTC>, all
#   MODE: writes (the issue-3 runs), reads (load, flush, warm, measure randomRead), all (both)
#   EXTRA_OPTS="-XX:StartFlightRecording=..."               extra server JVM flags
#   SITE="hbase.rpc.server.impl=SimpleRpcServer ..."         extra engine-site keys (key=value, space-separated)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
PROFILE=${1:-hbase2-offheap}
OUT=${2:-$ROOT/results/runs/pe-vs-hbase-$(date -u +%Y%m%dT%H%M%SZ)}
MODE=${3:-all}
case "$MODE" in writes|reads|all) ;; *) echo "ERROR: MODE must be writes, reads or all, got '$MODE'" >&2; exit 2;; esac
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
python3 - "$DIST/conf/profiles/$PROFILE.xml" "$ENGINE_CONF_DIR/engine-site.xml" "$BASE/data" "$PORT" "${SITE:-}" <<'PY'
import sys
import xml.etree.ElementTree as ET
src, dst, root, port, site = sys.argv[1:]
tree = ET.parse(src)
overrides = [("hbase.rootdir", root), ("hbase.regionserver.port", port)]
if any(p.findtext("name") == "hbase.bucketcache.ioengine" for p in tree.getroot().iter("property")):
    overrides.append(("hbase.bucketcache.size", "1024"))  # the whole read table stays cached
for pair in site.split():
    key, sep, value = pair.partition("=")
    if not sep or not key:
        sys.exit(f"ERROR: SITE wants key=value pairs, got '{pair}'")
    overrides.append((key, value))
for key, value in overrides:
    prop = ET.SubElement(tree.getroot(), "property")
    ET.SubElement(prop, "name").text = key
    ET.SubElement(prop, "value").text = value
tree.write(dst)
PY
# A 4 GB heap as HBase standalone would get on a 16 GB node; direct memory for the request-buffer pool
# and a 1 GB BucketCache.
printf '%s\n' -Xms4g -Xmx4g -XX:+UseG1GC -XX:MaxDirectMemorySize=2g ${EXTRA_OPTS:-} > "$ENGINE_CONF_DIR/jvm.options"
"$DIST/bin/engine-daemon" start regionserver
trap '"$DIST/bin/engine-daemon" stop regionserver; cp -r "$ENGINE_LOG_DIR" "$OUT/server-logs"; rm -rf "$BASE"' EXIT
PE=("$DIST/bin/engine" pe --nomapred --oneCon=true --valueSize=200 --presplit=16 --autoFlush=true)
RUNS=()
if [[ "$MODE" != reads ]]; then
  echo "warm-up: 8 x 20000 single puts"
  "${PE[@]}" --rows=20000 randomWrite 8 > "$OUT/warmup.out"
  echo "single put: 8 x 100000"
  "${PE[@]}" --report="$OUT/single" --rows=100000 randomWrite 8 > "$OUT/single.out"
  echo "batch put: 8 x 400000, --multiPut=100"
  "${PE[@]}" --report="$OUT/batch" --rows=400000 --multiPut=100 randomWrite 8 > "$OUT/batch.out"
  RUNS+=(single batch)
fi
if [[ "$MODE" != writes ]]; then
  echo "read table: 8 x 100000 rows, --multiPut=100, flushed and major-compacted (as the HBase run)"
  "${PE[@]}" --table=ReadTable --rows=100000 --multiPut=100 sequentialWrite 8 > "$OUT/read-load.out"
  "$DIST/bin/engine" admin flush ReadTable > /dev/null
  "$DIST/bin/engine" admin compact ReadTable > /dev/null
  echo "random read warm-up: 8 x 100000 gets"
  "$DIST/bin/engine" pe --nomapred --table=ReadTable --rows=100000 randomRead 8 > "$OUT/read-warmup.out"
  echo "random read: 8 x 100000 gets"
  "$DIST/bin/engine" pe --nomapred --table=ReadTable --rows=100000 --report="$OUT/read" randomRead 8 > "$OUT/read.out"
  "$DIST/bin/engine" admin metrics --report="$OUT/read-metrics" > /dev/null
  RUNS+=(read)
fi
python3 - "$OUT" "$ENGINE_LOG_DIR/gc-events.jsonl" "${RUNS[@]}" <<'PY'
import json
import sys
out, gc_file, runs = sys.argv[1], sys.argv[2], sys.argv[3:]
for name in runs:
    j = json.load(open(f"{out}/{name}.json"))
    line = f"{name}: {j['throughput']:,.0f} rows/s, P99.9 {j['latency_us']['p999'] / 1000:.1f} ms per call"
    if name == "read":
        try:
            pauses = [json.loads(l) for l in open(gc_file) if l.strip()]
        except FileNotFoundError:
            pauses = []
        during = [p["duration_ms"] for p in pauses if j["start_epoch_ms"] <= p["start_epoch_ms"] <= j["end_epoch_ms"]]
        line += f"; {len(during)} GC pauses, longest {max(during, default=0)} ms (target: none above 50 ms)"
        line += f"; {j['throughput'] / 35000:.2f}x Apache HBase's 35,000 gets/s (target 2x)"
    print(line)
PY
echo "results: $OUT"
