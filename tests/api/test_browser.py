"""The web page in a real browser (Debian's chromium driven by Playwright): ask, see markers, hover, open the panel,
see the highlighted page; a linked question (`/?q=…`) answers itself with citation labels and breadcrumbs; and a PDF
whose text is HTML/JS shows up as text, with no script run. Issue 28: markers and sources are `<a href>` links to the
page view of the highlighted page; the panel shows plain text under a breadcrumb (no Markdown marks); sources are
unique; a headless chromium with a virtual-time budget (what screenshots and link previews use) gets the answer."""

from __future__ import annotations

import re
import subprocess
from urllib.parse import parse_qs, quote, urlparse

import httpx
import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import CHROMIUM, CHROMIUM_FLAGS, XSS_IMG, XSS_SCRIPT


@pytest.fixture
def page(browser, live_url) -> Page:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.dialogs = []
    page.on("dialog", lambda d: (page.dialogs.append(d.message), d.dismiss()))
    page.goto(live_url)
    yield page
    context.close()


def ask(page: Page, question: str) -> None:
    page.fill("#question", question)
    page.click("#ask")
    # The page's CSP forbids eval, so wait through locators rather than wait_for_function.
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)


def test_ask_hover_and_check_a_citation(page, tmp_path):
    ask(page, "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual?")
    markers = page.locator("#answer a.cite")
    assert markers.count() >= 1
    assert page.locator("#sources li").count() >= 1

    markers.first.hover()
    tooltip = page.locator("#tooltip")
    tooltip.wait_for(state="visible")
    assert page.locator("#tooltip-quote").inner_text().strip()
    assert "REGLAMENTO" in page.locator("#tooltip-doc").inner_text().upper()

    markers.first.click()
    page.locator("#panel").wait_for(state="visible")
    assert page.locator("#panel-title").inner_text().upper().startswith("REGLAMENTO")
    assert page.locator("#panel-context mark.quote").inner_text().strip()
    page.wait_for_selector("#panel-image.loaded", timeout=30_000)
    assert "palabras resaltadas" in page.locator("#panel-image-status").inner_text()
    assert page.evaluate("document.getElementById('panel-image').naturalWidth") > 500
    shot = tmp_path / "citation-panel.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000


def linked_question(url: str) -> str:
    return parse_qs(urlparse(url).query).get("q", [""])[0]


def test_a_linked_question_answers_with_labels_and_breadcrumbs(browser, live_url):
    question = ("¿Qué dispone el artículo 16 del Reglamento de los artículos 121 y 122 de la Ley Federal del "
                "Trabajo?")
    context = browser.new_context(viewport={"width": 1200, "height": 1000})
    page = context.new_page()
    page.goto(f"{live_url}/?q={quote(question)}")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
    assert page.input_value("#question") == question
    assert linked_question(page.url) == question

    # What the question was read to name, above the answer.
    understood = page.locator("#understood")
    expect(understood).to_be_visible()
    assert understood.inner_text().startswith("Entendido: art. 16")

    # Each citation as a lawyer cites it: document, article, page; the marker's number is the list's.
    assert page.locator("#answer a.cite").count() >= 1
    label = page.locator("#citations li .cite-label").first.inner_text()
    print("label:", label)
    assert re.search(r"reglamento", label, re.I) and re.search(r"\bp\. \d+$", label)
    assert re.search(r"\bart\. 16\b", label)
    # an extractive sentence is its own quote: the list does not print it a second time
    assert page.locator("#citations li blockquote").count() == 0

    # Where each source sits, as a breadcrumb of plain headings: no Markdown marks, no running headers.
    crumbs = page.locator("#sources li .crumbs").all_inner_texts()
    print("crumbs:", crumbs)
    assert crumbs and any(" › " in c for c in crumbs)
    assert any(re.search(r"CAPÍTULO", c) for c in crumbs)
    for text in crumbs + page.locator("#citations .crumbs").all_inner_texts():
        assert "#" not in text and "Document:" not in text and "page:" not in text
    hit_label = page.locator("#sources li .source-title").first.inner_text()
    assert not hit_label.startswith("#") and re.search(r"\bp\. \d+$", hit_label)

    # Asking again rewrites the address (no new history entry), and the link reproduces the answer.
    again = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual?"
    history = page.evaluate("history.length")
    page.fill("#question", again)
    page.click("#ask")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
    assert linked_question(page.url) == again
    assert page.evaluate("history.length") == history
    first = page.locator("#citations li .cite-label").first.inner_text()
    page.reload()
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
    assert page.input_value("#question") == again
    assert page.locator("#citations li .cite-label").first.inner_text() == first
    context.close()


def test_document_markup_is_shown_as_text_and_never_run(page):
    ask(page, "¿En qué mes se cosechan las zarzamoras del huerto comunitario y cada cuánto ocurre el riego?")
    shown = page.locator("#answer").inner_text() + page.locator("#sources").inner_text()
    page.locator("#answer a.cite").first.click()
    page.wait_for_selector("#panel-image.loaded", timeout=30_000)
    shown += page.locator("#panel-context").inner_text()
    assert XSS_SCRIPT in shown or XSS_IMG in shown
    assert page.evaluate("window.__xss === undefined")
    assert page.dialogs == []
    # The only script is the page's own, the only image the page render.
    assert page.locator("script").count() == 1
    assert page.locator("img").count() == 1


def test_uncited_sentences_are_marked_when_coverage_is_flagged(browser, claude_live_url):
    from tests.api.conftest import UNCITED

    context = browser.new_context()
    page = context.new_page()
    page.goto(claude_live_url)
    page.fill("#question", "¿Qué regula el reglamento de los artículos 121 y 122?")
    page.click("#ask")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
    expect(page.locator("#coverage")).to_have_class(re.compile("flagged"))
    assert page.locator("#answer mark.uncited").all_inner_texts() == UNCITED
    assert page.locator("#answer a.cite").count() == 1  # the late citation found its segment
    context.close()


PLAZO = "¿Dentro de qué plazo puede el sindicato formular objeciones a la declaración anual?"
PAGE_LINK = re.compile(r"^/documents/([^/]+)/pages/(\d+)\?highlight=(\d+)-(\d+)$")


def test_markers_and_sources_are_links_to_the_highlighted_page(page, live_url):
    ask(page, PLAZO)
    answer = httpx.post(f"{live_url}/ask", json={"question": PLAZO}, timeout=120).json()
    cites = [c for seg in answer["content"] for c in seg["citations"]]
    markers = page.locator("#answer a.cite")
    assert markers.count() == len(cites) >= 1
    for i, citation in enumerate(cites):
        href = markers.nth(i).get_attribute("href")
        doc_id, n, start, end = PAGE_LINK.match(href).groups()
        assert (doc_id, int(n), int(start), int(end)) == (citation["doc_id"], citation["pages"][0],
                                                          citation["start"], citation["end"])
    # the numbered list's labels are the same links
    assert page.locator("#citations li a.cite-label").first.get_attribute("href") == markers.first.get_attribute("href")

    # the link opens a page of its own (a new tab, a brief): the highlighted page image and the cited words
    view = page.context.new_page()
    view.goto(live_url + markers.first.get_attribute("href"))
    expect(view.locator("h1")).to_have_text(re.compile("REGLAMENTO", re.I))
    image = view.locator("#page-image")
    expect(image).to_have_attribute("src", re.compile(r"\.png\?highlight=\d+-\d+$"))
    view.wait_for_load_state("load")
    assert view.evaluate("document.getElementById('page-image').naturalWidth") > 500
    png = httpx.get(live_url + image.get_attribute("src"), timeout=60)
    assert png.status_code == 200 and int(png.headers["X-Highlighted-Words"]) > 0
    quoted = " ".join(view.locator("blockquote").inner_text().split())
    assert " ".join(cites[0]["cited_text"].split())[:60].lstrip("# ") in quoted, quoted
    view.close()

    # each source is a link to its page too; no entry twice
    titles = page.locator("#sources a.source-title")
    hrefs = [titles.nth(i).get_attribute("href") for i in range(titles.count())]
    assert hrefs and all(re.match(r"^/documents/[^/]+/pages/\d+(\?highlight=\d+-\d+)?$", h) for h in hrefs)
    assert len(set(hrefs)) == len(hrefs)
    texts = titles.all_inner_texts()
    assert len(set(texts)) == len(texts), texts
    assert page.locator("#sources li").count() <= len(answer["sources"])


def test_the_context_panel_shows_plain_text_under_a_breadcrumb(page, live_url):
    ask(page, PLAZO)
    answer = httpx.post(f"{live_url}/ask", json={"question": PLAZO}, timeout=120).json()
    first = answer["content"][0]["citations"][0] if answer["content"][0]["citations"] else \
        next(c for seg in answer["content"] for c in seg["citations"])
    chunk = httpx.get(f"{live_url}/chunks/{first['chunk_id']}", timeout=60).json()["chunk"]
    assert re.search(r"(?m)^#{1,6} ", chunk["text"])  # the source's text carries Markdown heading marks
    page.locator("#answer a.cite").first.click()
    page.locator("#panel").wait_for(state="visible")
    context = page.locator("#panel-context").inner_text()
    assert context.strip() and "#" not in context and "**" not in context, context
    crumbs = page.locator("#panel-crumbs").inner_text()
    assert " › " in crumbs and "#" not in crumbs, crumbs
    # words a lawyer uses: no internal names, no law named twice
    status = page.locator("#status").inner_text()
    assert "«" not in status and answer["backend"] not in status, status
    assert "por referencia" not in page.locator("main").inner_text()
    meta = page.locator("#panel-meta").inner_text()
    title = page.locator("#panel-title").inner_text()
    assert "Edición" not in meta or title.casefold() not in meta.casefold()
    assert page.locator("#panel-open").get_attribute("href").startswith("/documents/")
    # the permanent link is the page with the question
    permalink = page.locator("#permalink").get_attribute("href")
    assert linked_question("http://x" + permalink) == PLAZO


def test_a_headless_screenshot_with_a_virtual_time_budget_shows_the_answer(live_url, tmp_path):
    """What a screenshot tool or a link preview does: load `/?q=…` in headless chromium, let virtual time run out,
    capture. The answer must be there by then (a linked question is one request the browser waits for)."""
    answer = httpx.post(f"{live_url}/ask", json={"question": PLAZO}, timeout=120).json()
    sentence = " ".join(answer["content"][0]["text"].split())
    url = f"{live_url}/?q={quote(PLAZO)}"
    flags = [str(CHROMIUM), "--headless", *CHROMIUM_FLAGS, "--window-size=1200,1600", "--virtual-time-budget=30000"]
    dom = subprocess.run([*flags, "--dump-dom", url], capture_output=True, text=True, timeout=180)
    assert dom.returncode == 0, dom.stderr[-2000:]
    text = " ".join(re.sub(r"<[^>]+>", " ", dom.stdout.split('id="answer"', 1)[1].split("</article>")[0]).split())
    assert sentence[:80] in text, text[:500]
    assert "Buscando y redactando" not in dom.stdout
    shot = tmp_path / "answer.png"
    done = subprocess.run([*flags, f"--screenshot={shot}", url], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0 and shot.stat().st_size > 20_000, done.stderr[-2000:]


def test_a_source_shows_the_version_it_is(browser, amparo_versions):
    """Issue 24: a consolidated law is dated by its last reform as its pages print it ("Última reforma DOF
    16-10-2025"), its label names the version when the index holds two, and the panel shows both dates."""
    from gaceta.api import create_app
    from retrieval.index import Index
    from retrieval.settings import Settings
    from tests.api.conftest import LiveServer

    settings = Settings(home=amparo_versions, answerer="extractive", api_key=None)
    with Index.open(settings) as index, LiveServer(create_app(settings, index)) as server:
        context = browser.new_context(viewport={"width": 1200, "height": 1000})
        page = context.new_page()
        page.goto(f"{server.url}/?q={quote('¿Qué establece el artículo 7o. de la Ley de Amparo?')}")
        expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
        meta = page.locator("#sources li .source-meta").first.inner_text()
        print("meta:", meta)
        assert "Última reforma DOF 16-10-2025" in meta and "2025-10-16" not in meta
        label = page.locator("#citations li .cite-label").first.inner_text()
        assert label.startswith("Ley de Amparo (texto vigente al 16-10-2025), art. 7")
        # the article was looked up in both versions: one law, named once
        understood = page.locator("#understood").inner_text()
        assert understood == "Entendido: art. 7 de Ley de Amparo", understood
        page.locator("#sources li .source-title").first.click()
        page.locator("#panel").wait_for(state="visible")
        panel = page.locator("#panel-meta").inner_text()
        assert "Última reforma DOF 16-10-2025" in panel and "02-04-2013" in panel  # the Ley de Amparo's publication
        crumbs = page.locator("#panel-crumbs").inner_text()
        assert crumbs and "#" not in crumbs and "*" not in crumbs
        context.close()


def test_the_page_says_whose_law_it_searched(browser, tmp_path):
    """Issue 25: a question naming one country ("… en México?") over an index of several countries' laws is answered
    from that country's documents, and the page says so above the answer, asked or linked."""
    import pymupdf

    from gaceta.api import create_app
    from ingest.parse import parse_pdf
    from retrieval.index import Index
    from retrieval.settings import Settings
    from tests.api.conftest import LiveServer
    from tests.conftest import PDFS, SHARED

    spain = tmp_path / "codigo_penal.pdf"  # Spain's Código Penal, its first 12 pages (its "delitos" articles)
    with pymupdf.open(SHARED / "data" / "laws" / "boe_consolidado_BOE-A-1995-25444_codigo_penal.pdf") as src, \
            pymupdf.open() as out:
        out.insert_pdf(src, to_page=11)
        out.save(spain)
    settings = Settings(home=tmp_path / "home", answerer="extractive", api_key=None, _env_file=None)
    question = "¿Qué delitos se castigan en México?"
    expected = "«México»: derecho de México (1 documento de otro país fuera de la búsqueda)"
    with Index.open(settings) as index:
        for path in (spain, PDFS / "mx_durango_ley_del_periodico_oficial.pdf"):
            index.add_documents(parse_pdf(path).documents)
        with LiveServer(create_app(settings, index)) as server:
            context = browser.new_context(viewport={"width": 1200, "height": 1000})
            page = context.new_page()
            page.goto(server.url)
            ask(page, question)  # the stream: its sources event
            expect(page.locator("#understood")).to_contain_text(expected)
            assert "Código Penal" not in page.locator("#sources").inner_text()
            page.goto(f"{server.url}/?q={quote(question)}")  # a linked question: the whole answer at once
            expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
            expect(page.locator("#understood")).to_contain_text(expected)
            context.close()
