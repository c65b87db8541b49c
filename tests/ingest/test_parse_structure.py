"""Editions split into their documents; headings found without the outline; a long annex stays within memory."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap

import pymupdf

from ingest.headings import fold
from ingest.models import DocType
from ingest.parse import parse_pdf
from tests.conftest import REPO, pdf
from tests.ingest.parsed_cache import parsed


def _folded(text: str) -> str:
    return fold(text.replace("[...]", "")).rstrip(" .")


def test_dof_2024_12_15_documents_match_its_bookmarks() -> None:
    with pymupdf.open(pdf("dof_2024-12-15_MAT_full_edition_34pp.pdf")) as doc:
        toc = doc.get_toc()
    bookmark_titles = [_folded(t[1]) for t in toc if t[0] == 3]
    bodies = [fold(t[1]) for t in toc if t[0] == 2]
    result = parsed("dof_2024-12-15_MAT_full_edition_34pp.pdf")
    legal = [d for d in result.documents if d.doc_type is not DocType.indice]
    assert len(legal) == len(bookmark_titles) == 1
    for doc, title in zip(legal, bookmark_titles):
        assert fold(doc.title).startswith(title), (doc.title, title)
        assert doc.doc_type is DocType.listado
    assert fold(legal[0].issuing_body) == "comite de evaluacion del poder judicial de la federacion" == bodies[0]
    kinds = [(h.level, h.kind) for h in legal[0].headings[:3]]
    assert kinds == [(2, "poder"), (3, "issuing_body"), (4, "title")]


def test_dof_2023_01_11_finds_issuing_bodies_and_titles() -> None:
    result = parsed("dof_2023-01-11_MAT_first20pages.pdf")
    front, *legal = result.documents
    assert front.doc_type is DocType.indice and front.pdf_pages == (1, 1)
    assert [d.issuing_body for d in legal] == [
        "SECRETARIA DE GOBERNACION", "SECRETARIA DE MARINA", "SECRETARIA DE HACIENDA Y CREDITO PUBLICO"]
    cover = fold(front.markdown)
    for d in legal:  # every body found is listed on the cover's CONTENIDO
        assert fold(d.issuing_body) in cover
    assert [d.title.split()[0] for d in legal] == ["AMPLIACIÓN", "TERCER", "ANEXO"]
    assert [d.doc_type for d in legal] == [DocType.anexo, DocType.addendum, DocType.anexo]  # ordinals are not types
    assert legal[0].title.startswith("AMPLIACIÓN al Anexo de asignación y transferencia de recursos")
    assert [d.pdf_pages for d in legal] == [(2, 5), (6, 12), (13, 20)]
    first = legal[0]
    assert first.headings[0].kind == "poder" and first.headings[0].text == "PODER EJECUTIVO"
    part_names = [h.text for h in first.headings if h.kind == "part"]
    assert {"ANTECEDENTES", "DECLARACIONES", "CLÁUSULAS"} <= set(part_names)
    clauses = [h.text for h in first.headings if h.kind == "clause"]
    assert clauses[:3] == ["PRIMERA.-", "SEGUNDA.-", "TERCERA.-"]
    # documents after the first inherit PODER EJECUTIVO as a heading of their own
    assert legal[1].headings[0].text == "PODER EJECUTIVO" and legal[1].headings[1].text == "SECRETARIA DE MARINA"


def test_a_law_stays_one_document() -> None:
    for name in ("mx_ley_CPEUM_constitucion_politica.pdf", "boe_BOE-A-2024-7296_real_decreto_87pp.pdf",
                 "mx_ley_de_amparo.pdf"):
        assert len(parsed(name).documents) == 1, name


def test_constitution_article_recall_with_outline_hidden(tmp_path) -> None:
    source = pdf("mx_ley_CPEUM_constitucion_politica.pdf")
    with pymupdf.open(source) as doc:
        toc = doc.get_toc()
        doc.set_toc([])
        hidden = tmp_path / "cpeum_no_outline.pdf"
        doc.save(hidden)
    assert len(toc) == 157
    result = parse_pdf(hidden)
    with pymupdf.open(hidden) as doc:
        assert doc.get_toc() == []
    headings = [(h.page, _folded(h.text).rstrip("-").rstrip(" .")) for d in result.documents for h in d.headings]
    missing = []
    for _, title, page in toc:
        want = _folded(title)
        if not any(abs(p - page) <= 1 and (text == want or text.startswith(want + " ")) for p, text in headings):
            missing.append((title, page))
    articles = [t for t in toc if t[1].startswith("Artículo")]
    found_articles = len(articles) - sum(1 for t, _ in missing if t.startswith("Artículo"))
    recall = 1 - len(missing) / len(toc)
    print(f"\nConstitution heading recall, outline hidden: {recall:.3f} ({len(toc) - len(missing)}/{len(toc)}); "
          f"articles {found_articles}/{len(articles)}; missing: {missing}")
    assert found_articles == len(articles), missing
    assert recall >= 0.95


def test_779_page_annex_parses_within_2_gb_rss() -> None:
    """The parse's own peak, in a fresh process: VmHWM, the high-water mark of the process's memory since its exec
    (`ru_maxrss` would not do: Linux carries it through exec, so it read this pytest process's size at the fork,
    over 2 GB late in a full run, instead of the parse's ≈ 130 MB)."""
    script = textwrap.dedent(f"""
        import json, sys
        sys.path.insert(0, {str(REPO)!r})
        from ingest.parse import parse_pdf
        result = parse_pdf({str(pdf("dof_2025-01-20_RMF2025_anexo16_779pp.pdf"))!r})
        with open("/proc/self/status") as status:
            rss_kb = next(int(line.split()[1]) for line in status if line.startswith("VmHWM:"))
        print(json.dumps({{"status": result.status.value, "pages": result.source.pages,
                           "docs": len(result.documents), "rss_mb": rss_kb / 1024}}))
    """)
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=True)
    report = json.loads(out.stdout.strip().splitlines()[-1])
    print(f"\n779-page annex: {report}")
    assert report["status"] == "ok" and report["pages"] == 779 and report["docs"] == 1
    assert report["rss_mb"] < 2048


def test_articles_are_headings_whatever_the_house_style() -> None:
    """A BOE order ("Artículo 3. Currículo." at body weight), a Colombian law ("ARTICULO 5o." in capitals, not bold)
    and a treaty ("Artículo 1" alone on its line): each article the PDF text opens a line with is a heading."""
    import re

    for name, opener in (("boe_BOE-A-2024-7296_real_decreto_87pp.pdf", r"Artículo\s\d+\.\s+[A-ZÁÉÍÓÚ]"),
                         ("co_diario_oficial_ley_99_1993.pdf", r"ARTICULO \d+o?\. "),
                         ("es_declaracion_universal_derechos_humanos.pdf", r"Artículo \d+\s*$")):
        with pymupdf.open(pdf(name)) as doc:
            lines = [ln.strip() for page in doc for ln in page.get_text().splitlines()]
        printed = {re.match(r"\D+(\d+)", ln).group(1) for ln in lines if re.match(opener, ln)}
        found = {re.search(r"\d+", h.text).group(0) for d in parsed(name).documents for h in d.headings
                 if h.kind.value == "articulo" and re.search(r"\d+", h.text)}
        assert printed and len(printed & found) >= 0.95 * len(printed), (name, sorted(printed - found)[:10])
