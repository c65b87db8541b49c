"""Issue 23, items 3 and 4 (the doctor's side): uploads left behind by a crash are reported and reclaimed, and a
source whose current version has no documents is named (and its ledger entry removed on repair)."""

from __future__ import annotations

import json

from retrieval.originals import Originals
from tests.retrieval.test_doctor import built, doctor, home, kinds  # noqa: F401  (fixtures)


def test_orphan_uploads_are_reported_and_reclaimed(home):
    uploads = home / "uploads"
    (uploads / ("ab" * 32)).mkdir(parents=True)
    (uploads / ("ab" * 32) / "dof.pdf").write_bytes(b"%PDF-1.7 left by a crash mid-ingest")
    (uploads / ".part-123-456-789").write_bytes(b"%PDF-1.7 half an upload")
    code, report = doctor()
    assert code == 1 and kinds(report) == {"orphan_upload": False}, report
    assert {p["subject"] for p in report["problems"]} == {f"uploads/{'ab' * 32}/dof.pdf", "uploads/.part-123-456-789"}
    code, report = doctor("--repair")
    assert code == 0 and kinds(report) == {"orphan_upload": True}
    assert not uploads.exists() or not any(uploads.rglob("*"))
    assert doctor() == (0, doctor()[1])


def test_a_source_without_documents_is_named_and_cleared(home):
    originals = Originals(home)
    ghost = str(home / "inbox-gone" / "ghost.pdf")
    path = originals._source_path(ghost)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"key": ghost, "sha256": "cd" * 32}))
    code, report = doctor()
    assert code == 1 and kinds(report) == {"source_without_documents": False}, report
    assert report["problems"][0]["subject"] == ghost
    code, report = doctor("--repair")
    assert code == 0 and kinds(report) == {"source_without_documents": True}
    assert not path.exists() and doctor()[0] == 0
