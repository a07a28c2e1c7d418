"""No credential or private key in the committed reference runs (issue 7, item 8); the scanner can fail.

The namespace cluster test runs the same scanner over its run directory and over the inventory and state
it gives ansible (heaplab/tests/test_namespace_cluster.py).
"""

import gzip
import io
import tarfile

from playbooks.tests.secrets_scan import scan
from playbooks.tests.support import REPO

# Built from pieces so this file itself never holds a matching string.
KEY_BLOCK = (
    "-----BEGIN " + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
)
ACCESS_KEY_ID = "AKIA" + "IOSFODNN7EXAMPLE"  # AWS's documented example id


def test_reference_runs_hold_no_secrets():
    reference = REPO / "results" / "reference"
    assert reference.is_dir()
    findings = scan(reference)
    assert findings == [], "\n".join(map(str, findings))


def test_the_scanner_finds_each_kind(tmp_path):
    run = tmp_path / "run"
    (run / "v" / "client").mkdir(parents=True)
    (run / "v" / "client" / "pe.out").write_text("fine\n" + KEY_BLOCK)
    leaked = '{"heaplab_variant": "v", "ansible_' + 'password": "hunter2"}'
    (run / "v" / "ansible-vars.json").write_text(leaked)
    (run / "inventory.yml").write_text("all:\n  vars:\n    ansible_become_" + "password: s3cret\n")
    (run / "env.txt").write_text(f"AWS_ACCESS_KEY_ID={ACCESS_KEY_ID}\n")
    (run / "credentials").write_text("[default]\n" + "aws_secret" + "_access_key = x\n")
    gz = io.BytesIO()
    with gzip.GzipFile(fileobj=gz, mode="wb") as handle:
        handle.write(KEY_BLOCK.encode())
    data = gz.getvalue()
    with tarfile.open(run / "logs.tar.gz", "w:gz") as archive:
        info = tarfile.TarInfo("logs/id_ed25519")
        info.size = len(KEY_BLOCK)
        archive.addfile(info, io.BytesIO(KEY_BLOCK.encode()))
    (run / "gc.log.gz").write_bytes(data)
    found = {(f.path.removeprefix(str(run) + "/"), f.kind) for f in scan(run)}
    assert found == {
        ("v/client/pe.out", "private key"),
        ("v/ansible-vars.json", "ansible password"),
        ("inventory.yml", "ansible password"),
        ("env.txt", "AWS access key id"),
        ("credentials", "AWS secret key name"),
        ("logs.tar.gz!logs/id_ed25519", "private key"),
        ("gc.log.gz", "private key"),
    }


def test_names_without_values_and_key_paths_are_not_findings(tmp_path):
    (tmp_path / "README.md").write_text(
        "Never set ansible_password; use ansible_ssh_private_key_file: ~/.ssh/id_ed25519\n"
        "ansible_become_password: \n"
        '{"ansible_password": ""}\n'
    )
    (tmp_path / "id_ed25519.pub").write_text("ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIExample heaplab\n")
    assert scan(tmp_path) == []
