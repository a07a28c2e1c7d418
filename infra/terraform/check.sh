#!/usr/bin/env bash
# The offline terraform checks `make test` runs (through infra/tests/test_terraform.py) and
# `make infra-check` runs alone: fmt, then per configuration init, validate and `terraform test` with a
# mocked AWS provider. No AWS account and no network are needed where a provider mirror exists.
# Prints "check <what>: <seconds> s" per step; exits non-zero at the first failure.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
tf="$here/tf"

step() { # step <label> <command...>
  local label="$1" start ms
  shift
  start=$(date +%s%N)
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    echo "check $label: FAILED" >&2
    exit 1
  fi
  ms=$((($(date +%s%N) - start) / 1000000))
  printf 'check %s: %d.%d s\n' "$label" $((ms / 1000)) $((ms % 1000 / 100))
}

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

# The Alibaba Cloud module is only formatted: its provider is not in the offline mirror (alicloud/README.md).
step "fmt" "$tf" fmt -check -recursive -diff "$here"
for config in modules/aws-cluster student class netease-hosts; do
  step "$config init" "$tf" -chdir="$here/$config" init -backend=false -input=false -no-color
  step "$config validate" "$tf" -chdir="$here/$config" validate -no-color
  step "$config test" "$tf" -chdir="$here/$config" test -no-color
done
echo "check: all terraform checks passed"
