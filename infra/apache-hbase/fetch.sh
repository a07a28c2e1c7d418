#!/usr/bin/env bash
# Fetch Apache HBase from Maven Central and pack what the apache-hbase variants (lab 11's, the CMS ones, the
# 1.4 ones) deploy:
#   infra/apache-hbase/target/apache-hbase-<version>/{bin/hbase-lab, conf/log4j.properties, lib/*.jar, classes/,
#                                                     hbase.version}
#   infra/apache-hbase/target/apache-hbase-<version>.tar   (what the playbook unpacks on each host)
# Needs Maven and a JDK 17; about 115 MB from Maven Central the first time (then ~/.m2 serves it).
#   infra/apache-hbase/fetch.sh                        HBASE_VERSION=2.6.4 by default (pom.xml's hbase.version)
#   HBASE_VERSION=1.4.14 infra/apache-hbase/fetch.sh   HBase 1.4 (pom-1.4.xml, src-1.4/; about 75 MB): its jars
#                                                      must match the sha1s pinned in jars-<version>.sha1
set -euo pipefail
HERE=$(cd "$(dirname "$0")" && pwd)
VERSION=${HBASE_VERSION:-$(sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' "$HERE/pom.xml")}
# HBase 1.x has its own modules (no hbase-mapreduce: PE is in hbase-server's tests jar) and client API.
case "$VERSION" in
  1.4.*) POM=$HERE/pom-1.4.xml SRC=$HERE/src-1.4 SHARED=("$HERE/src/org/heaplab/hbase/ServerMetricsReport.java") ;;
  1.*) echo "ERROR: HBase $VERSION: of the 1.x releases only 1.4 is supported (pom-1.4.xml)" >&2; exit 2 ;;
  *) POM=$HERE/pom.xml SRC=$HERE/src SHARED=() ;;
esac
OUT=$HERE/target/apache-hbase-$VERSION
# Built beside the current copy and swapped in only when complete: a failed fetch or compile leaves the
# previous HBase (and the runs that use it) as they were.
NEW=$HERE/target/.building-$VERSION
rm -rf "$NEW"
mkdir -p "$NEW/apache-hbase-$VERSION/bin" "$NEW/apache-hbase-$VERSION/classes" "$NEW/apache-hbase-$VERSION/conf"
DIR=$NEW/apache-hbase-$VERSION
echo "fetching Apache HBase $VERSION jars from Maven Central into $OUT/lib"
mvn -B -q -f "$POM" package -Dhbase.version="$VERSION" -Dhbase.lib.dir="$DIR/lib" -Dhbase.codec.dir="$NEW/codec"
# A version with pinned checksums (every 1.x one) must match them, jar for jar: Maven Central's .sha1 files
# only say a download is whole, not that it is the jar this repository was tested with.
SUMS=$HERE/jars-$VERSION.sha1
if [[ "$VERSION" == 1.* && ! -f "$SUMS" ]]; then
  echo "ERROR: no pinned checksums for HBase $VERSION ($SUMS missing)" >&2; exit 1
fi
if [[ -f "$SUMS" ]]; then
  echo "checking the jars against $(basename "$SUMS")"
  got=$(cd "$NEW" && find apache-hbase-"$VERSION"/lib codec -name '*.jar' 2>/dev/null | sed "s:^apache-hbase-$VERSION/::" | sort)
  want=$(grep -v '^#' "$SUMS" | awk '{print $2}' | sort)
  if [[ "$got" != "$want" ]]; then
    echo "ERROR: the fetched jars are not the pinned list of $(basename "$SUMS"): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | tr '\n' ' ')" >&2
    exit 1
  fi
  while read -r sum jar; do
    file=$NEW/apache-hbase-$VERSION/$jar; [[ "$jar" == codec/* ]] && file=$NEW/$jar
    actual=$(sha1sum "$file" | cut -d' ' -f1)
    if [[ "$actual" != "$sum" ]]; then
      echo "ERROR: $jar has sha1 $actual, not the pinned $sum ($(basename "$SUMS")): a different jar than the one tested; delete it from ~/.m2/repository and fetch again" >&2
      exit 1
    fi
  done < <(grep -v '^#' "$SUMS")
fi
# HBase 1.4's SNAPPY loads org.apache.hadoop.io.compress.SnappyCodec, which in Hadoop 2.7 needs the native
# libhadoop. Hadoop 3.3's class of that name (and its snappy package) compresses through snappy-java, and
# uses only interfaces Hadoop 2.7 has: those classes alone go into lib-first/, which bin/hbase-lab puts
# ahead of lib/ (the rest of Hadoop 3.3 is not taken).
if [[ -d "$NEW/codec" ]]; then
  hadoop3=$(ls "$NEW"/codec/hadoop-common-*.jar)
  mkdir -p "$NEW/codec/classes" "$DIR/lib-first"
  (cd "$NEW/codec/classes" && unzip -q "$hadoop3" 'org/apache/hadoop/io/compress/SnappyCodec.class' \
    'org/apache/hadoop/io/compress/snappy/*')
  "${JAVA_HOME:+$JAVA_HOME/bin/}jar" cf "$DIR/lib-first/$(basename "$hadoop3" .jar)-snappy.jar" -C "$NEW/codec/classes" .
  rm -rf "$NEW/codec"
fi
# --release 11: the CMS variants run HBase, and so LabAdmin, on a JDK 11 (docs/apache-hbase.md).
# LabPeCommands (PE's commands with an interval log) writes its log with the engine's own IntervalLog.
# LabAdmin splits a YCSB table with the engine's own YcsbKeys (create --splits=ycsb). The metrics report
# reads JMX only: 1.4 compiles the same file.
echo "compiling LabAdmin and LabPeCommands against them (Java 11 class files)"
TOOLS=$HERE/../../engine/tools/src/main/java/org/heaplab/tools
"${JAVA_HOME:+$JAVA_HOME/bin/}javac" --release 11 -nowarn -d "$DIR/classes" -cp "$DIR/lib/*" \
  "$SRC"/org/heaplab/hbase/*.java "${SHARED[@]}" \
  "$SRC"/org/apache/hadoop/hbase/*.java "$TOOLS/IntervalLog.java" "$TOOLS/YcsbKeys.java"
# The YCSB binding (hbase-lab ycsb) runs inside the engine's YCSB launcher (the real YCSB core, the
# increment workload, the --report files), so it compiles against the built engine's jars, for Java 17.
# HBase 1.4 variants run no ycsb phase (heaplab.spec): none is compiled for them.
if [[ "$VERSION" != 1.* ]]; then
  ENGINE_LIB=$(ls -d "$HERE"/../../engine/dist/target/heaplab-engine-*/lib 2>/dev/null | head -n 1)
  if [[ -z "$ENGINE_LIB" ]]; then
    echo "ERROR: the engine is not built (engine/dist/target/heaplab-engine-*/lib): run make engine first" >&2
    exit 1
  fi
  echo "compiling the YCSB binding against them and the engine's YCSB launcher (Java 17 class files)"
  "${JAVA_HOME:+$JAVA_HOME/bin/}javac" --release 17 -nowarn -d "$DIR/classes" -cp "$DIR/lib/*:$ENGINE_LIB/*" \
    "$HERE"/src/org/heaplab/hbase/ycsb/*.java
fi
cp "$HERE/bin/hbase-lab" "$DIR/bin/"
cp "$HERE"/conf/log4j.properties "$DIR/conf/"
echo "$VERSION" > "$DIR/hbase.version"  # bin/hbase-lab's version switch (1.x: its own network namespace)
tar -C "$NEW" -cf "$NEW/apache-hbase-$VERSION.tar" "apache-hbase-$VERSION"
rm -rf "$OUT" "$OUT.tar"
mv "$DIR" "$OUT"
mv "$NEW/apache-hbase-$VERSION.tar" "$OUT.tar"
rmdir "$NEW"
echo "packed $OUT.tar ($(du -h "$OUT.tar" | cut -f1), $(ls "$OUT/lib" | wc -l) jars)"
