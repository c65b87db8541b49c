"""Clean streams: `gaceta parse --json` and `gaceta ingest --json` print JSON and nothing else on stdout, for the
shared PDFs and for damaged copies made here (truncated, byte-flipped, encrypted, cut before the xref), while MuPDF's
own messages about the damage ("format error: object is not a stream") and Python's warnings go to stderr.

The commands run as a user runs them (a subprocess: a message written to the real stdout by any library would be
caught). `gaceta parse` runs once over all the files. Sampled: the two multi-page scans (`scan_mx_durango…`, 8 pages,
and `scan_co_scaav…`, 4 pages) are left out, their OCR costs ≈ 2 minutes of CPU; the 1-page scan is in, so an OCR'd
file is covered."""

from __future__ import annotations

import csv
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pymupdf
import pytest

from tests.conftest import PDFS, REPO, pdf

CLI = [sys.executable, "-c", "from gaceta.cli import main; main()"]
SLOW_SCANS = {"scan_mx_durango_acuerdo_covid19.pdf", "scan_co_scaav_00182_formulario.pdf"}
STATUSES = {"ok", "encrypted", "not_pdf", "unreadable", "empty", "garbled", "scanned_no_ocr", "no_text"}
# what the shared broken files are (MANIFEST.tsv's notes), as parse statuses
BROKEN = {"malformed_encrypted_password_test.pdf": "encrypted", "malformed_not_a_pdf_json_named_dof.pdf": "not_pdf",
          "us_sdny_filing_unmapped_font_encoding.pdf": "garbled"}
LAW = "mx_ley_de_amparo.pdf"
SHORT = "mx_reglamento_arts_121_122_LFT.pdf"


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    # every Python warning shown (on stderr, where it belongs), whatever filters the libraries set
    env.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", PYTHONWARNINGS="always")
    return env


def _run(args: list[str], home: Path, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*CLI, *args], env=_env(home), cwd=REPO, capture_output=True, timeout=timeout)


def _json(done: subprocess.CompletedProcess):
    err = done.stderr.decode(errors="replace")
    try:
        return json.loads(done.stdout.decode("utf-8"))
    except ValueError as exc:
        raise AssertionError(f"stdout is not JSON ({exc}): {done.stdout[:600]!r}\nstderr: {err[-2000:]}") from exc


def _manifest() -> list[str]:
    with open(PDFS / "MANIFEST.tsv", newline="", encoding="utf-8") as fh:
        return [row["filename"] for row in csv.DictReader(fh, delimiter="\t")]


@pytest.fixture(scope="module")
def damaged(tmp_path_factory) -> dict[str, Path]:
    """Damaged copies of real files: each kind of damage a download or a disk can do."""
    folder = tmp_path_factory.mktemp("damaged")
    law, short = pdf(LAW).read_bytes(), pdf(SHORT).read_bytes()
    files = {
        "truncated_law.pdf": law[: len(law) // 2],  # the second half lost: the xref and half the objects
        "truncated_short.pdf": short[: len(short) * 2 // 3],
        "cut_before_xref.pdf": short[:1024],
    }
    flipped = bytearray(short)
    rng = random.Random(16)
    for _ in range(200):
        flipped[rng.randrange(len(flipped))] ^= 0xFF
    files["byte_flipped.pdf"] = bytes(flipped)
    for name, data in files.items():
        (folder / name).write_bytes(data)
    with pymupdf.open(pdf(SHORT)) as doc:  # a real file, encrypted with a password we do not have
        doc.save(folder / "encrypted_copy.pdf", encryption=pymupdf.PDF_ENCRYPT_AES_256, owner_pw="o", user_pw="u")
    return {path.name: path for path in folder.iterdir()}


def test_parse_json_on_every_shared_pdf(tmp_path):
    names = [n for n in _manifest() if n not in SLOW_SCANS]
    assert len(names) >= 30 and set(BROKEN) <= set(names)
    done = _run(["parse", "--json", *(str(pdf(n)) for n in names)], tmp_path)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    results = [entry["result"] for entry in _json(done)]
    assert [Path(r["source"]["path"]).name for r in results] == names  # one entry per file, in order
    statuses = {Path(r["source"]["path"]).name: r["status"] for r in results}
    assert set(statuses.values()) <= STATUSES
    for name, status in BROKEN.items():
        assert statuses[name] == status, (name, statuses[name])


def test_parse_json_on_damaged_copies(damaged, tmp_path):
    done = _run(["parse", "--json", *(str(p) for p in damaged.values())], tmp_path)
    assert done.returncode == 0, done.stderr.decode(errors="replace")[-3000:]
    results = {Path(e["result"]["source"]["path"]).name: e["result"] for e in _json(done)}
    assert set(results) == set(damaged)
    for name, result in results.items():
        assert result["status"] in STATUSES, (name, result["status"])
        if result["status"] != "ok":
            assert result["message"], name
    assert results["encrypted_copy.pdf"]["status"] == "encrypted"
    assert results["truncated_law.pdf"]["repaired"] or results["truncated_law.pdf"]["status"] != "ok"
    # MuPDF did complain about the damage, and it said so on stderr (the log), not in the JSON
    assert "MuPDF error" in done.stderr.decode(errors="replace")


def test_ingest_json_on_damaged_and_broken_files(damaged, tmp_path):
    folder = tmp_path / "in"
    folder.mkdir()
    for name in ("truncated_short.pdf", "byte_flipped.pdf", "cut_before_xref.pdf", "encrypted_copy.pdf"):
        (folder / name).symlink_to(damaged[name])
    for name in [*BROKEN, "malformed_missing_xref_trailer.pdf", "malformed_zen_of_python_corrupted.pdf"]:
        (folder / name).symlink_to(pdf(name))
    done = _run(["ingest", str(folder), "--json"], tmp_path / "home")
    summary = _json(done)
    assert done.returncode in (0, 1), done.stderr.decode(errors="replace")[-3000:]
    assert done.returncode == (1 if summary["files_ok"] + summary["files_cached"] == 0 else 0)
    files = {Path(f["path"]).name: f for f in summary["files"]}
    assert set(files) == {p.name for p in folder.iterdir()}
    for name, outcome in files.items():
        assert outcome["status"] in ("ok", "failed"), (name, outcome)
        assert outcome["parse_status"] in STATUSES, (name, outcome)
        if outcome["status"] == "failed":
            assert outcome["reason"], (name, outcome)
    for name, status in BROKEN.items():
        assert files[name]["parse_status"] == status
    assert files["encrypted_copy.pdf"]["parse_status"] == "encrypted"
    assert list((tmp_path / "home" / "flows" / "runs").glob("*.json"))
    assert "MuPDF error" in done.stderr.decode(errors="replace")


def test_ingest_json_when_the_index_is_held(tmp_path: Path) -> None:
    """Another process holds the embedded index past `--wait`: stdout is still one JSON object (the run that could not
    start, and why), stderr the one line that says who holds it."""
    home = tmp_path / "home"
    holder = subprocess.Popen(
        [sys.executable, "-c", "import sys, time\nfrom retrieval.index import Index\nfrom retrieval.settings import "
         "Settings\nindex = Index.open(Settings())\nprint('open', flush=True)\nsys.stdin.read()"],
        env=_env(home), cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    try:
        assert holder.stdout.readline().strip() == b"open"
        done = _run(["ingest", str(pdf(SHORT)), "--json", "--wait", "0"], home)
    finally:
        holder.stdin.close()
        holder.wait(timeout=60)
    assert done.returncode == 1
    summary = _json(done)
    assert summary["state"] == "Failed" and summary["files"] == []
    assert "in use by pid" in summary["error"]
    assert "in use by pid" in done.stderr.decode(errors="replace")
