"""A stand-in for ansible-playbook, for unit tests of `heaplab run`'s orchestration only.

It reads the -e @vars file, prints task lines like ansible does, and leaves hosts/<host>.json and the
variant's client summary the way the real playbooks would.  Behaviour switches (environment):
FAKE_ANSIBLE_FAIL=<variant> fails that variant; FAKE_ANSIBLE_HANG=<marker file> touches the marker and
waits to be stopped.
"""

import json
import os
import sys
import time
from pathlib import Path


def main(argv: list[str]) -> int:
    vars_file = Path(argv[argv.index("-e") + 1].lstrip("@"))
    inventory = argv[argv.index("-i") + 1]
    v = json.loads(vars_file.read_text())
    run_dir, variant = Path(v["heaplab_run_dir"]), v["heaplab_variant"]
    print(f"ARGV {' '.join(argv)}")
    print(f"ANSIBLE_CONFIG={os.environ.get('ANSIBLE_CONFIG')}")
    print(f"INVENTORY={inventory}")
    print("PLAY [Record the hosts and deploy the engine] ****")
    print("TASK [host_facts : Record the host] ****")
    print("ok: [localhost]")
    (run_dir / "hosts").mkdir(exist_ok=True)
    host = {
        "name": "localhost",
        "role": "regionserver,client",
        "cpu_model": "Fake CPU",
        "cores": 8,
        "memory_mb": 16000,
        "disk": "ssd",
        "kernel": "6.8",
        "jdk": "17.0.13",
    }
    (run_dir / "hosts/localhost.json").write_text(json.dumps(host))
    sys.stdout.flush()
    if os.environ.get("FAKE_ANSIBLE_HANG"):
        print("TASK [engine_workload : Run phase single_put] ****", flush=True)
        Path(os.environ["FAKE_ANSIBLE_HANG"]).touch()
        time.sleep(60)
        return 0
    for phase in v["heaplab_phases"]:
        print(f"TASK [engine_workload : Run phase {phase['name']}] ****")
        print("changed: [localhost]")
        print("TASK [engine_workload : Fail when the phase failed] ****")
        print("skipping: [localhost]")
    if os.environ.get("FAKE_ANSIBLE_FAIL") == variant:
        print("fatal: [localhost]: FAILED! => ")
        print("    changed: false")
        print("    msg: engine-daemon start failed")
        print("PLAY RECAP ****")
        print("localhost : ok=3 changed=1 unreachable=0 failed=1")
        return 2
    print("PLAY RECAP ****")
    print("localhost : ok=9 changed=3 unreachable=0 failed=0")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
