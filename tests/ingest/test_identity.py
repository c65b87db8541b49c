"""Document identity scored against a truth table written by reading the shared PDFs (tests/data/identity_truth.tsv).

Every field of every parsed document (title, doc_type, issuing_body, publication_date, last_reform_date) is compared
with what the PDF prints; '?' cells (not determinable from the text layer) are not scored, empty cells expect
nothing. Titles are compared folded (case, accents, punctuation, whitespace) on the truth's first 120 characters.
Run as a script to print the table of misses: `.venv/bin/python tests/ingest/test_identity.py`.
"""

from __future__ import annotations

import csv
import os
import re
import sys
import unicodedata
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

TRUTH = ROOT / "tests" / "data" / "identity_truth.tsv"
PDFS = Path(os.environ.get("GACETA_SHARED", ROOT.parent / "shared")) / "data" / "pdfs"
FIELDS = ("title", "doc_type", "issuing_body", "publication_date", "last_reform_date")
TITLE_CHARS = 120
GOAL = 0.95

if TYPE_CHECKING:
    from ingest.layout import Line


def fold(text: str | None) -> str:
    text = unicodedata.normalize("NFKD", str(text or "").lower())
    text = "".join(c for c in text if not unicodedata.combining(c))
    return " ".join(re.sub(r"[^\w/]+", " ", text).split())


def truth_rows() -> list[dict[str, str]]:
    with TRUTH.open(encoding="utf-8") as f:
        lines = [ln for ln in f if not ln.startswith("#")]
    return list(csv.DictReader(lines, delimiter="\t", quoting=csv.QUOTE_NONE))


def value(doc, name: str) -> str:
    got = getattr(doc, name, None)
    if got is None:
        return ""
    return got.value if hasattr(got, "value") else str(got)


def field_right(name: str, want: str, got: str) -> bool:
    if name == "title":
        want_f, got_f = fold(want), fold(got)
        if not want_f:
            return not got_f
        n = min(TITLE_CHARS, len(want_f))
        return got_f[:n] == want_f[:n] and (len(got_f) == n or n == TITLE_CHARS or got_f[n] == " ")
    return fold(want) == fold(got)


def score(parse) -> tuple[dict[str, list[int]], list[tuple[str, int, str, str, str]]]:
    """Per field [right, scored] and the misses (file, position, field, want, got)."""
    tally = {name: [0, 0] for name in FIELDS}
    misses: list[tuple[str, int, str, str, str]] = []
    cache: dict[str, object] = {}
    for row in truth_rows():
        name = row["file"]
        if name not in cache:
            cache[name] = parse(name)
        docs = cache[name].documents
        pos = int(row["position"])
        doc = docs[pos] if pos < len(docs) else None
        for field in FIELDS:
            want = row[field]
            if want == "?":
                continue
            got = value(doc, field) if doc is not None else "<no document>"
            tally[field][1] += 1
            if doc is not None and field_right(field, want, got):
                tally[field][0] += 1
            else:
                misses.append((name, pos, field, want, got))
    return tally, misses


def report(tally: dict[str, list[int]]) -> float:
    right = sum(r for r, _ in tally.values())
    total = sum(n for _, n in tally.values())
    for field, (r, n) in tally.items():
        print(f"{field:18s} {r:3d}/{n:3d} = {r / n:.3f}")
    print(f"{'overall':18s} {right:3d}/{total:3d} = {right / total:.3f}")
    return right / total


def test_identity_truth_table() -> None:
    from tests.ingest.parsed_cache import parsed

    tally, misses = score(parsed)
    for miss in misses:
        print("MISS", *miss, sep=" | ")
    assert report(tally) >= GOAL


def main() -> None:
    from ingest.parse import parse_pdf

    tally, misses = score(lambda name: parse_pdf(PDFS / name))
    for file, pos, field, want, got in misses:
        print(f"MISS {file}#{pos} {field}: want {want[:90]!r} got {got[:90]!r}")
    report(tally)


if __name__ == "__main__":
    main()


# --- titles are words, and bounded ------------------------------------------------------------------------------


def _line(text: str, y: float, size: float = 12.0, bold: bool = True) -> "Line":
    from ingest.layout import Line

    letters = [c for c in text if c.isalpha()]
    caps = sum(c.isupper() for c in letters) / len(letters) if letters else 0.0
    return Line(text, 72.0, y, 72.0 + 6 * len(text), y + size, size, "Helvetica-Bold" if bold else "Helvetica",
                bold, bold, False, caps, 1)


def test_a_noise_fragment_never_becomes_the_title_the_next_candidate_does() -> None:
    from ingest.identity import Evidence, identify

    body = [_line("Despite the July heat, this came to mind recently when I called on Erwin Griswold in his "
                  "Washington law offices.", 300 + 14 * i, 10, False) for i in range(8)]
    headline = "Legal Scholar Recalls Creating Federal Register"
    for noise in ("OcIAL Dg,", "SNE //Z", "| OUR"):  # seal and stamp fragments, bigger than the headline
        ev = Evidence(lines=[_line(noise, 40, 24), _line(headline, 120, 18), *body], headings=[])
        assert identify(ev).title == headline


def test_without_any_words_line_the_title_falls_back_to_the_file_name() -> None:
    from ingest.identity import Evidence, identify

    ev = Evidence(lines=[_line("SNE //Z", 40, 20), _line("Ly $ S", 60, 12), _line("ko) o |", 80, 12)], headings=[],
                  source_name="acuerdo_covid-19")
    assert identify(ev).title == "acuerdo covid-19"


def test_a_one_megabyte_first_line_gives_a_bounded_title(tmp_path: Path) -> None:
    import pymupdf

    from ingest.identity import MAX_TITLE_CHARS
    from ingest.parse import parse_pdf

    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), ("LEY 99 DE 1993 " * 70_000)[:1_000_000], fontsize=0.0008, fontname="hebo")
    page.insert_text((72, 100), "Artículo 1. Texto del cuerpo del documento.", fontsize=11)
    doc.save(tmp_path / "long_line.pdf")
    result = parse_pdf(tmp_path / "long_line.pdf")
    (legal,) = result.documents
    assert len(legal.markdown) > 1_000_000  # the body keeps the whole line
    assert len(legal.title) <= MAX_TITLE_CHARS and legal.title.endswith("…"), len(legal.title)
    words = legal.title[:-1].split()  # cut at a word: every word whole
    assert words == ("LEY 99 DE 1993 " * 100).split()[:len(words)]
    assert len(legal.short_title or "") <= MAX_TITLE_CHARS and len(legal.label) <= MAX_TITLE_CHARS


def test_a_federal_register_document_is_named_by_its_subject_not_the_section() -> None:
    """The Register prints its section atop the page ("Proposed Rules"), then the agency, the CFR part, the docket and
    RIN lines and the document's subject right above "AGENCY:": that subject is its name."""
    from tests.ingest.parsed_cache import parsed

    (doc,) = parsed("us_federal_register_2020-17221.pdf").documents
    assert doc.title == "Airworthiness Directives; The Boeing Company Airplanes"


def test_a_bulletin_whose_pages_are_ruled_tables_is_named_by_its_first_rows() -> None:
    """The labour tribunal's bulletin frames every page with rules, so each page, its cover too, reads as one table;
    its first rows print the name and the date ("BOLETÍN LABORAL BUROCRÁTICO" / "Ciudad de México a 1 de Octubre de
    2021."), not its file name."""
    from tests.ingest.parsed_cache import parsed

    (doc,) = parsed("mx_tfca_boletin_laboral_2021-10-01.pdf").documents
    assert doc.title == "BOLETÍN LABORAL BUROCRÁTICO"
    assert doc.info().publication_date.isoformat() == "2021-10-01"


LAWS_TRUTH = Path(__file__).resolve().parents[1] / "data" / "identity_truth_laws.tsv"


def test_identity_of_whole_laws() -> None:
    """The laws in data/laws named as they print it: name, type, department, publication and version dates
    (tests/data/identity_truth_laws.tsv), the annexed Ley de Sociedades de Capital as its own law."""
    from ingest.parse import parse_pdf
    from tests.conftest import SHARED

    with LAWS_TRUTH.open(encoding="utf-8") as f:
        rows = list(csv.DictReader([ln for ln in f if not ln.startswith("#")], delimiter="\t", quoting=csv.QUOTE_NONE))
    parsed: dict[str, list] = {}
    right = total = 0
    misses = []
    for row in rows:
        if row["file"] not in parsed:
            parsed[row["file"]] = parse_pdf(SHARED / "data" / "laws" / row["file"]).documents
        doc = parsed[row["file"]][int(row["position"])]
        for name in (*FIELDS, "short_title"):
            total += 1
            if field_right(name, row[name], value(doc, name)):
                right += 1
            else:
                misses.append((row["file"], row["position"], name, row[name], value(doc, name)))
    print(f"whole laws: {right}/{total} = {right / total:.3f}")
    assert right / total >= GOAL, misses
