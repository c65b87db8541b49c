"""Legal QA (issue 13): do answers answer from the provision? mx_legal_qa, named-article lookup at scale, latency.

Three measurements over an index of ALL the shared PDFs, built by the product's own path (`gaceta ingest` in a
subprocess with GACETA_HOME=--home) when that index is empty or `--reindex` is given:

(a) `../shared/eval/mx_legal_qa` (38 questions, gold file + article + verbatim gold quote):
    retrieval — rank of the first hit lying in the gold article of the gold file (R@1, R@5, MRR over
    `index.search(question, k=--search-k)`, and the same over the hits the answer used, `Answer.sources`);
    answers — share with a verified citation overlapping the gold quote, "not found" rate (`Answer.found` False),
    split by `style`; and for `names_article` questions the share whose FIRST citation lies in the gold article.
(b) Named-article lookup at scale: for the Constitution and the Ley de Amparo, "¿Qué establece el artículo N de …?"
    for every numbered article of the PDF's outline (`doc.get_toc()`: "Artículo_27", "Artículo_80_Bis"; the
    transitory "Artículo_Primero"… entries are not numbered articles and are left out). Right = the first verified
    citation is in the right file AND its text is inside that article's text as the PDF itself prints it.
(c) Latency per question: `index.search` alone and the whole `ask`, median and p95 (over (a) and (b) questions).

Ground truth never comes from our parser: an article's text is the PDF's own text layer (pymupdf `get_text()`),
from its "Artículo N." line (searched from the outline's target page on) to the next outline entry's line, with
running headers/footers (lines repeated on ≥ 30 % of pages, "N de M") removed. When a file's outline lists no
articles, the article list comes from a regex over the text's lines ("Artículo N." at a line start) instead; the
output says which source each file used. A hit or citation "lies in" an article when its whitespace-normalised text
is found in the article's text (substring, else rapidfuzz `partial_ratio` ≥ 90); a retrieved chunk lies in the
article when at least half of its sentence-sized pieces (≥ 40 characters, amendment notes excluded) do, or it holds
the article's opening line.

    .venv/bin/python benchmarks/legal_qa.py --home /tmp/bench-home                      # (a) + (b) full + (c)
    .venv/bin/python benchmarks/legal_qa.py --home /tmp/bench-home --limit 60           # (b): ~60 articles a law
    .venv/bin/python benchmarks/legal_qa.py --home /tmp/bench-home --env GACETA_RERANK=off --json
    .venv/bin/python benchmarks/legal_qa.py --home /tmp/bench-home-new --reindex        # re-ingest first

`--env KEY=VALUE` (repeatable) is set in the environment before any project module is imported and before
Settings() is built (and is passed to the ingest subprocess). `--json` prints one JSON object and nothing else on
stdout; progress goes to stderr.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = Path(os.environ.get("GACETA_SHARED", REPO.parent / "shared"))
PDFS = SHARED / "data" / "pdfs"
QA = SHARED / "eval" / "mx_legal_qa"
LAWS = {  # file → how the named-article question names the law
    "mx_ley_CPEUM_constitucion_politica.pdf": "la Constitución Política de los Estados Unidos Mexicanos",
    "mx_ley_de_amparo.pdf": "la Ley de Amparo",
}
MATCH = 90  # rapidfuzz partial_ratio threshold, as the product's own citation verification uses
NOTE = re.compile(r"\b(reformad|adicionad|derogad|recorrid)[oa]s?\b.*\bDOF\b", re.I)


# An amendment note as a lawyer sees it in a consolidated text (independent of ingest/amendments.py).
NOTE = re.compile(r"(?:reformad|adicionad|derogad|recorrid)[oa]s?\s+(?:\w+\s+){0,3}DOF\s+\d{2}-\d{2}-\d{4}|"
                  r"Fe de erratas", re.I)


def log(*parts: object) -> None:
    print(*parts, file=sys.stderr, flush=True)


# --- text ----------------------------------------------------------------------------------------------------------
def norm(text: str) -> str:
    """Whitespace collapsed; Markdown emphasis/heading/table markers dropped (the PDF's text has none)."""
    text = re.sub(r"(\*\*|__|^#+\s|\|)", " ", text, flags=re.M)
    return re.sub(r"\s+", " ", text).strip()


def contains(needle: str, haystack: str) -> bool:
    """`needle` (normalised) is in `haystack` (normalised): as a substring, else partial_ratio ≥ MATCH."""
    from rapidfuzz import fuzz

    if not needle or not haystack:
        return False
    if needle in haystack:
        return True
    if len(needle) > len(haystack):
        return False  # longer than the article: not "inside" it
    return fuzz.partial_ratio(needle, haystack, score_cutoff=MATCH) >= MATCH


def overlaps(cited: str, gold: str) -> bool:
    """The cited text holds a substantial part of the gold quote or vice versa (both normalised)."""
    from rapidfuzz import fuzz

    if not cited or not gold:
        return False
    short, long_ = (cited, gold) if len(cited) <= len(gold) else (gold, cited)
    if len(short) < min(len(gold), 50):  # a few shared words are not "a substantial part"
        return False
    return short in long_ or fuzz.partial_ratio(short, long_, score_cutoff=MATCH) >= MATCH


def pieces(text: str) -> list[str]:
    """Sentence-sized pieces of normalised text, ≥ 40 characters, amendment notes left out."""
    out = []
    for part in re.split(r"(?<=[.;:])\s+", text):
        part = part.strip()
        if len(part) >= 40 and not (NOTE.search(part) and len(part) < 120):
            out.append(part)
    return out


# --- ground truth from the PDF --------------------------------------------------------------------------------------
def article_key(label: str) -> str:
    """'27' / '27o' / '3o.' / 'Artículo_80_Bis' / '80 bis' → '27', '3', '80 bis'."""
    label = label.replace("_", " ").replace("Artículo", "").strip().lower()
    m = re.fullmatch(r"(\d+)\s*(?:o|º|°)?\.?\s*(bis|ter|qu[aá]ter)?", label)
    if not m:
        return label
    return m.group(1) + (f" {m.group(2)}" if m.group(2) else "")


def start_pattern(key: str) -> re.Pattern:
    num, _, suffix = key.partition(" ")
    tail = rf"\s+{suffix}\s*\.-?" if suffix else r"\s*\.-?(?!\s*(?:bis|ter|qu[aá]ter)\b)"
    return re.compile(rf"^Art[íi]culo\s+{num}(?!\d)(?:o|º|°)?{tail}", re.I)


# A structural heading line (not a wrapped sentence such as "Título Cuarto de esta Constitución."): ends an article.
STRUCTURE = re.compile(
    r"^(?:(?:T[ÍI]TULO|CAP[ÍI]TULO|SECCI[ÓO]N|LIBRO|Título|Capítulo|Sección|Libro)\s+[^\s.,;:]+"
    r"|(?:Art[íi]culos\s+)?(?:TRANSITORIOS?|[Tt]ransitorios?)"
    r"|(?:ART[ÍI]CULOS\s+)?TRANSITORIOS?\s+DE\s.*)$"
)
ANY_ARTICLE = re.compile(r"^Art[íi]culo\s+(\d+)(?:o|º|°)?(\s+(?:Bis|Ter|Qu[aá]ter))?\s*\.-?", re.I)


@dataclass
class Article:
    key: str  # "27", "3", "80 bis"
    label: str  # as the law numbers it: "27", "3o", "80 Bis"
    page: int  # 1-based page the outline (or the regex) found it on
    text: str = ""  # normalised, from the "Artículo N." line to the next entry's line
    opening: str = ""  # its first 120 characters


@dataclass
class Law:
    file: str
    path: Path
    sha256: str
    source: str  # "outline" or "text regex"
    articles: dict[str, Article] = field(default_factory=dict)


def pdf_lines(doc) -> list[tuple[int, str]]:
    """(page index, line) for the whole PDF, running headers/footers removed."""
    pages = [[s for s in (ln.strip() for ln in doc[i].get_text().splitlines()) if s] for i in range(doc.page_count)]

    def edge(page: list[str]) -> set[str]:  # where running headers and footers sit
        return set(page[:12]) | set(page[-4:])

    seen = Counter(ln for page in pages for ln in edge(page))
    common = {ln for ln, n in seen.items() if n >= max(3, 0.3 * len(pages))}
    folio = re.compile(r"^\d+\s+de\s+\d+$")
    out = []
    for i, page in enumerate(pages):
        for j, ln in enumerate(page):
            at_edge = j < 12 or j >= len(page) - 4
            if at_edge and (ln in common or folio.match(ln)):
                continue
            out.append((i, ln))
    return out


def load_law(path: Path) -> Law:
    import pymupdf

    sha = hashlib.sha256(path.read_bytes()).hexdigest()
    doc = pymupdf.open(path)
    lines = pdf_lines(doc)
    first_line_of_page = {}
    for pos, (page, _) in enumerate(lines):
        first_line_of_page.setdefault(page, pos)

    def find(pattern: re.Pattern, page: int, after: int = 0) -> int | None:
        """The first line matching `pattern` on PDF page index `page` or the two after it."""
        for pos in range(max(first_line_of_page.get(page, len(lines)), after), len(lines)):
            if lines[pos][0] > page + 2:
                return None
            if pattern.match(lines[pos][1]):
                return pos
        return None

    entries = []  # (key, label, 1-based page, start pattern)
    for _, title, page in doc.get_toc():
        title = title.replace("_", " ").strip()
        m = re.fullmatch(r"Art[íi]culo\s+(\d+(?:o|º)?(?:\s+(?:Bis|Ter|Qu[aá]ter))?)", title, re.I)
        if m:  # numbered articles only: the transitory "Artículo Primero" … are not what "artículo N" names
            key = article_key(m.group(1))
            entries.append((key, m.group(1), page, start_pattern(key)))
    source = "outline"
    if not entries:  # no articles in the outline: the text's own "Artículo N." lines
        source = "text regex"
        for page, ln in lines:
            m = ANY_ARTICLE.match(ln)
            if m:
                label = (m.group(1) + (m.group(2) or "")).strip()
                if article_key(label) not in {e[0] for e in entries}:
                    entries.append((article_key(label), label, page + 1, start_pattern(article_key(label))))
    positions, after = [], 0
    for key, label, page, pattern in entries:
        pos = find(pattern, page - 1, after)
        positions.append(pos)
        if pos is not None:
            after = pos + 1
    law = Law(path.name, path, sha, source)
    for i, (key, label, page, _) in enumerate(entries):
        if positions[i] is None or key in law.articles:
            continue
        end = next((p for p in positions[i + 1:] if p is not None), len(lines))
        end = next((p for p in range(positions[i] + 1, end) if STRUCTURE.match(lines[p][1])), end)
        text = norm(" ".join(ln for _, ln in lines[positions[i]:end]))
        law.articles[key] = Article(key, label, page, text, text[:120])
    missing = [e[1] for e, p in zip(entries, positions) if p is None]
    if missing:
        log(f"{path.name}: no 'Artículo N.' line found for outline entries {missing[:10]}")
    return law


# --- judging hits and citations -------------------------------------------------------------------------------------
def same_file(document, law: Law) -> bool:
    if getattr(document, "source_sha256", None) == law.sha256:
        return True
    return Path(getattr(document, "source_path", "") or "").name == law.file


def chunk_in_article(hit, law: Law, art: Article) -> bool:
    if not same_file(hit.document, law):
        return False
    text = norm(hit.chunk.text)
    if art.opening[:60] in text:
        return True
    parts = pieces(text)
    if not parts:
        return contains(text, art.text) if len(text) >= 20 else False
    inside = sum(len(p) for p in parts if contains(p, art.text))
    return inside >= 0.5 * sum(len(p) for p in parts)


def citations(answer) -> list:
    return [c for seg in answer.content for c in seg.citations]


def cite_label(citation) -> str:
    """How the answer labels the citation (`label` where the models have it), with its PDF pages."""
    return getattr(citation, "label", "") or f"{citation.document_title}, p. {','.join(map(str, citation.pages))}"


def citation_doc(answer, citation):
    for hit in answer.sources:
        if hit.chunk.chunk_id == citation.chunk_id or hit.chunk.doc_id == citation.doc_id:
            return hit.document
    return None


def citation_in_article(answer, citation, law: Law, art: Article) -> bool:
    doc = citation_doc(answer, citation)
    return bool(citation.verified and doc is not None and same_file(doc, law)
                and contains(norm(citation.cited_text), art.text))


def first_rank(hits, law: Law, art: Article) -> int | None:
    for i, hit in enumerate(hits, 1):
        if chunk_in_article(hit, law, art):
            return i
    return None


def rank_figures(ranks: list[int | None]) -> dict:
    n = len(ranks) or 1
    return {
        "n": len(ranks),
        "r1": sum(1 for r in ranks if r == 1) / n,
        "r5": sum(1 for r in ranks if r and r <= 5) / n,
        "mrr": sum(1 / r for r in ranks if r) / n,
    }


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    xs = sorted(values)
    return xs[min(len(xs) - 1, max(0, round(q * (len(xs) - 1))))]


def excerpt(text: str, n: int = 110) -> str:
    text = norm(text)
    return text if len(text) <= n else text[: n - 1] + "…"


# --- the runs ------------------------------------------------------------------------------------------------------
class Runner:
    def __init__(self, index, settings, k: int, search_k: int, answerer: str | None):
        self.index, self.settings, self.k, self.search_k, self.answerer = index, settings, k, search_k, answerer
        self.search_s: list[float] = []
        self.ask_s: list[float] = []
        self.quotes = 0  # verified citations
        self.quotes_with_note = 0  # … whose quoted text holds an amendment note ("Párrafo reformado DOF 06-02-1976")

    def run(self, question: str):
        from retrieval.answers import ask

        ranked = self.index.search(question, k=max(self.k, self.search_k))  # for R@k / MRR, not timed
        t0 = time.perf_counter()
        self.index.search(question, k=self.k)  # what `ask` runs first
        t1 = time.perf_counter()
        answer = ask(self.index, question, k=self.k, answerer=self.answerer, settings=self.settings)
        t2 = time.perf_counter()
        self.search_s.append(t1 - t0)
        self.ask_s.append(t2 - t1)
        quoted = [c.cited_text for c in citations(answer) if c.verified]
        self.quotes += len(quoted)
        self.quotes_with_note += sum(bool(NOTE.search(q)) for q in quoted)
        return ranked, answer


def run_qa(runner: Runner, laws: dict[str, Law], qa_dir: Path) -> dict:
    rows = list(csv.DictReader((qa_dir / "questions.tsv").open(encoding="utf-8"), delimiter="\t"))
    details = []
    for i, row in enumerate(rows, 1):
        law = laws[row["file"]]
        art = law.articles.get(article_key(row["article"]))
        if art is None:
            log(f"{row['id']}: article {row['article']} not found in {row['file']}'s PDF text; skipped")
            continue
        hits, answer = runner.run(row["question"])
        cits = citations(answer)
        gold = norm(row["gold_quote"])
        verified = [c for c in cits if c.verified]
        first = cits[0] if cits else None
        d = {
            "id": row["id"], "style": row["style"], "article": row["article"], "question": row["question"],
            "search_rank": first_rank(hits, law, art),
            "sources_rank": first_rank(answer.sources, law, art),
            "found": answer.found,
            "cites_gold": any(overlaps(norm(c.cited_text), gold) for c in verified),
            "first_in_article": bool(first and citation_in_article(answer, first, law, art)),
            "citations": len(cits), "verified": len(verified),
            "first_citation": excerpt(first.cited_text) if first else None,
            "first_citation_label": cite_label(first) if first else None,
            "answer": excerpt(answer.text, 200),
            "fallback_reason": answer.fallback_reason,
        }
        details.append(d)
        log(f"  (a) {i}/{len(rows)} {row['id']} rank {d['search_rank']} gold {d['cites_gold']} "
            f"first-in-article {d['first_in_article']} found {d['found']}")
    groups = {"all": details}
    for style in sorted({d["style"] for d in details}):
        groups[style] = [d for d in details if d["style"] == style]
    summary = {}
    for name, ds in groups.items():
        n = len(ds) or 1
        s = {
            "n": len(ds),
            "search": rank_figures([d["search_rank"] for d in ds]),
            "sources": rank_figures([d["sources_rank"] for d in ds]),
            "cites_gold": sum(d["cites_gold"] for d in ds) / n,
            "not_found": sum(not d["found"] for d in ds) / n,
            "first_in_article": sum(d["first_in_article"] for d in ds) / n,
        }
        summary[name] = s
    return {"summary": summary, "questions": details}


def run_lookup(runner: Runner, laws: dict[str, Law], limit: int | None) -> dict:
    out = {}
    for file, name in LAWS.items():
        law = laws[file]
        arts = list(law.articles.values())
        step = max(1, -(-len(arts) // limit)) if limit else 1
        sample = arts[::step]
        details = []
        for j, art in enumerate(sample, 1):
            question = f"¿Qué establece el artículo {art.label} de {name}?"
            hits, answer = runner.run(question)
            cits = citations(answer)
            first = next((c for c in cits if c.verified), None)
            doc = citation_doc(answer, first) if first else None
            d = {
                "article": art.label, "question": question,
                "right": bool(first and citation_in_article(answer, first, law, art)),
                "right_file": bool(doc is not None and same_file(doc, law)),
                "found": answer.found,
                "in_sources": any(same_file(h.document, law) for h in answer.sources),
                "search_rank": first_rank(hits, law, art),
                "sources_rank": first_rank(answer.sources, law, art),
                "first_citation": excerpt(first.cited_text) if first else None,
                "first_citation_label": cite_label(first) if first else None,
            }
            details.append(d)
            if j % 10 == 0 or j == len(sample):
                log(f"  (b) {file}: {j}/{len(sample)}, right so far {sum(x['right'] for x in details)}")
        n = len(details) or 1
        if details and not any(d["in_sources"] for d in details):
            log(f"WARNING: {file} never appears among the answers' sources: is it in the index?")
        out[file] = {
            "articles_in_pdf": len(arts), "asked": len(details), "every": step, "article_source": law.source,
            "right": sum(d["right"] for d in details) / n,
            "right_file": sum(d["right_file"] for d in details) / n,
            "not_found": sum(not d["found"] for d in details) / n,
            "search": rank_figures([d["search_rank"] for d in details]),
            "sources": rank_figures([d["sources_rank"] for d in details]),
            "questions": details,
        }
    return out


# --- index ---------------------------------------------------------------------------------------------------------
def ensure_index(home: Path, pdfs: Path | list[Path], reindex: bool, env: dict[str, str]) -> None:
    """An index of `pdfs` (a folder, or a list of files) at `home` through `gaceta ingest`, unless one is there."""
    from retrieval.index import Index
    from retrieval.settings import Settings

    home.mkdir(parents=True, exist_ok=True)
    with Index.open(Settings(home=home)) as index:
        chunks = index.status().chunks
    if chunks and not reindex:
        log(f"index at {home}: {chunks} chunks (pass --reindex to ingest again)")
        return
    paths = [str(p) for p in pdfs] if isinstance(pdfs, list) else [str(pdfs)]
    log(f"ingesting {', '.join(paths)} into {home} with `gaceta ingest` (several minutes)…")
    t0 = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", "from gaceta.cli import main; main()", "ingest", *paths],
                          env={**os.environ, **env, "GACETA_HOME": str(home)}, stdout=sys.stderr, stderr=sys.stderr,
                          cwd=home)  # not the caller's folder: `-c` puts it first on sys.path, over PYTHONPATH
    log(f"gaceta ingest exited {done.returncode} after {time.perf_counter() - t0:.0f} s")
    if done.returncode not in (0, 1):  # 1: some files failed (the broken inputs do), the rest are indexed
        sys.exit(f"gaceta ingest failed ({done.returncode})")
    with Index.open(Settings(home=home)) as index:
        if not index.status().chunks:
            sys.exit(f"gaceta ingest left the index at {home} empty: see its output above")


def code_version() -> dict:
    import retrieval

    where = Path(retrieval.__file__).resolve().parents[1]
    try:
        commit = subprocess.run(["git", "-C", str(where), "rev-parse", "--short", "HEAD"], capture_output=True,
                                text=True).stdout.strip() or None
        dirty = bool(subprocess.run(["git", "-C", str(where), "status", "--porcelain", "--untracked-files=no"],
                                    capture_output=True, text=True).stdout.strip()) if commit else None
    except OSError:
        commit, dirty = None, None
    return {"code": str(where), "commit": commit, "dirty": dirty}


# --- printing ------------------------------------------------------------------------------------------------------
def f3(x: float) -> str:
    return f"{x:.3f}"


def print_tables(result: dict) -> None:
    p = print
    meta = result["meta"]
    p(f"# Legal QA — index {meta['home']} ({meta['chunks']} chunks, {meta['documents']} documents), answerer "
      f"{meta['answerer']}, k {meta['k']}, code {meta['code']['code']} @ {meta['code']['commit']}"
      f"{' (dirty)' if meta['code']['dirty'] else ''}, env {meta['env'] or '{}'}")
    if "qa" in result:
        p("\n## (a) mx_legal_qa")
        p("| style | n | search R@1 | R@5 | MRR | answer-sources R@1 | R@5 | MRR | cites gold quote | not found "
          "| first citation in gold article |")
        p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for name, s in result["qa"]["summary"].items():
            fia = f3(s["first_in_article"]) if name == "names_article" else f"({f3(s['first_in_article'])})"
            p(f"| {name} | {s['n']} | {f3(s['search']['r1'])} | {f3(s['search']['r5'])} | {f3(s['search']['mrr'])} "
              f"| {f3(s['sources']['r1'])} | {f3(s['sources']['r5'])} | {f3(s['sources']['mrr'])} "
              f"| {f3(s['cites_gold'])} | {f3(s['not_found'])} | {fia} |")
        misses = [d for d in result["qa"]["questions"] if not d["cites_gold"]]
        if misses:
            p(f"\nQuestions without a citation of the gold quote ({len(misses)}):")
            for d in misses:
                p(f"- {d['id']} ({d['style']}, art. {d['article']}, search rank {d['search_rank']}, "
                  f"found {d['found']}): first citation [{d['first_citation_label']}] {d['first_citation']!r}")
    if "lookup" in result:
        p("\n## (b) named-article lookup: \"¿Qué establece el artículo N de …?\"")
        p("| law | articles (source) | asked (every k-th) | answered from the article | first citation in the right "
          "file | not found | search R@1 | R@5 | MRR |")
        p("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
        for file, s in result["lookup"].items():
            p(f"| {file} | {s['articles_in_pdf']} ({s['article_source']}) | {s['asked']} (every {s['every']}) "
              f"| **{f3(s['right'])}** | {f3(s['right_file'])} | {f3(s['not_found'])} | {f3(s['search']['r1'])} "
              f"| {f3(s['search']['r5'])} | {f3(s['search']['mrr'])} |")
        for file, s in result["lookup"].items():
            wrong = [d for d in s["questions"] if not d["right"]]
            if wrong:
                p(f"\nWrong in {file} ({len(wrong)}), first 8:")
                for d in wrong[:8]:
                    p(f"- art. {d['article']} (search rank {d['search_rank']}): [{d['first_citation_label']}] "
                      f"{d['first_citation']!r}")
    notes = result["notes_in_quotes"]
    p(f"\nAmendment notes inside quoted answer text: {notes['with_note']} of {notes['quotes']} verified citations")
    lat = result["latency"]
    p("\n## (c) latency per question (seconds)")
    p("| stage | n | median | p95 |")
    p("| --- | ---: | ---: | ---: |")
    for stage, name in (("search", f"index.search (k {meta['k']})"), ("ask", f"ask, whole (k {meta['k']})"),
                        ("answer_step", "answer step (ask − search, per question)")):
        p(f"| {name} | {lat[stage]['n']} | {lat[stage]['median']:.3f} | {lat[stage]['p95']:.3f} |")
    p(f"\nload average at start / end: {meta['load_start']} / {meta['load_end']}")


def index_arguments(ap: argparse.ArgumentParser) -> None:
    """The index and question set every mx_legal_qa benchmark takes (`ensure_index` builds the index)."""
    ap.add_argument("--home", type=Path, required=True, help="GACETA_HOME of the index (built here if empty)")
    ap.add_argument("--pdfs", type=Path, default=PDFS, help="folder `gaceta ingest` indexes")
    ap.add_argument("--qa", type=Path, default=QA, help="the mx_legal_qa folder")
    ap.add_argument("--reindex", action="store_true", help="run `gaceta ingest` even if the index has chunks")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    index_arguments(ap)
    ap.add_argument("--answerer", default=None, help="extractive | claude | tags | tools (default: settings)")
    ap.add_argument("--env", action="append", default=[], metavar="KEY=VALUE",
                    help="environment variable set before Settings() is built (repeatable)")
    ap.add_argument("--k", type=int, default=8, help="chunks the answer gets (ask's k)")
    ap.add_argument("--search-k", type=int, default=20, help="hits ranked for R@k/MRR")
    ap.add_argument("--limit", type=int, default=None,
                    help="(b): ask about ~N articles a law (every k-th); default all")
    ap.add_argument("--skip-qa", action="store_true", help="leave out (a)")
    ap.add_argument("--skip-lookup", action="store_true", help="leave out (b)")
    ap.add_argument("--json", action="store_true", help="print one JSON object (with per-question details)")
    args = ap.parse_args()

    env = {}
    for item in args.env:
        key, sep, value = item.partition("=")
        if not sep or not key:
            ap.error(f"--env wants KEY=VALUE, not {item!r}")
        env[key] = value
    os.environ.update(env)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    home = args.home.resolve()

    load_start = round(os.getloadavg()[0], 2)
    ensure_index(home, args.pdfs, args.reindex, env)

    from retrieval.index import Index
    from retrieval.settings import Settings

    t0 = time.perf_counter()
    laws = {f: load_law(args.pdfs / f) for f in LAWS}
    for law in laws.values():
        log(f"{law.file}: {len(law.articles)} articles from the {law.source} "
            f"({time.perf_counter() - t0:.1f} s)")
    settings = Settings(home=home)
    result: dict = {}
    with Index.open(settings) as index:
        status = index.status()
        runner = Runner(index, settings, args.k, args.search_k, args.answerer)
        runner.run("¿Qué establece el artículo 1o de la Constitución?")  # warm-up (model, caches): not timed
        runner.search_s.clear()
        runner.ask_s.clear()
        if not args.skip_qa:
            result["qa"] = run_qa(runner, laws, args.qa)
        if not args.skip_lookup:
            result["lookup"] = run_lookup(runner, laws, args.limit)
        step = [a - s for a, s in zip(runner.ask_s, runner.search_s)]  # ask less a search like its own
        result["notes_in_quotes"] = {"quotes": runner.quotes, "with_note": runner.quotes_with_note}
        result["latency"] = {
            name: {"n": len(xs), "median": statistics.median(xs) if xs else float("nan"), "p95": pct(xs, 0.95)}
            for name, xs in (("search", runner.search_s), ("ask", runner.ask_s), ("answer_step", step))
        }
    result["meta"] = {
        "home": str(home), "chunks": status.chunks, "documents": status.documents,
        "answerer": args.answerer or settings.answerer, "k": args.k, "search_k": args.search_k, "limit": args.limit,
        "env": env, "code": code_version(), "load_start": load_start, "load_end": round(os.getloadavg()[0], 2),
        "article_sources": {f: law.source for f, law in laws.items()},
    }
    if args.json:
        print(json.dumps(result, ensure_ascii=False, default=str))
    else:
        print_tables(result)


if __name__ == "__main__":
    main()
