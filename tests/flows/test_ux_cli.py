"""What a user sees in a terminal (issue 28), on real shared PDFs.

`gaceta ingest` with its output to a pipe: one outcome line per file, exactly once, counters that only increase,
and third-party messages (MuPDF, Tesseract) only inside the warning block of the file they came from. Two
`gaceta search` and one `gaceta ingest` at once on one data dir, no server: every command answers (a command that
finds the embedded index taken waits its turn and says so)."""

from __future__ import annotations

import json
import os
import re
import subprocess
from pathlib import Path

import pytest

from tests.flows.conftest import GACETA_CLI, REPO, link_pdfs

OK = ["co_anla_auto_010297-2024.pdf", "malformed_missing_xref_trailer.pdf"]  # the second one MuPDF repairs
BROKEN = "malformed_not_a_pdf_json_named_dof.pdf"
SCAN = "scan_co_scaav_00182_formulario.pdf"  # 4 scanned pages; Tesseract complains about page 4's specks
FILES = [*OK, BROKEN, SCAN]
LATER = "dof_2023-01-11_MAT_first20pages.pdf"  # 20 pages: the index stays taken while the searches start

OUTCOME = re.compile(r"ingest: \[(\d+)/(\d+)\] (\S+): (ok|failed|cached|skipped)( \(.*\))?")
WARNING = re.compile(r"ingest:     warning: .+")


def _env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}
    env.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1", COLUMNS="80")
    return env


@pytest.fixture(scope="module")
def ingested(tmp_path_factory):
    root = tmp_path_factory.mktemp("ux")
    home = root / "home"
    folder = link_pdfs(root / "in", FILES)
    done = subprocess.run([*GACETA_CLI, "ingest", str(folder)], env=_env(home), cwd=REPO, stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, text=True, timeout=600)
    return root, home, done


def test_ingest_to_a_pipe_says_each_file_once_in_order_with_its_warnings(ingested):
    _, _, done = ingested
    assert done.returncode == 0, done.stderr[-3000:]
    lines = done.stderr.splitlines()
    assert lines[0] == f"ingest: {len(FILES)} PDF(s), 0 other path(s)", lines
    outcomes = [(i, OUTCOME.fullmatch(line)) for i, line in enumerate(lines) if OUTCOME.fullmatch(line)]
    names = [m.group(3) for _, m in outcomes]
    assert sorted(names) == sorted(FILES), lines  # each file's outcome exactly once
    assert [int(m.group(1)) for _, m in outcomes] == list(range(1, len(FILES) + 1)), lines  # only increasing
    assert {int(m.group(2)) for _, m in outcomes} == {len(FILES)}
    status = {m.group(3): m.group(4) for _, m in outcomes}
    assert status[BROKEN] == "failed" and all(status[n] == "ok" for n in [*OK, SCAN]), lines

    # every other line is a warning directly under a file's outcome line (or under another of its warnings):
    # no timestamped log line, no bare MuPDF or Tesseract line
    owner: dict[int, str] = {}
    current = None
    for i, line in enumerate(lines[1:], 1):
        match = OUTCOME.fullmatch(line)
        if match:
            current = match.group(3)
            continue
        assert WARNING.fullmatch(line) and current is not None, (line, lines)
        owner[i] = current
    assert not any(re.match(r"\d\d:\d\d:\d\d", line) for line in lines), lines
    scan_notes = [lines[i] for i, name in owner.items() if name == SCAN]
    assert any("Tesseract" in note for note in scan_notes), lines  # captured from the OCR worker's stderr
    assert len(scan_notes) == len(set(scan_notes))  # each message once

    # the failure is said once more, in the closing table, with the file's whole path on one line
    assert [line for line in done.stdout.splitlines() if f"/in/{BROKEN}" in line and "failed" in line], done.stdout


def test_two_searches_and_an_ingest_at_once_all_answer(ingested):
    root, home, first = ingested
    assert first.returncode == 0
    env = _env(home)
    later = link_pdfs(root / "later", [LATER])
    ingest = subprocess.Popen([*GACETA_CLI, "ingest", str(later)], env=env, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    first_line = ingest.stderr.readline()  # written once the ingest holds the index and its files are found
    assert first_line == "ingest: 1 PDF(s), 0 other path(s)\n", first_line
    searches = [subprocess.Popen([*GACETA_CLI, "search", query, "-k", "3", "--json"], env=env, cwd=REPO,
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
                for query in ("auto de la autoridad ambiental", "formulario de solicitud")]
    status = subprocess.Popen([*GACETA_CLI, "status", "--json"], env=env, cwd=REPO, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    results = [p.communicate(timeout=600) for p in searches]
    status_out, status_err = status.communicate(timeout=600)
    ingest_out, ingest_err = ingest.communicate(timeout=600)
    ingest_err = first_line + ingest_err
    assert ingest.returncode == 0, ingest_err[-3000:]
    for proc, (out, err) in zip(searches, results):
        assert proc.returncode == 0, err[-3000:]
        answer = json.loads(out)  # stdout is the JSON alone, the waiting line goes to stderr
        assert answer["hits"], answer
        assert "Traceback" not in err and "stop that process" not in err, err
    assert f"[1/1] {LATER}: ok" in ingest_err, ingest_err
    # each search found the index taken and said whom it waited for (never a bare refusal)
    for _, err in results:
        assert re.search(r"waiting: the index is in use by pid \d+ \('.*\bingest ", err), err
    # a status is a read too: it waits its turn and reports the index
    assert status.returncode == 0, status_err[-3000:]
    assert json.loads(status_out)["index"]["documents"] >= 1
    assert re.search(r"waiting: the index is in use by pid \d+", status_err), status_err


TERMINAL_FILES = ["co_anla_auto_010297-2024.pdf", BROKEN, SCAN]  # the shared malformed PDFs draw no MuPDF message
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _in_a_terminal(args: list[str], env: dict[str, str], timeout: float = 600) -> tuple[int, str]:
    """Run the CLI with stdin, stdout and stderr on a pseudo-terminal (what a user's terminal is): everything it
    wrote, as the terminal received it (escape sequences included), and its exit status."""
    import pty
    import select
    import time

    master, slave = pty.openpty()
    proc = subprocess.Popen([*GACETA_CLI, *args], stdin=slave, stdout=slave, stderr=slave, env=env, cwd=REPO,
                            close_fds=True)
    os.close(slave)
    out = bytearray()
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline:
            ready, _, _ = select.select([master], [], [], 1.0)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:  # EIO: the child closed its side
                break
            if not chunk:
                break
            out += chunk
    finally:
        os.close(master)
    try:
        code = proc.wait(timeout=max(1.0, deadline - time.monotonic()))
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
        pytest.fail(f"gaceta {' '.join(args)} did not end in {timeout:.0f} s")
    return code, out.decode("utf-8", "replace")


def test_ingest_in_a_terminal_is_one_live_display_and_the_log_file_keeps_the_timestamps(tmp_path):
    """Item 1 on a terminal: one live display (files done of the total, each file in flight and its stage, pages,
    chunks, time left) that is redrawn in place, each file's outcome printed once above it with its Tesseract
    messages under it, no timestamp on the terminal; `--log-file` keeps the run's records with their timestamps."""
    folder = link_pdfs(tmp_path / "in", TERMINAL_FILES)
    log = tmp_path / "ingest.log"
    env = _env(tmp_path / "home")
    env.update(COLUMNS="200", LINES="40", TERM="xterm-256color")
    code, raw = _in_a_terminal(["ingest", str(folder), "--log-file", str(log)], env)
    assert code == 0, raw[-3000:]  # a failed file among indexed ones: the run completes
    screen = ANSI.sub("", raw)

    # the live display: a bar of files done of the total with pages and chunks, and each file in flight by stage
    bar = re.compile(r"files .*\b(\d)/3\b.* \d+ pages?, \d+ chunks?\b.* left\b")
    assert [m.group(1) for m in bar.finditer(screen)], screen[-3000:]
    assert re.search(r"  co_anla_auto_010297-2024\.pdf — (reading|chunking|embedding and writing)", screen)
    assert raw.count("\x1b[2K") > 3  # redrawn in place (erase line), not printed again line after line

    # each file's outcome exactly once, its counter only increasing
    outcomes = re.findall(r"\[(\d)/3\] (\S+\.pdf): (ok|failed)", screen)
    assert sorted(name for _, name, _ in outcomes) == sorted(TERMINAL_FILES), outcomes
    assert [int(k) for k, _, _ in outcomes] == [1, 2, 3], outcomes
    assert dict((name, status) for _, name, status in outcomes)[BROKEN] == "failed"

    # third-party messages only as a file's warning lines, never a timestamped or bare log line
    lines = [line.strip() for line in re.split(r"\r\n|\r|\n", screen) if line.strip()]
    assert not [line for line in lines if re.search(r"\d\d:\d\d:\d\d[,.]\d{3}|\b(WARNING|ERROR) \|", line)], lines
    tesseract = [line for line in lines if "Tesseract" in line or "too small to scale" in line]
    assert tesseract and all(line.startswith("warning: Tesseract, page ") for line in tesseract), tesseract
    assert len(tesseract) == len(set(tesseract)), tesseract  # each message once
    scan_line = screen.index(f"] {SCAN}: ok")
    assert all(screen.index(line) > scan_line for line in tesseract)  # under the scan's outcome line

    # the closing table names the failed file whole
    assert re.search(rf"{re.escape(str(folder / BROKEN))}\s.*failed", screen), screen[-2000:]

    # the log file keeps timestamps: the failure and each file's stages, one record a line
    records = log.read_text(encoding="utf-8").splitlines()
    stamp = re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} (INFO|WARNING|ERROR) \S+: ")
    assert records and all(stamp.match(line) for line in records), records
    assert any("WARNING" in line and BROKEN in line and "failed" in line for line in records), records
    assert any("indexed: co_anla_auto_010297-2024.pdf" in line for line in records), records
    assert any("WARNING ingest.ocr: Tesseract, page " in line for line in records), records
