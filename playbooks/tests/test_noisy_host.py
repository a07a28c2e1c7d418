"""A host whose ``python3`` prints lines of its own on stdout before the tool's (a pyenv shim that cannot
rehash, a motd, a deprecation warning) still runs a whole variant: variant.yml for real on the local
inventory, with a ``python3`` first on PATH that prints two junk lines to stdout and then runs the real
interpreter. The run_collect role packs this host's files with that python3 (files/variant_files.py) and
reads only the line the script marks as its own (``HEAPLAB-RESULT: {...}``, filter_plugins/
heaplab_result.py); before, it parsed the whole stdout as JSON and the run failed.

Skips (saying why) when the engine distribution is not built.
"""

import shutil
import stat

from playbooks.tests.support import VariantRun, kill_processes_mentioning

# What the shim on the namespace cluster's n1 printed (pyenv's python3 shim without write access).
JUNK = (
    "rm: cannot remove '/root/.pyenv/shims/.pyenv-shim': Read-only file system",
    "pyenv: cannot rehash: /root/.pyenv/shims isn't writable",
)


def noisy_python3(shim_dir, calls):
    """A ``python3`` in ``shim_dir`` that records its arguments in ``calls``, prints JUNK on stdout and then
    runs the python3 that comes next on PATH (the venv's, as heaplab's ansible finds it)."""
    shim_dir.mkdir()
    real = shutil.which("python3")
    assert real, "no python3 on PATH"
    shim = shim_dir / "python3"
    junk = " ".join(f'"{line}"' for line in JUNK)  # no " or $ in them
    shim.write_text(f'#!/bin/sh\necho "$*" >> {calls}\nprintf "%s\\n" {junk}\nexec {real} "$@"\n')
    shim.chmod(shim.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return shim_dir


def test_a_variant_on_a_host_whose_python3_prints_junk_collects_every_file(engine_dist, tmp_path):
    calls = tmp_path / "python3-calls"
    shims = noisy_python3(tmp_path / "shims", calls)
    run = VariantRun(tmp_path, engine_dist)
    try:
        run.run(path_first=shims)
        assert run.result.returncode == 0, run.output()
        packed = [c for c in calls.read_text().splitlines() if "variant_files.py pack" in c]
        assert packed, "the pack step did not run this host's noisy python3"
        variant = run.variant_dir
        collected = {str(p.relative_to(variant)) for p in variant.rglob("*") if p.is_file()}
        for name in (
            "conf/engine-site.xml",
            "conf/jvm.options",
            "server/localhost/server.log",
            "server/localhost/gc-regionserver.log",
            "server/localhost/gc-events.jsonl",
            "client/create-localhost.out",
            "client/single_put-localhost.json",
            "client/single_put-localhost.hlog",
            "client/gc-single_put-localhost.log",
        ):
            assert name in collected, (name, sorted(collected))
        assert not list(variant.glob("files-*.tar.gz")), "the unpacked archive is removed"
        assert run.leftover_processes() == []
    finally:
        kill_processes_mentioning(str(run.base_dir))
