"""What ran a claim (heaplab.lab.subjects.subject_name / pair_name): the engine, one Apache HBase version, or
a pair of versions (the off-heap article's 1.x -> 2.x on Apache HBase 1.4.14 -> 2.6.4). The version is
read from the region server's start-up line, as HBase logs it (the line below is copied from a real log)."""

from dataclasses import dataclass, field
from pathlib import Path

from heaplab.lab.subjects import pair_name, subject_name


@dataclass
class _Variant:
    server: str


@dataclass
class _Spec:
    variants: dict[str, _Variant]


@dataclass
class _Run:  # the three things subject_name reads from a heaplab.runfiles.rundir.Run
    root: Path
    spec: _Spec
    hosts: dict[str, list[str]] = field(default_factory=dict)

    def server_hosts(self, variant: str) -> list[str]:
        return self.hosts.get(variant, ["localhost"])

    def variant_dir(self, variant: str) -> Path:
        return self.root / variant


def _run(tmp_path: Path, versions: dict[str, str | None]) -> _Run:
    variants = {}
    for name, version in versions.items():
        variants[name] = _Variant("engine" if version is None else "apache-hbase")
        if version:
            log = tmp_path / name / "server" / "localhost" / "server.log"
            log.parent.mkdir(parents=True)
            log.write_text(f"2026-11-25 12:34:47,321 INFO  [main] util.VersionInfo: HBase {version}\n")
    return _Run(tmp_path, _Spec(variants))


def test_a_claim_on_two_versions_names_both_old_first(tmp_path: Path) -> None:
    run = _run(tmp_path, {"hbase14": "1.4.14", "hbase26": "2.6.4", "e1": None, "e2": None})
    assert subject_name(run, "hbase14") == "Apache HBase 1.4.14"
    # "hbase26 <= 0.45 * hbase14": the right side is the old version
    assert pair_name(run, "hbase26", "hbase14") == "Apache HBase 1.4.14 -> 2.6.4"
    assert pair_name(run, "e2", "e1") == "engine"
    assert pair_name(run, "hbase26", None) == "Apache HBase 2.6.4"


def test_one_version_on_both_sides_is_one_name(tmp_path: Path) -> None:
    run = _run(tmp_path, {"onheap": "2.6.4", "offheap": "2.6.4"})
    assert pair_name(run, "offheap", "onheap") == "Apache HBase 2.6.4"
