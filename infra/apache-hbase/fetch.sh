#!/usr/bin/env bash
# Fetch Apache HBase 2.6 from Maven Central and pack what the apache-hbase variants (lab 11's, the CMS ones)
# deploy:
#   infra/apache-hbase/target/apache-hbase-<version>/{bin/hbase-lab, conf/log4j.properties, lib/*.jar, classes/}
#   infra/apache-hbase/target/apache-hbase-<version>.tar   (what the playbook unpacks on each host)
# Needs Maven and a JDK 17; about 115 MB from Maven Central the first time (then ~/.m2 serves it).
#   infra/apache-hbase/fetch.sh            HBASE_VERSION=2.6.4 by default (the pom's hbase.version)
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=${HBASE_VERSION:-$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$HERE/pom.xml")}
OUT=$HERE/target/apache-hbase-$VERSION
# Built beside the current copy and swapped in only when complete: a failed fetch or compile leaves the
# previous HBase (and the runs that use it) as they were.
NEW=$HERE/target/.building-$VERSION
rm -rf "$NEW"
mkdir -p "$NEW/apache-hbase-$VERSION/bin" "$NEW/apache-hbase-$VERSION/classes" "$NEW/apache-hbase-$VERSION/conf"
DIR=$NEW/apache-hbase-$VERSION
echo "fetching Apache HBase $VERSION jars from Maven Central into $OUT/lib"
mvn -B -q -f "$HERE/pom.xml" package -Dhbase.version="$VERSION" -Dhbase.lib.dir="$DIR/lib"
# --release 11: the CMS variants run HBase, and so LabAdmin, on a JDK 11 (docs/apache-hbase.md).
# LabPeCommands (PE's commands with an interval log) writes its log with the engine's own IntervalLog.
# LabAdmin splits a YCSB table with the engine's own YcsbKeys (create --splits=ycsb).
echo "compiling LabAdmin and LabPeCommands against them (Java 11 class files)"
TOOLS=$HERE/../../engine/tools/src/main/java/org/heaplab/tools
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" --release 11 -nowarn -d "$DIR/classes" -cp "$DIR/lib/*" \
  "$HERE"/src/org/heaplab/hbase/*.java "$HERE"/src/org/apache/hadoop/hbase/*.java \
  "$TOOLS/IntervalLog.java" "$TOOLS/YcsbKeys.java"
# The YCSB binding (hbase-lab ycsb) runs inside the engine's YCSB launcher (the real YCSB core, the
# increment workload, the --report files), so it compiles against the built engine's jars, for Java 17.
ENGINE_LIB=$(ls -d "$HERE"/../../engine/dist/target/heaplab-engine-*/lib 2>/dev/null | head -n 1)
if [[ -z "$ENGINE_LIB" ]]; then
  echo "ERROR: the engine is not built (engine/dist/target/heaplab-engine-*/lib): run make engine first" >&2
  exit 1
fi
echo "compiling the YCSB binding against them and the engine's YCSB launcher (Java 17 class files)"
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" --release 17 -nowarn -d "$DIR/classes" -cp "$DIR/lib/*:$ENGINE_LIB/*" \
  "$HERE"/src/org/heaplab/hbase/ycsb/*.java
cp "$HERE/bin/hbase-lab" "$DIR/bin/"
cp "$HERE"/conf/log4j.properties "$DIR/conf/"
tar -C "$NEW" -cf "$NEW/apache-hbase-$VERSION.tar" "apache-hbase-$VERSION"
rm -rf "$OUT" "$OUT.tar"
mv "$DIR" "$OUT"
mv "$NEW/apache-hbase-$VERSION.tar" "$OUT.tar"
rmdir "$NEW"
echo "packed $OUT.tar ($(du -h "$OUT.tar" | cut -f1), $(ls "$OUT/lib" | wc -l) jars)"
