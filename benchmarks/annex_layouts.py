"""Questions on the rules an acuerdo carries, in the DOF layouts no shared PDF has: first citation right, any citation
right, "No encontré".

Each layout is built by `tests/ingest/test_annexes.py` around the real articles of the Reglamento of arts. 121-122
LFT (../shared/data/pdfs): the lineamientos numbered in words right after the acuerdo's point (`lineamientos_pdf`),
and printed after the acuerdo's transitorios under their name alone (`issued_after_pdf`: in capitals, set like a
title, numbered in words). Each PDF is ingested with `gaceta ingest` into a home of its own beside Durango's Ley del
Periódico Oficial (a law on another subject), and asked the 9 questions `fresh_questions.tsv` holds for the
Reglamento plus 4 that name a point by its number, with `ask` (extractive, k 8). A citation is right when its span
lies in the expected provision's text: judged by offsets into the document's Markdown, so a code that keys no point
is judged the same way as one that does.

    GACETA_SHARED=../shared .venv/bin/python benchmarks/annex_layouts.py [--code DIR] [--work DIR]

`--code DIR`: ingest and ask with the code checked out at DIR (another commit: `git worktree add DIR COMMIT`); the
PDFs are built by this checkout's tests either way.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
QUESTIONS = Path(__file__).with_name("fresh_questions.tsv")
NAMED = [  # written after the rule that keys points numbered in words: they check the behaviour
    ("14", "¿Qué dice el lineamiento décimo cuarto de los Lineamientos para la revisión de las objeciones de los "
           "trabajadores?"),
    ("5", "¿Qué establece el numeral quinto de los lineamientos sobre las objeciones de los trabajadores a la "
          "declaración anual?"),
    ("22", "Según el lineamiento vigésimo segundo, ¿qué pasa si el patrón impugna la resolución que ordena un reparto "
           "adicional?"),
    ("9", "¿Qué dispone el punto noveno de los Lineamientos para la revisión de las objeciones de los trabajadores?"),
]
# The acuerdo's own transitorios repeat the lineamientos' first numbers: their provisions are not the expected ones.
OWN_TRANSITORIOS = ("El presente Acuerdo entrará", "Se derogan las disposiciones administrativas")


def questions() -> list[tuple[str, str]]:
    with QUESTIONS.open(encoding="utf-8") as fh:
        rows = [(r["expected"].split(":")[1], r["question"]) for r in csv.DictReader(fh, delimiter="\t")
                if r["expected"].startswith("RLFT:")]
    return rows + NAMED


def build(work: Path) -> dict[str, Path]:
    sys.path.insert(0, str(REPO))
    from tests.ingest.test_annexes import NAME_CAPS, NAME_TITLE, issued_after_pdf, lineamientos_pdf

    made = {"points in words, right after the acuerdo's point": lambda p: lineamientos_pdf(p),
            "after the transitorios, name in capitals": lambda p: issued_after_pdf(p, NAME_CAPS),
            "after the transitorios, name set like a title": lambda p: issued_after_pdf(p, NAME_TITLE),
            "after the transitorios, points in words": lambda p: issued_after_pdf(p, NAME_CAPS, worded=True)}
    shared = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared"))
    out = {}
    for n, (name, make) in enumerate(made.items()):
        folder = work / f"layout{n}"
        folder.mkdir(parents=True)
        (folder / "durango.pdf").symlink_to(shared / "data/pdfs/mx_durango_ley_del_periodico_oficial.pdf")
        out[name] = make(folder / "acuerdo.pdf")
    return out


def ask_all(home: Path, pdf: Path) -> dict:
    """The answers of the index at `home` (the code on sys.path), judged against the provisions of `pdf`."""
    from ingest.models import HeadingKind
    from ingest.parse import parse_pdf
    from ingest.references import article_key
    from retrieval.answers import ask
    from retrieval.index import Index
    from retrieval.settings import Settings

    [doc] = [d for d in parse_pdf(pdf).documents if d.title.startswith("ACUERDO")]
    spans: dict[str, tuple[int, int]] = {}
    for i, h in enumerate(doc.headings):
        if h.kind not in (HeadingKind.articulo, HeadingKind.clause):
            continue
        end = next((n.start for n in doc.headings[i + 1:] if n.level <= h.level), len(doc.markdown))
        if not doc.markdown[h.end:end].strip().startswith(OWN_TRANSITORIOS):
            spans.setdefault(article_key(h.text), (h.start, end))
    settings = Settings(home=home, answerer="extractive", judge="offline", _env_file=None)
    first = anywhere = not_found = 0
    with Index.open(settings) as index:
        titles = {d.doc_id: d.title for d in index.document_infos()}
        for article, question in questions():
            answer = ask(index, question, k=8, settings=settings)
            start, end = spans[article]
            right = [titles[c.doc_id].startswith("ACUERDO") and start <= c.start < end
                     for seg in answer.content for c in seg.citations if c.verified]
            first += bool(right and right[0])
            anywhere += any(right)
            not_found += not answer.found
    return {"first": first, "any": anywhere, "not_found": not_found, "questions": len(questions())}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--code", type=Path, default=REPO, help="the checkout whose code ingests and answers")
    ap.add_argument("--work", type=Path, help="where the PDFs and homes go (default: a temporary folder)")
    ap.add_argument("--ask", nargs=2, type=Path, metavar=("HOME", "PDF"), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.ask:  # a child process: the code is the one PYTHONPATH names
        print(json.dumps(ask_all(*args.ask)))
        return
    work = args.work or Path(tempfile.mkdtemp(prefix="annex-layouts-"))
    env = {**os.environ, "PYTHONPATH": str(args.code.resolve())}
    print("| layout | first citation right | any citation right | \"No encontré\" |\n| --- | ---: | ---: | ---: |")
    for n, (name, pdf) in enumerate(build(work).items()):
        home = work / f"home{n}"
        home.mkdir()
        subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", str(pdf.parent),
                        "--json"], env={**env, "GACETA_HOME": str(home)}, cwd=home, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        done = subprocess.run([sys.executable, __file__, "--ask", str(home), str(pdf)], env=env, cwd=home,
                              check=True, capture_output=True, text=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"| {name} | {r['first']} / {r['questions']} | {r['any']} / {r['questions']} | {r['not_found']} |")


if __name__ == "__main__":
    main()
