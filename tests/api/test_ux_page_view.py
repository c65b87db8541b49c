"""The page view a citation links to (`GET /documents/{id}/pages/{n}?highlight=START-END`, issue 28): an HTML page with
the highlighted page image, the document's name and the cited words as text; clear 404/422 for a page or span that
is not there; the document's own text escaped, never markup."""

from __future__ import annotations

import re

import pytest

from tests.api.conftest import SENTENCE_END, SENTENCE_START, XSS_SCRIPT



def test_the_page_view_shows_the_highlighted_page_and_the_cited_words(client, article_13):
    doc, start, end, page = article_13
    view = client.get(f"/documents/{doc['doc_id']}/pages/{page}", params={"highlight": f"{start}-{end}"})
    assert view.status_code == 200 and view.headers["content-type"].startswith("text/html")
    assert "default-src 'none'" in view.headers["content-security-policy"]
    html = view.text
    assert f"<h1>{doc['title']}</h1>" in html
    src = re.search(r'<img id="page-image" src="([^"]+)"', html).group(1)
    assert src == f"/documents/{doc['doc_id']}/pages/{page}.png?highlight={start}-{end}"
    image = client.get(src)
    assert image.status_code == 200 and int(image.headers["X-Highlighted-Words"]) > 10
    quoted = re.search(r"<blockquote[^>]*>(.*?)</blockquote>", html, re.S).group(1)
    assert quoted.startswith(SENTENCE_START) and quoted.endswith(SENTENCE_END)
    first, last = doc["pdf_pages"]
    assert (f'href="/documents/{doc["doc_id"]}/pages/{page + 1}"' in html) == (page < last)
    assert (f'href="/documents/{doc["doc_id"]}/pages/{page - 1}"' in html) == (page > first)


def test_a_page_or_span_that_is_not_there_is_a_clear_error(client, article_13):
    doc, start, end, page = article_13
    last = doc["pdf_pages"][1]
    missing = client.get(f"/documents/{doc['doc_id']}/pages/{last + 1}")
    assert missing.status_code == 404 and f"page {last + 1} is not in document" in missing.text
    assert client.get(f"/documents/{doc['doc_id']}/pages/{page}", params={"highlight": f"{end}-{start}"}).status_code == 422
    assert client.get("/documents/no-such-doc/pages/1").status_code == 404
    # the image route is still the image route
    assert client.get(f"/documents/{doc['doc_id']}/pages/{page}.png").headers["content-type"] == "image/png"


def test_document_text_in_the_page_view_is_escaped(client):
    docs = client.get("/documents", params={"limit": 100}).json()["documents"]
    for d in docs:
        full = client.get(f"/documents/{d['doc_id']}").json()
        if XSS_SCRIPT in full["markdown"]:
            hostile, markdown = d, full["markdown"]
            break
    else:
        pytest.fail("the XSS document is not in the test index")
    at = markdown.index(XSS_SCRIPT)
    page = client.get(f"/documents/{hostile['doc_id']}").json()["pdf_pages"][0]
    html = client.get(f"/documents/{hostile['doc_id']}/pages/{page}",
                      params={"highlight": f"{at}-{at + len(XSS_SCRIPT)}"}).text
    assert XSS_SCRIPT not in html and "&lt;script" in html
