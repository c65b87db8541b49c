"""`gaceta mcp` over stdio, driven by the MCP SDK's own client, on a real index of the CPEUM and the Ley de Amparo:
the tools an agent sees, a provision fetched verbatim and found on its PDF page, an answer whose citations are the
document's own words, quotes classified, references read, and failures as one-line tool errors."""

from __future__ import annotations

import re

import pymupdf
import pytest

from tests.conftest import pdf

TOOLS = {"search", "get_provision", "ask", "check_quote", "attribute", "format_citation", "list_documents",
         "compare_versions", "article_history"}
CPEUM_NAME = "Constitución Política de los Estados Unidos Mexicanos"


def ok(result) -> dict:
    assert not result.is_error, result.content[0].text
    return result.structured_content


def error(result) -> str:
    assert result.is_error, result.structured_content
    text = result.content[0].text
    assert "\n" not in text and "Traceback" not in text, text
    return text


def squashed(text: str) -> str:
    return " ".join(text.split())


def page_words(name: str, page: int) -> str:
    with pymupdf.open(pdf(name)) as doc:
        return squashed(doc[page - 1].get_text())


def test_tools_have_typed_inputs_and_structured_results(mcp):
    tools = {t.name: t for t in mcp.list_tools().tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.description and tool.output_schema, tool.name
        assert tool.annotations.read_only_hint is True
    provision = tools["get_provision"].input_schema
    assert set(provision["required"]) == {"law", "article"}
    assert {"paragraph", "fraction"} <= set(provision["properties"])
    assert tools["search"].input_schema["properties"]["k"]["maximum"] == 100
    assert "filters" in tools["list_documents"].input_schema["properties"]
    templates = [t.uri_template for t in mcp.templates().resource_templates]
    assert templates == ["gaceta://documents/{doc_id}"]


def test_get_provision_cpeum_27_is_the_official_text_on_its_page(mcp):
    got = ok(mcp.call("get_provision", law="CPEUM", article="27"))
    assert "corresponde originariamente a la Nación" in got["text"]
    assert got["label"].startswith(CPEUM_NAME) and "art. 27" in got["label"]
    assert got["article"] == "27" and not got["truncated"]
    # the whole article: its first words through its last fracción, with the notes the law prints
    assert got["text"].startswith("###### Artículo 27.")
    assert len(got["pages"]) > 3 and got["pages"][0] == got["page"]
    assert any(n["text"].startswith("Párrafo reformado DOF") for n in got["notes"])
    # the page it names is the PDF page that prints the article's first paragraph
    assert "corresponde originariamente a la Nación" in page_words(LAWS_CPEUM, got["page"])
    assert got["link"].endswith(f"/documents/{got['doc_id']}/pages/{got['page']}?highlight={got['start']}-"
                                f"{got['end']}")
    # the text is the document's own Markdown between the offsets it gives
    markdown = mcp.read(f"gaceta://documents/{got['doc_id']}").contents[0].text
    assert markdown[got["start"]:got["end"]].strip("\n") == got["text"]


LAWS_CPEUM = "mx_ley_CPEUM_constitucion_politica.pdf"
LAWS_AMPARO = "mx_ley_de_amparo.pdf"


def test_get_provision_one_paragraph_and_one_fraccion(mcp):
    first = ok(mcp.call("get_provision", law="Constitución", article="27", paragraph=1))
    assert "corresponde originariamente a la Nación" in first["text"]
    assert "expropiaciones" not in first["text"]  # the second paragraph
    assert "párr. 1" in first["label"]
    second = ok(mcp.call("get_provision", law="CPEUM", article="27", paragraph=2))
    assert second["text"].startswith("Las expropiaciones sólo podrán hacerse por causa de utilidad pública")
    fraction = ok(mcp.call("get_provision", law="ley de amparo", article="17", fraction="i"))
    assert fraction["text"].startswith("I. Cuando se reclame una norma general autoaplicativa")
    assert "II." not in fraction["text"]
    assert fraction["label"].startswith("Ley de Amparo, art. 17") and "fr. I" in fraction["label"]


def test_ask_returns_verified_citations_of_the_documents_words(mcp):
    answer = ok(mcp.call("ask", question="¿A quién corresponde originariamente la propiedad de las tierras y aguas "
                                         "comprendidas dentro del territorio nacional?"))
    citations = [c for seg in answer["content"] for c in seg["citations"]]
    verified = [c for c in citations if c["verified"]]
    assert verified and answer["coverage"]["cited"] >= 1
    assert any("art. 27" in c["label"] for c in verified)
    assert "Nación" in " ".join(seg["text"] for seg in answer["content"])
    for c in verified:  # each verified citation is the document's words at the offsets it names
        markdown = mcp.read(f"gaceta://documents/{c['doc_id']}").contents[0].text
        assert squashed(markdown[c["start"]:c["end"]]) == squashed(c["cited_text"])


def test_check_quote_altered_misattributed_exact(mcp):
    altered = ok(mcp.call("check_quote", quote="La propiedad de las tierras y aguas comprendidas dentro de los "
                          "límites del territorio nacional, corresponde originalmente al Estado",
                          source="artículo 27 de la Constitución"))["quotes"]
    assert [q["status"] for q in altered] == ["altered"]
    quoted = " ".join(c["quoted"] or "" for c in altered[0]["changes"])
    official = " ".join(c["official"] or "" for c in altered[0]["changes"])
    assert "originalmente" in quoted and "Estado" in quoted
    assert "originariamente" in official and "Nación" in official
    assert "corresponde originariamente a la Nación" in altered[0]["official"]
    assert "art. 27" in altered[0]["found"]

    moved = ok(mcp.call("check_quote", quote="A ninguna ley se dará efecto retroactivo en perjuicio de persona "
                        "alguna", source="artículo 16 de la Constitución"))["quotes"]
    assert moved[0]["status"] == "misattributed" and "art. 14" in moved[0]["found"]

    exact = ok(mcp.call("check_quote", quote="A ninguna ley se dará efecto retroactivo en perjuicio de persona "
                        "alguna", source="artículo 14 constitucional"))["quotes"]
    assert exact[0]["status"] == "exact" and exact[0]["changes"] == []


def test_attribute_checks_a_whole_text(mcp):
    """A model's draft: one quote altered (its changed words and the official wording), one sentence the law backs
    with a verified citation, one claim no indexed text states."""
    draft = ("El artículo 27 de la Constitución dispone: «La propiedad de las tierras y aguas comprendidas dentro de "
             "los límites del territorio nacional, corresponde originalmente al Estado». "
             "A ninguna ley se dará efecto retroactivo en perjuicio de persona alguna. "
             "La velocidad máxima en las autopistas federales es de 110 kilómetros por hora para los automóviles "
             "particulares.")
    got = ok(mcp.call("attribute", text=draft))
    (quote,) = got["quotes"]
    assert quote["status"] == "altered" and "corresponde originariamente a la Nación" in quote["official"]
    assert {"originalmente", "Estado"} <= {w for d in quote["diff"] if d["op"] != "equal"
                                           for w in (d["quoted"] or "").split()}
    assert got["summary"]["quotes"]["altered"] == 1 and sum(got["summary"]["quotes"].values()) == 1
    by_text = {s["text"]: s for s in got["sentences"]}
    backed = by_text["A ninguna ley se dará efecto retroactivo en perjuicio de persona alguna."]
    assert backed["support"] == "supported" and any("art. 14" in c["label"] for c in backed["citations"])
    for c in backed["citations"]:  # the citation is the document's words at the offsets it names
        markdown = mcp.read(f"gaceta://documents/{c['doc_id']}").contents[0].text
        assert squashed(markdown[c["start"]:c["end"]]) == squashed(c["cited_text"])
    invented = next(s for text, s in by_text.items() if text.startswith("La velocidad máxima"))
    assert invented["support"] == "unsupported" and invented["citations"] == []


def test_format_citation_reads_spanish_references(mcp):
    got = ok(mcp.call("format_citation", reference="según el 27 constitucional"))
    assert got["resolved"] and got["reference"]["constitutional"] and got["reference"]["articles"] == ["27"]
    assert got["label"].startswith(CPEUM_NAME) and "art. 27" in got["label"]
    frac = ok(mcp.call("format_citation", reference="artículo 17, fracción I de la Ley de Amparo"))
    assert frac["reference"]["fraccion"] == "I" and "fr. I" in frac["label"]
    unknown = ok(mcp.call("format_citation", reference="artículo 5 de la Ley Federal del Trabajo"))
    assert not unknown["resolved"] and "'Ley Federal del Trabajo' is not a law in the index" in unknown["message"]
    assert "the closest indexed laws: Ley de Amparo" in unknown["message"]


def test_search_hits_carry_label_page_and_link(mcp):
    found = ok(mcp.call("search", query="plazo para presentar la demanda de amparo", k=3))
    assert 1 <= len(found["hits"]) <= 3
    assert any(h["article"] == "17" and h["label"].startswith("Ley de Amparo, art. 17") for h in found["hits"])
    for hit in found["hits"]:
        assert hit["page"] == hit["pages"][0]
        assert hit["link"].endswith(f"/documents/{hit['doc_id']}/pages/{hit['page']}?highlight={hit['start']}-"
                                    f"{hit['end']}")
        # the page it names is the PDF page that prints the passage's first words
        name = LAWS_CPEUM if hit["title"].startswith(CPEUM_NAME) else LAWS_AMPARO
        opening = " ".join(re.findall(r"\w+", hit["text"])[:5])
        assert opening in " ".join(re.findall(r"\w+", page_words(name, hit["page"]))), (hit["label"], opening)
        markdown = mcp.read(f"gaceta://documents/{hit['doc_id']}").contents[0].text
        assert markdown[hit["start"]:hit["end"]] == hit["text"]  # the passage is the document's words
    docs = ok(mcp.call("list_documents"))
    assert docs["total"] == 2
    assert {d["doc_type"] for d in docs["documents"]} == {"CONSTITUCIÓN", "LEY"}


def test_failures_are_one_line_tool_errors(mcp):
    unknown = error(mcp.call("get_provision", law="Ley Federal de Nada", article="27"))
    assert "'Ley Federal de Nada' is not a law in the index" in unknown
    assert "article 999 not found in " + CPEUM_NAME in error(mcp.call("get_provision", law="CPEUM",
                                                                       article="999"))
    assert "párrafo 40 of article 27 not found" in error(mcp.call("get_provision", law="CPEUM", article="27",
                                                                  paragraph=40))
    assert "k:" in error(mcp.call("ask", question="¿qué es el amparo?", k=1000))
    assert "no legal reference" in error(mcp.call("format_citation", reference="buenos días"))
    with pytest.raises(Exception, match="no document 'nope'"):
        mcp.read("gaceta://documents/nope")
