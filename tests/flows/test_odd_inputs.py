"""Hostile and odd inputs in one batch: every path gets its own named status, whatever it is and whatever its name,
every good file of the batch is indexed, the `--json` output is JSON, the run's record is written (and no temporary
file is left) and `gaceta status` lists the run — through `gaceta ingest FOLDER`, the Prefect flow (the inbox
deployment's path) and `gaceta serve` (the files go to the owner's POST /ingest).

The tree (built here with the file system; the good files and the broken ones are the shared real PDFs):
a symlink leaving the folder to a real PDF, a folder named .pdf holding a real PDF whose name has a newline, a name
whose bytes are not UTF-8, a FIFO (which must never be opened: the run would block), a dangling symlink, a symlink
loop, a symlink to a folder, a file no one may read, a zero-byte file, text named .pdf, the same bytes twice, a
name with a terminal escape sequence, a hidden file, and the shared encrypted / not-a-PDF / garbled files."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.conftest import PDFS, pdf
from tests.flows.conftest import GACETA_CLI, REPO, gaceta_env

GOOD = "boe_BOE-A-2024-7309_resolucion_tabla.pdf"  # 2 pages: the good file, reached by a symlink
SECOND = "dof_2024-04-01_MAT_pp53-54_landscape_tables.pdf"  # 2 pages: the good file with a newline in its name
NEWLINE = "dir.pdf/new\nline.pdf"
NOT_UTF8 = b"bad\xffname.pdf"
ESCAPE = "esc\x1b[2Jname.txt"
ROOT = os.geteuid() == 0  # root reads a chmod 000 file: then its bytes (the good file's) are a duplicate

# relative path → (status, issue or parse status): what each input must be reported as
EXPECTED = {
    "good.pdf": ("ok", None),
    "dir.pdf": ("skipped", "folder_named_pdf"),
    NEWLINE: ("ok", None),
    "bad\\xffname.pdf": ("skipped", "name_not_utf8"),  # the byte 0xff shown as the four characters \xff
    "fifo.pdf": ("skipped", "not_regular"),
    "dangling.pdf": ("failed", "dangling_symlink"),
    "loop-a.pdf": ("failed", "symlink_loop"),
    "loop-b.pdf": ("failed", "symlink_loop"),
    "folder-link": ("skipped", "folder_symlink"),
    "locked.pdf": ("skipped", "duplicate") if ROOT else ("failed", "unreadable"),
    "zero.pdf": ("failed", "empty"),
    "text.pdf": ("failed", "not_pdf"),
    "zz-copy.pdf": ("skipped", "duplicate"),
    "notes.txt": ("skipped", "not_pdf_name"),
    ESCAPE: ("skipped", "not_pdf_name"),
    "encrypted.pdf": ("failed", "encrypted"),
    "json-named.pdf": ("failed", "not_pdf"),
    "garbled.pdf": ("failed", "garbled"),
}
GOOD_FILES = ("good.pdf", NEWLINE)


def build_tree(root: Path) -> Path:
    root.mkdir(parents=True)
    (root / "good.pdf").symlink_to(pdf(GOOD))  # a symlink leaving the folder: followed, its target reported
    (root / "dir.pdf").mkdir()
    shutil.copyfile(pdf(SECOND), root / NEWLINE)
    with open(os.path.join(os.fsencode(root), NOT_UTF8), "wb") as fh:
        fh.write(pdf(GOOD).read_bytes())
    os.mkfifo(root / "fifo.pdf")
    (root / "dangling.pdf").symlink_to(root / "gone" / "x.pdf")
    (root / "loop-a.pdf").symlink_to("loop-b.pdf")
    (root / "loop-b.pdf").symlink_to("loop-a.pdf")
    (root / "folder-link").symlink_to(PDFS, target_is_directory=True)  # never walked: 35 PDFs out there
    shutil.copyfile(pdf(GOOD), root / "locked.pdf")
    (root / "locked.pdf").chmod(0)
    (root / "zero.pdf").write_bytes(b"")
    (root / "text.pdf").write_text("Este archivo no es un PDF.\n")
    shutil.copyfile(pdf(GOOD), root / "zz-copy.pdf")
    (root / "notes.txt").write_text("notas")
    (root / ESCAPE).write_text("x")
    (root / ".hidden.pdf").write_bytes(b"ignored")
    (root / "encrypted.pdf").symlink_to(pdf("malformed_encrypted_password_test.pdf"))
    (root / "json-named.pdf").symlink_to(pdf("malformed_not_a_pdf_json_named_dof.pdf"))
    (root / "garbled.pdf").symlink_to(pdf("us_sdny_filing_unmapped_font_encoding.pdf"))
    return root


def _by_relative_path(files: list[dict], root: Path) -> dict[str, dict]:
    prefix = f"{root}/"
    assert all(f["path"].startswith(prefix) for f in files), [f["path"] for f in files]
    return {f["path"][len(prefix):]: f for f in files}


def assert_reported(summary: dict, root: Path, expected: dict[str, tuple] = EXPECTED) -> dict[str, dict]:
    """Each input once, with the status and the named issue (or parse status) it must have, and a reason."""
    files = _by_relative_path(summary["files"], root)
    assert set(files) == set(expected), set(files) ^ set(expected)  # the hidden file is ignored, nothing else
    for name, (status, named) in expected.items():
        outcome = files[name]
        assert outcome["status"] == status, (name, outcome)
        if status in ("skipped", "failed"):
            assert named in (outcome["issue"], outcome["parse_status"]), (name, outcome)
            assert outcome["reason"], (name, outcome)
    assert files["good.pdf"]["link"] == str(pdf(GOOD).resolve())
    assert files["fifo.pdf"]["reason"].startswith("a named pipe (FIFO)")
    assert "zz-copy.pdf" not in files["good.pdf"]["reason"] and "good.pdf" in files["zz-copy.pdf"]["reason"]
    return files


def _cli_env(home: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PREFECT_")}  # no Prefect API: plain functions
    env.update(GACETA_HOME=str(home), PYTHONPATH=str(REPO), HF_HUB_OFFLINE="1")
    return env


def _assert_one_record(home: Path) -> None:
    runs = home / "flows" / "runs"
    assert len(list(runs.glob("*.json"))) >= 1
    assert not [p for p in runs.iterdir() if not p.name.endswith(".json")], list(runs.iterdir())  # no temp left


def _status(env: dict[str, str]) -> dict:
    done = subprocess.run([*GACETA_CLI, "status", "--json"], env=env, cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory):
    root = build_tree(tmp_path_factory.mktemp("odd") / "inbox")
    home = tmp_path_factory.mktemp("odd-home")
    env = _cli_env(home)
    # the timeout is the FIFO's test too: a run that opened it would block here
    first = subprocess.run([*GACETA_CLI, "ingest", str(root), "--json"], env=env, cwd=REPO, capture_output=True,
                           timeout=600)
    again = subprocess.run([*GACETA_CLI, "ingest", str(root)], env=env, cwd=REPO, capture_output=True, timeout=600)
    return dict(root=root, home=home, env=env, first=first, again=again)


def test_cli_reports_every_input_and_indexes_the_good_files(cli_run):
    first = cli_run["first"]
    assert first.returncode == 0, first.stderr.decode(errors="replace")[-3000:]
    summary = json.loads(first.stdout)  # stdout is JSON only, and valid UTF-8
    files = assert_reported(summary, cli_run["root"])
    for name in GOOD_FILES:
        assert files[name]["documents"] >= 1 and files[name]["chunks"] >= 1, files[name]
    assert summary["files_ok"] == len(GOOD_FILES)
    _assert_one_record(cli_run["home"])
    status = _status(cli_run["env"])
    assert status["index"]["documents"] == sum(files[n]["documents"] for n in GOOD_FILES)
    assert status["runs"][-1]["run"] == summary["flow_run_name"]
    assert (status["runs"][-1]["ok"], status["runs"][-1]["failed"]) == (summary["files_ok"], summary["files_failed"])


def test_cli_human_output_shows_odd_names_on_one_line(cli_run):
    """The re-run (everything cached) in human form: the table and the progress lines show each odd name escaped,
    never a raw newline, byte or terminal escape."""
    again = cli_run["again"]
    assert again.returncode == 0, again.stderr.decode(errors="replace")[-3000:]
    out, err = again.stdout.decode("utf-8"), again.stderr.decode("utf-8")  # both valid UTF-8
    assert "\x1b[2J" not in out + err and "\\x1b[2J" in err
    pdfs = len(GOOD_FILES) + 5  # the PDFs parsed: the good ones, zero, text and the three shared broken files
    assert any(re.fullmatch(rf"ingest: \[\d/{pdfs}\] new\\nline\.pdf: cached", line) for line in err.splitlines()), err
    assert "bad\\xffname.pdf: skipped" in err
    assert "Traceback" not in err and "files skipped" in out


def test_the_prefect_flow_reports_every_input(tmp_path):
    """The inbox deployment's path: a tracked flow run over $GACETA_HOME/inbox."""
    from flows.ingest_flow import run_ingest

    home = tmp_path / "home"
    root = build_tree(home / "inbox")
    with gaceta_env(home):
        summary, state = run_ingest(None, with_prefect=True)
    assert state == "Completed"
    assert summary.flow_run_id is not None
    data = json.loads(summary.to_json())
    files = assert_reported(data, root)
    assert all(files[name]["documents"] >= 1 for name in GOOD_FILES)
    _assert_one_record(home)
    recorded = json.loads(next((home / "flows" / "runs").glob("*.json")).read_text(encoding="utf-8"))
    assert _by_relative_path(recorded["files"], root) == files


def test_through_a_running_server(tmp_path):
    """`gaceta ingest` while `gaceta serve` owns the index: only the regular PDFs are sent (POST /ingest), every
    other path is reported as locally, and the run is recorded where `gaceta status` finds it."""
    from tests.api.conftest import ServeProcess
    from tests.index_fixtures import build_index

    home = tmp_path / "served"
    build_index(home, [REGLAMENTO_SERVED]).close()
    root = build_tree(tmp_path / "inbox")
    server = ServeProcess(home).start()
    try:
        done = server.cli("ingest", str(root), "--json")
        assert done.returncode == 0, done.stderr[-3000:]
        summary = json.loads(done.stdout)
        assert summary["flow_run_name"].startswith("via-owner-")
        # POST /ingest refuses an empty body (422) before the parser sees it: the zero-byte file fails with that
        files = assert_reported(summary, root, {**EXPECTED, "zero.pdf": ("failed", None)})
        assert "empty upload" in files["zero.pdf"]["reason"]
        assert all(files[name]["documents"] >= 1 for name in GOOD_FILES)
        _assert_one_record(home)
        status = server.cli("status", "--json")
        assert status.returncode == 0, status.stderr
        assert json.loads(status.stdout)["runs"][0]["run"] == summary["flow_run_name"]
        assert "Traceback" not in server.log()
    finally:
        server.kill()


REGLAMENTO_SERVED = "mx_reglamento_arts_121_122_LFT.pdf"  # the served index's first document (not in the tree)


def test_a_file_no_one_may_read_is_unreadable(tmp_path):
    """chmod 000: `unreadable`, named, from `gaceta ingest` and `gaceta parse` alike. Root reads any file (its
    CAP_DAC_OVERRIDE): as root the commands run without that capability (`setpriv`, util-linux), as a user would."""
    folder = tmp_path / "in"
    folder.mkdir()
    locked = folder / "locked.pdf"
    shutil.copyfile(pdf(GOOD), locked)
    locked.chmod(0)
    env = _cli_env(tmp_path / "home")
    as_user = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search", "--"] if ROOT else []
    if ROOT:
        assert shutil.which("setpriv"), "setpriv (util-linux) is needed to test permissions as root"
    parsed = subprocess.run([*as_user, *GACETA_CLI, "parse", "--json", str(locked)], env=env, cwd=REPO,
                            capture_output=True, text=True, timeout=300)
    assert parsed.returncode == 0, parsed.stderr[-3000:]
    result = json.loads(parsed.stdout)[0]["result"]
    assert result["status"] == "unreadable" and "Permission denied" in result["message"], result
    ingested = subprocess.run([*as_user, *GACETA_CLI, "ingest", str(folder), "--json"], env=env, cwd=REPO,
                              capture_output=True, text=True, timeout=600)
    assert ingested.returncode == 1, ingested.stderr[-3000:]  # nothing could be indexed: a Failed run
    [outcome] = json.loads(ingested.stdout)["files"]
    assert (outcome["status"], outcome["issue"]) == ("failed", "unreadable")
    assert "Permission denied" in outcome["reason"]
    assert list((tmp_path / "home" / "flows" / "runs").glob("*.json"))
