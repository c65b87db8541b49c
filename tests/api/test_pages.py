"""Page images: the cited span lights up where the PDF has those words, and only there."""

from __future__ import annotations

import numpy as np
import pymupdf
import pytest

from gaceta.api.pages import PageRenderer, SourceUnavailable
from tests.conftest import pdf
from tests.api.conftest import REGLAMENTO, SENTENCE_END, SENTENCE_START



def _pixels(png: bytes) -> np.ndarray:
    pix = pymupdf.Pixmap(png)
    return np.frombuffer(pix.samples, dtype=np.uint8).reshape(pix.height, pix.width, pix.n)[:, :, :3].astype(int)


def test_highlight_changes_the_page_exactly_where_the_span_is(client, article_13):
    doc, start, end, page = article_13
    doc_id = doc["doc_id"]
    plain = client.get(f"/documents/{doc_id}/pages/{page}.png")
    lit = client.get(f"/documents/{doc_id}/pages/{page}.png", params={"highlight": f"{start}-{end}"})
    assert plain.status_code == lit.status_code == 200
    assert lit.headers["content-type"] == "image/png"
    assert int(lit.headers["x-highlighted-words"]) >= 25
    a, b = _pixels(plain.content), _pixels(lit.content)
    assert a.shape == b.shape
    changed = np.abs(a - b).sum(axis=2) > 30
    assert changed.any()

    # Where the sentence is on the page, independently of our alignment: PyMuPDF's own text search.
    with pymupdf.open(pdf(REGLAMENTO)) as source:
        pdf_page = source[page - 1]
        first = pdf_page.search_for(SENTENCE_START)[0]
        last = pdf_page.search_for(SENTENCE_END)[-1]
        scale = a.shape[1] / pdf_page.rect.width
        height = pdf_page.rect.height
    top, bottom = int((first.y0 - 3) * scale), int((last.y1 + 3) * scale)
    rows = np.nonzero(changed.any(axis=1))[0]
    assert rows.min() >= top and rows.max() <= bottom, "highlight outside the sentence's lines"
    inside = changed[int(first.y0 * scale) : int(first.y1 * scale), int(first.x0 * scale) : int(first.x1 * scale)]
    assert inside.mean() > 0.3, "the sentence's first words are not highlighted"
    x0, y0, x1, y1 = (float(v) for v in lit.headers["x-highlight-box"].split(","))
    assert y0 * height <= first.y1 and y1 * height >= last.y0


def test_span_on_another_page_leaves_the_page_unmarked(client, article_13):
    doc, start, end, page = article_13
    doc_id = doc["doc_id"]
    other = 1 if page != 1 else 2
    plain = client.get(f"/documents/{doc_id}/pages/{other}.png")
    lit = client.get(f"/documents/{doc_id}/pages/{other}.png", params={"highlight": f"{start}-{end}"})
    assert lit.headers["x-highlighted-words"] == "0"
    assert np.array_equal(_pixels(plain.content), _pixels(lit.content))


@pytest.mark.parametrize(
    ("suffix", "status"),
    [("pages/99.png", 404), ("pages/0.png", 422), ("pages/2.png?highlight=50-10", 422),
     ("pages/2.png?highlight=../../etc", 422), ("pages/100001.png", 422)],
)
def test_bad_page_requests(client, reglamento_doc_id, suffix, status):
    r = client.get(f"/documents/{reglamento_doc_id}/{suffix}")
    assert r.status_code == status
    assert r.json()["detail"]
    if status == 422:
        assert r.json()["message"]  # the one shape of every 422, as the schema declares it


def test_a_highlight_is_a_slice_of_the_document(client, reglamento_doc_id):
    """An END past the document's end stops there; an empty span highlights nothing (both schema-valid requests)."""
    doc = client.get(f"/documents/{reglamento_doc_id}").json()
    first, _ = doc["pdf_pages"]
    to_the_end = client.get(f"/documents/{reglamento_doc_id}/pages/{first}.png", params={"highlight": "0-99999999"})
    assert to_the_end.status_code == 200 and int(to_the_end.headers["x-highlighted-words"]) > 10
    empty = client.get(f"/documents/{reglamento_doc_id}/pages/{first}.png", params={"highlight": "7-7"})
    assert empty.status_code == 200 and empty.headers["x-highlighted-words"] == "0"


def test_renders_are_cached(api_index, reglamento_doc_id):
    renderer = PageRenderer(cache_size=4)
    doc = api_index.document(reglamento_doc_id)
    first = renderer.render(doc, 2, (doc.page_spans[1].start, doc.page_spans[1].start + 200))
    again = renderer.render(doc, 2, (doc.page_spans[1].start, doc.page_spans[1].start + 200))
    assert again is first
    assert renderer.cache_info().hits == 1 and first.highlighted_words > 0


def test_changed_or_missing_source_is_refused(api_index, reglamento_doc_id, tmp_path):
    doc = api_index.document(reglamento_doc_id)
    copy = tmp_path / "copy.pdf"
    copy.write_bytes(pdf(REGLAMENTO).read_bytes() + b"\n% appended after indexing\n")
    with pytest.raises(SourceUnavailable, match="changed since it was indexed"):
        PageRenderer().render(doc.model_copy(update={"source_path": str(copy)}), 1)
    with pytest.raises(SourceUnavailable, match="no longer where it was indexed"):
        PageRenderer().render(doc.model_copy(update={"source_path": str(tmp_path / "gone.pdf")}), 1)
