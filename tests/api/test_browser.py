"""The web page in a real browser (Debian's chromium driven by Playwright): ask, see markers, hover, open the panel,
see the highlighted page; a linked question (`/?q=…`) answers itself with citation labels and breadcrumbs; and a PDF
whose text is HTML/JS shows up as text, with no script run."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, quote, urlparse

import pytest
from playwright.sync_api import Page, expect

from tests.api.conftest import XSS_IMG, XSS_SCRIPT


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
    markers = page.locator("#answer sup.cite")
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
    assert page.locator("#answer sup.cite").count() >= 1
    label = page.locator("#citations li .cite-label").first.inner_text()
    print("label:", label)
    assert re.search(r"reglamento", label, re.I) and re.search(r"\bp\. \d+$", label)
    assert re.search(r"\bart\. 16\b", label)
    assert page.locator("#citations li blockquote").first.inner_text().strip()

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
    page.locator("#answer sup.cite").first.click()
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
    assert page.locator("#answer sup.cite").count() == 1  # the late citation found its segment
    context.close()
