#!/usr/bin/env bash
# Writes each student's inventories from the class's terraform outputs:
#   <dir>/<student>.yml (the whole cluster) and <dir>/<student>-single.yml (one region server, one client).
# Usage: infra/terraform/class/write-inventories.sh [dir]     (default: infra/terraform/class/inventories)
# Hand each student their two files; they hold addresses and a key PATH, never a key.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:-$here/inventories}"

outputs="$("$here/../tf" -chdir="$here" output -json)" || {
  echo "ERROR: no terraform outputs in $here: run 'infra/terraform/tf -chdir=infra/terraform/class apply' first" >&2
  exit 1
}
mkdir -p "$out"
HEAPLAB_TF_OUTPUTS="$outputs" python3 - "$out" <<'PY'
import json, os, sys
from pathlib import Path

out = Path(sys.argv[1])
outputs = json.loads(os.environ["HEAPLAB_TF_OUTPUTS"])
if "ansible_inventories" not in outputs:
    sys.exit("ERROR: the class configuration has no ansible_inventories output: apply it first")
for kind, suffix in (("ansible_inventories", ""), ("ansible_inventories_single", "-single")):
    for student, text in sorted(outputs[kind]["value"].items()):
        path = out / f"{student}{suffix}.yml"
        path.write_text(text)
        path.chmod(0o600)
        print(f"wrote {path}")
PY
