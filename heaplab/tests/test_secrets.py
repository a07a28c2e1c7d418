"""heaplab.run.secrets: keys and passwords are found and named, never their values; our own files hold
none."""

from __future__ import annotations

import gzip
import subprocess
from pathlib import Path

from heaplab.run.secrets import find_secrets, scan_file
from heaplab.tests.conftest import REPO

# Built from parts so that this file itself never holds a secret-shaped line.
BEGIN = "-----BEGIN "
PRIVATE_KEY = (
    BEGIN + "OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n"
)
ACCESS_KEY_ID = "AKIA" + "Z" * 16
SECRET_KEY = "aws_secret_access_key = " + "wJalrXUtnFEMI/K7MDENG/bPxRfiCY" + "EXAMPLEKEY"
BECOME_PASSWORD = "ansible_become" + "_password: hunter2"
PASSWORD_JSON = '{"ansible' + '_password": "s3cret-value"}'


def test_each_kind_is_found_with_its_line(tmp_path: Path) -> None:
    f = tmp_path / "ansible.log"
    f.write_text(
        "ok: [n1]\n"
        + PRIVATE_KEY
        + f"export AWS_ACCESS_KEY_ID={ACCESS_KEY_ID}\n"
        + SECRET_KEY
        + "\n"
        + BECOME_PASSWORD
        + "\n"
    )
    found = {(x.line, x.kind) for x in scan_file(f)}
    assert found == {
        (2, "private key"),
        (5, "AWS access key id"),
        (6, "AWS secret access key"),
        (7, "ansible password"),
    }


def test_a_gzipped_log_is_scanned_for_what_it_holds(tmp_path: Path) -> None:
    """GC logs are kept gzipped (heaplab.runfiles.rawlogs): their compressed bytes would hide a key."""
    f = tmp_path / "gc-regionserver.log.gz"
    f.write_bytes(gzip.compress(("[0.1s][info][gc] Using G1\n" + f"key {ACCESS_KEY_ID}\n").encode()))
    assert [(x.line, x.kind) for x in scan_file(f)] == [(2, "AWS access key id")]
    (tmp_path / "broken.log.gz").write_bytes(b"not gzip")  # unreadable: no finding, no crash
    assert scan_file(tmp_path / "broken.log.gz") == []


def test_a_finding_names_the_place_never_the_value(tmp_path: Path) -> None:
    f = tmp_path / "run.json"
    f.write_text(PASSWORD_JSON + "\n")
    (finding,) = find_secrets(tmp_path)
    assert str(finding) == f"{f}:1: ansible password"
    assert "s3cret" not in str(finding)


def test_what_a_run_holds_is_not_taken_for_a_secret(tmp_path: Path) -> None:
    """A key path, a public key, a password-free inventory and a histogram line are not findings."""
    (tmp_path / "hosts").mkdir()
    (tmp_path / "hosts" / "n1.json").write_text(
        '{"ansible_ssh_private_key_file": "~/.ssh/id_ed25519",'
        ' "ssh_public_key": "ssh-ed25519 AAAAC3Nza student"}\n'
    )
    (tmp_path / "pe.hlog").write_text("0.127,1.003,2.411,HISTFAAAAEl4nJNpmSzMwMDAyAABzFCaEUQAAJ8WB/w=\n")
    assert find_secrets(tmp_path) == []


def test_committed_runs_and_tracked_files_hold_no_secret() -> None:
    """Every file git tracks (reference runs, fixtures, examples): a key committed by mistake fails here."""
    tracked = subprocess.run(
        ["git", "-C", str(REPO), "ls-files", "-z"], capture_output=True, check=True
    ).stdout.split(b"\0")
    files = [REPO / name.decode() for name in tracked if name]
    found = [x for path in files if path.is_file() for x in find_secrets(path)]
    assert found == []
