"""POST /attribute and the web page's "check a text" view, on the real reglamento of the API index: a memo quoting its
articles (taken from the document's own text) exactly, with a changed word, under the wrong article number, and a
quote that is nowhere; bad requests are refused with the reason."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from playwright.sync_api import expect

from ingest.sentences import split_sentences
from tests.api.conftest import CLI, REGLAMENTO, ServeProcess
from tests.index_fixtures import build_index

NOWHERE = "Las zarzamoras del sindicato se reparten cada trimestre entre los inspectores del trabajo jubilados"


def article_sentences(markdown: str, number: int) -> list[str]:
    """The sentences of "ARTÍCULO {number}o.-" in the document's Markdown (its heading line left out)."""
    m = re.search(rf"^#+ ARTÍCULO {number}o?\.-\s*$(.*?)(?=^#)", markdown, re.M | re.S)
    assert m, f"article {number} not found in the reglamento's text"
    body = m.group(1)
    return [body[s.start:s.end] for s in split_sentences(body)]


@pytest.fixture(scope="module")
def memo(client, reglamento_doc_id) -> dict:
    markdown = client.get(f"/documents/{reglamento_doc_id}").json()["markdown"]
    art6 = article_sentences(markdown, 6)[0]
    art5_last = next(s for s in article_sentences(markdown, 5) if "quince días hábiles" in s)
    art8 = article_sentences(markdown, 8)[0]
    altered = art5_last.replace("quince días hábiles", "treinta días hábiles", 1)
    assert altered != art5_last
    text = (
        "Memorándum sobre el reparto de utilidades.\n\n"
        f"El artículo 6o. del Reglamento dispone: «{art6}»\n\n"
        f"Según el artículo 5o., «{altered}»\n\n"
        f"El artículo 3o. establece que «{art8}»\n\n"
        f"El artículo 9o. dice: «{NOWHERE}.»\n"
    )
    expected = [("exact", art6, "6"), ("altered", altered, "5"), ("misattributed", art8, "8"),
                ("not_found", NOWHERE, None)]
    return {"text": text, "expected": expected, "official_5": art5_last}


def check_memo(result: dict, memo: dict) -> None:
    quotes = result["quotes"]
    assert [q["status"] for q in quotes] == [e[0] for e in memo["expected"]]
    for q, (status, text, article) in zip(quotes, memo["expected"]):
        assert memo["text"][q["start"]:q["end"]].rstrip(".") == text.rstrip(".")
        assert q["found_article"] == article
        if status != "not_found":
            assert q["citations"] and all(c["verified"] for c in q["citations"])
            assert q["found_label"].startswith("Reglamento de los Artículos 121 y 122")
    altered = quotes[1]
    assert " ".join(altered["official"].split()) == " ".join(memo["official_5"].split())
    changes = [(d["quoted"], d["official"]) for d in altered["diff"] if d["op"] != "equal"]
    assert changes == [("treinta", "quince")]
    assert quotes[2]["claimed"]["articles"] == ["3"] and quotes[2]["verbatim"]
    # each quote's sentence carries its verdict; only the exact and altered ones carry citations
    support = {q["status"]: result["sentences"][q["sentence"]]["support"] for q in quotes}
    assert support == {"exact": "supported", "altered": "partial", "misattributed": "unsupported",
                       "not_found": "unsupported"}
    assert result["summary"]["quotes"] == {"exact": 1, "altered": 1, "misattributed": 1, "not_found": 1}
    assert "".join(seg["text"] for seg in result["content"]) == memo["text"]


def test_a_memo_quoting_the_reglamento(client, memo, reglamento_doc_id):
    r = client.post("/attribute", json={"text": memo["text"]})
    assert r.status_code == 200, r.text
    result = r.json()
    check_memo(result, memo)
    assert result["backend"] == "attribution"
    # the same memo checked only against the reglamento: the same verdicts
    r = client.post("/attribute", json={"text": memo["text"], "doc_ids": [reglamento_doc_id],
                                        "question": "¿Cuándo debe efectuarse el reparto de utilidades?"})
    assert r.status_code == 200, r.text
    check_memo(r.json(), memo)
    assert r.json()["doc_ids"] == [reglamento_doc_id]


@pytest.mark.parametrize("body, status, words", [
    ({"text": "   \n "}, 422, "empty"),
    ({"text": ""}, 422, "text"),
    ({"text": "x" * 50_001}, 422, "text"),
    ({"text": "Un texto.", "doc_ids": [f"d{i}" for i in range(21)]}, 422, "doc_ids"),
    ({"text": "Un texto.", "doc_ids": ["no-such-document"]}, 404, "no-such-document"),
    ({"text": "Un texto.", "colour": "red"}, 422, "colour"),
])
def test_bad_requests_say_why(client, body, status, words):
    r = client.post("/attribute", json=body)
    assert r.status_code == status, r.text
    body = r.json()
    assert words in (body.get("message") or body.get("detail") or "")


def test_the_check_view_in_a_browser(browser, live_url, memo, tmp_path):  # noqa: F811
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.goto(live_url)
    page.click("#mode-check")
    expect(page.locator("#check-form")).to_be_visible()
    expect(page.locator("#ask-form")).to_be_hidden()
    page.fill("#check-text", memo["text"])
    page.click("#check")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Revisión terminada"), timeout=120_000)

    # each quote marked in its sentence with its verdict, and listed with the official wording
    marks = page.locator("#answer mark.quote-mark")
    assert marks.count() == 4
    classes = [marks.nth(i).get_attribute("class") for i in range(4)]
    assert [c.split("q-")[1] for c in classes] == ["exact", "altered", "misattributed", "not_found"]
    badges = page.locator("#quotes li .badge").all_inner_texts()
    assert badges == ["cita exacta", "cita alterada", "cita mal atribuida", "cita no encontrada"]
    altered = page.locator("#quotes li").nth(1)
    assert altered.locator(".quote-official del").inner_text() == "treinta"
    assert altered.locator(".quote-official ins").inner_text() == "quince"
    assert "art. 8" in page.locator("#quotes li").nth(2).locator(".quote-where").inner_text()
    # the sentences: supported, partly, unsupported
    supports = page.locator("#answer .segment.support")
    assert {supports.nth(i).get_attribute("data-support") for i in range(supports.count())} >= {
        "supported", "partial", "unsupported"}
    summary = page.locator("#check-summary").inner_text()
    assert re.search(r"\d+ respaldadas · \d+ en parte · [1-9]\d* sin respaldo de \d+ frases", summary), summary
    assert "Citas textuales: 1 exacta, 1 alterada, 1 mal atribuida, 1 no encontrada." in summary

    # the official wording opens on its highlighted PDF page
    page.locator("#quotes li").nth(2).locator(".quote-where button").click()
    page.locator("#panel").wait_for(state="visible")
    page.wait_for_selector("#panel-image.loaded", timeout=30_000)
    assert "palabras resaltadas" in page.locator("#panel-image-status").inner_text()
    assert page.locator("#panel-context mark.quote").inner_text().strip()
    shot = tmp_path / "check-view.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.stat().st_size > 10_000

    # back to asking: the check view's results are gone
    page.click("#mode-ask")
    expect(page.locator("#ask-form")).to_be_visible()
    assert page.locator("#quotes li").count() == 0
    context.close()


def test_gaceta_attribute_goes_through_the_serving_owner(memo, tmp_path_factory):
    """With `gaceta serve` holding the index (and its lock), `gaceta attribute -` succeeds through it."""
    home = tmp_path_factory.mktemp("attribute-owner")
    build_index(home, [REGLAMENTO]).close()
    server = ServeProcess(home).start()
    try:
        run = subprocess.run([*CLI, "attribute", "-", "--json"], input=memo["text"], env=server.env,
                             capture_output=True, text=True, timeout=300)
        assert run.returncode == 0, run.stderr
        check_memo(json.loads(run.stdout), memo)
        bad = subprocess.run([*CLI, "attribute", "-", "--doc", "no-such-document"], input="Un texto de prueba.",
                             env=server.env, capture_output=True, text=True, timeout=300)
        assert bad.returncode == 1 and "no-such-document" in bad.stderr and "Traceback" not in bad.stderr
    finally:
        assert server.stop() == 0


def test_the_answer_view_shows_support_and_flag_reasons(browser, claude_live_url):  # noqa: F811
    """An answer whose first two sentences cite nothing: the coverage line says how many sentences their citations
    back, whether the sources address the question, and why the answer is flagged."""
    context = browser.new_context()
    page = context.new_page()
    page.goto(claude_live_url)
    page.fill("#question", "¿Qué regula el reglamento de los artículos 121 y 122?")
    page.click("#ask")
    expect(page.locator("#status")).to_have_text(re.compile(r"^Respuesta"), timeout=60_000)
    coverage = page.locator("#coverage")
    expect(coverage).to_have_class(re.compile("flagged"))
    text = coverage.inner_text()
    assert re.search(r"respaldadas por su cita: \d+ de 3", text), text
    assert "fuentes pertinentes a la pregunta: " in text
    assert "señalada: menos de la mitad de las frases cita una fuente verificada" in text
    context.close()
