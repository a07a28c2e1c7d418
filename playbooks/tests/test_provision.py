"""provision.yml on this machine: report mode changes nothing and is idempotent; the data disk role formats
an empty loop device once, mounts it, and never formats it again; bad devices fail with one clear message.

The data-disk test needs root and a usable loop device; it runs ansible inside `unshare --mount` so the
mount never leaves the test (the machine's mount table is untouched). It skips, saying why, otherwise.
"""

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from playbooks.tests.support import (
    LOCAL_INVENTORY,
    PLAYBOOKS,
    REPO,
    WRITTEN_BY_APPLY,
    ansible_env,
    jdk_from_dpkg,
    kernel_state,
    tool,
)


def provision_cmd(*extra):
    # The tests never install a package: without the JDK package the openjdk role is left out.
    skip = [] if jdk_from_dpkg() else ["--skip-tags", "openjdk"]
    return [
        tool("ansible-playbook"),
        "-i",
        str(LOCAL_INVENTORY),
        str(PLAYBOOKS / "provision.yml"),
        *skip,
        *extra,
    ]


def provision(*extra, prefix=()):
    return subprocess.run(
        [*prefix, *provision_cmd(*extra)],
        cwd=REPO,
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


def recap(stdout, host="localhost"):
    """The PLAY RECAP counters of host, e.g. {'ok': 24, 'changed': 0, ...}."""
    line = next(ln for ln in stdout.splitlines() if ln.startswith(host + " ") and "ok=" in ln)
    return {key: int(value) for key, value in re.findall(r"(\w+)=(\d+)", line)}


def test_report_mode_changes_nothing_and_runs_twice_without_changes(tmp_path):
    base = tmp_path / "base"
    before = kernel_state()
    first = provision("-e", f"heaplab_base_dir={base}")
    assert first.returncode == 0, first.stdout[-4000:] + first.stderr[-2000:]
    second = provision("-e", f"heaplab_base_dir={base}")
    assert second.returncode == 0, second.stdout[-4000:]
    assert recap(second.stdout)["changed"] == 0, second.stdout[-4000:]
    if jdk_from_dpkg():  # the JDK package is installed: the apt task is skipped, nothing else happens
        apt_task = "TASK [openjdk : Install the JDK with apt]"
        assert apt_task in second.stdout
        assert "skipping: [localhost]" in second.stdout.split(apt_task)[1][:200]
    assert kernel_state() == before
    record = json.loads((base / "os-settings.json").read_text())
    assert record["mode"] == "report"
    assert record["current"]["vm.swappiness"] == int(Path("/proc/sys/vm/swappiness").read_text())
    assert record["recommended"]["vm.swappiness"] == 1
    assert ("vm.swappiness" in record["differs"]) == (record["current"]["vm.swappiness"] != 1)


def test_apply_mode_in_check_mode_shows_every_file_and_changes_nothing(tmp_path):
    """apply (cloud nodes) must never run on this shared machine; --check --diff shows what it would write.

    Read-only tasks run in check mode too (check_mode: false), so the decisions are the real ones.
    """
    base = tmp_path / "base"
    base.mkdir()
    before = kernel_state()
    done = provision("--check", "--diff", "-e", f"heaplab_base_dir={base}", "-e", "heaplab_os_tuning=apply")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    out = done.stdout
    for line in (
        "+vm.swappiness = 1",
        "+net.core.somaxconn = 4096",
        "+kernel.perf_event_paranoid = 1",
        "+kernel.kptr_restrict = 0",
        "+root soft nofile 65536",
        "+root hard nofile 65536",
        "+w /sys/kernel/mm/transparent_hugepage/enabled - - - - madvise",
        "+w /sys/kernel/mm/transparent_hugepage/defrag - - - - madvise",
    ):
        assert line in out, f"{line!r} not in the diff:\n{out[-4000:]}"
    for path in WRITTEN_BY_APPLY:
        assert f"+++ after: {path}" in out
    assert "TASK [os_settings : Load the sysctl file]" in out
    assert kernel_state() == before


def test_a_bad_device_fails_with_one_clear_message(tmp_path):
    (tmp_path / "disk-a").write_text("")
    (tmp_path / "disk-b").write_text("")
    many = provision(
        "-e", f"heaplab_base_dir={tmp_path}/base", "-e", f"heaplab_data_device={tmp_path}/disk-*"
    )
    assert many.returncode != 0
    flat = " ".join(many.stdout.split())
    assert f"heaplab_data_device '{tmp_path}/disk-*' on localhost resolves to 2 devices" in flat
    plain = provision(
        "-e", f"heaplab_base_dir={tmp_path}/base", "-e", f"heaplab_data_device={tmp_path}/disk-a"
    )
    assert plain.returncode != 0
    assert f"is {tmp_path}/disk-a, not a block device" in " ".join(plain.stdout.split())
    assert not (tmp_path / "base").exists(), "nothing after the failed check ran"


def test_an_engine_without_async_profiler_is_reported(tmp_path):
    """The profiler role checks every engine deployed below the base dir for lib/async-profiler."""
    engine = tmp_path / "base" / "engine" / "heaplab-engine-9.9"
    (engine / "lib" / "async-profiler" / "linux-x64").mkdir(parents=True)
    (engine / "lib" / "async-profiler" / "async-profiler.jar").write_text("")
    done = provision("-e", f"heaplab_base_dir={tmp_path}/base")
    assert done.returncode != 0
    flat = " ".join(done.stdout.split())
    assert f"{engine}/lib/async-profiler/linux-x64/libasyncProfiler.so" in flat
    assert "the engine distribution ships async-profiler in lib/async-profiler" in flat


@pytest.fixture
def loop_device(tmp_path):
    if os.geteuid() != 0:
        pytest.skip("the data disk test needs root (losetup, mkfs, mount)")
    for command in ("losetup", "unshare", "mkfs.ext4", "findmnt"):
        if shutil.which(command) is None:
            pytest.skip(f"the data disk test needs {command}")
    image = tmp_path / "disk.img"
    with image.open("wb") as f:
        f.truncate(64 * 1024 * 1024)
    attached = subprocess.run(
        ["losetup", "--find", "--show", str(image)], capture_output=True, text=True, check=False
    )
    if attached.returncode != 0:
        pytest.skip(f"no usable loop device here: {attached.stderr.strip()}")
    device = attached.stdout.strip()
    try:
        yield device
    finally:
        subprocess.run(["losetup", "-d", device], check=False)


def test_data_disk_formats_once_mounts_and_never_reformats(tmp_path, loop_device):
    mount = tmp_path / "data"
    base = mount / "heaplab"
    extra = [
        "-e", f"heaplab_base_dir={base}",
        "-e", f"heaplab_data_device={loop_device}",
        "-e", f"heaplab_data_mount={mount}",
        "-e", "heaplab_data_persist=false",
    ]  # fmt: skip
    playbook = " ".join(provision_cmd(*extra))
    # One private mount namespace for the three steps; the mount dies with it.
    script = (
        f"set -e; {playbook} --check --diff > {tmp_path}/check.out 2>&1; "
        f"if blkid -p {loop_device}; then echo formatted-by-check > {tmp_path}/checked.out; fi; "
        f"{playbook} > {tmp_path}/first.out 2>&1; "
        f"echo kept > {base}/marker; "
        f"{playbook} > {tmp_path}/second.out 2>&1; "
        f"findmnt --noheadings --output SOURCE,FSTYPE,OPTIONS --target {base} > {tmp_path}/findmnt.out; "
        f"cat {base}/marker > {tmp_path}/marker.out"
    )
    done = subprocess.run(
        ["unshare", "--mount", "--propagation", "private", "sh", "-c", script],
        cwd=REPO,
        env=ansible_env(),
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    outputs = {p.name: p.read_text() for p in tmp_path.glob("*.out")}
    assert done.returncode == 0, (done.stderr, {k: v[-3000:] for k, v in outputs.items()})
    assert "checked.out" not in outputs, "check mode formatted nothing"
    assert "failed=0" in outputs["check.out"]
    first, second = outputs["first.out"], outputs["second.out"]
    assert (
        "changed: [localhost]"
        in first.split("TASK [data_disk : Make an ext4 filesystem on the empty device]")[1][:200]
    )
    assert recap(second)["changed"] == 0, second[-4000:]
    source, fstype, options = outputs["findmnt.out"].split()
    assert (source, fstype) == (loop_device, "ext4")
    assert "noatime" in options.split(",")
    assert outputs["marker.out"] == "kept\n", "the second run kept the filesystem's data"
    # Outside the namespace nothing is mounted there.
    assert not (base / "marker").exists()
    assert "UUID=" not in Path("/etc/fstab").read_text() or str(mount) not in Path("/etc/fstab").read_text()
