"""The memo check (issue 17): a lawyer's memo built from real articles of the Ley de Amparo and of the reglamento of
arts. 121–122 LFT — quotes taken from the parsed documents' text — with exact quotes (one with an elision), an altered
quote (a word changed), misattributed quotes (right text, wrong article; right article number, wrong law), a quote
that is nowhere, an unsupported claim and a supported paraphrase. Every quote must be classified right, through
`gaceta attribute - --json` and through `POST /attribute`."""

from __future__ import annotations

import json
from dataclasses import dataclass

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from gaceta.api import create_app
from gaceta.cli import app
from retrieval.answers.base import sentences_of
from retrieval.index import Index
from retrieval.settings import Settings
from tests.index_fixtures import build_index

AMPARO = "mx_ley_de_amparo.pdf"
REGLAMENTO = "mx_reglamento_arts_121_122_LFT.pdf"
NOWHERE = ("La persona quejosa podrá desistirse del juicio por mensaje de texto dentro de las tres horas "
           "siguientes a la audiencia")
UNSUPPORTED = "Los notarios de la capital deben cobrar 4500 pesos por cada copia certificada desde la reforma de 2019."
PARAPHRASE = "La demanda de amparo debe presentarse, por regla general, dentro de un plazo de quince días."


@dataclass
class Quote:
    text: str  # as the memo quotes it
    status: str
    found_in: str | None  # the file whose document holds it
    article: str | None  # the article it is really in
    claimed: list[str]  # the articles the memo says


@dataclass
class Memo:
    text: str
    quotes: list[Quote]
    amparo_17: str  # the official wording of the altered quote


def provision_text(index: Index, doc_id: str, article: str) -> list[str]:
    """The sentences of the article's text in force (not its amendment notes), from the indexed document."""
    chunks = [c for c, _ in index.provisions([doc_id], [article]) if c.role.value == "text"]
    assert chunks, f"article {article} of {doc_id} not found"
    out = []
    for chunk in chunks:
        for span in sentences_of(chunk):
            text = chunk.sentence_text(span)
            if not text.startswith("#") and not any(n.start < span.end and span.start < n.end for n in chunk.notes):
                out.append(text)
    return out


@pytest.fixture(scope="module")
def home(tmp_path_factory):
    home = tmp_path_factory.mktemp("memo")
    build_index(home, [AMPARO, REGLAMENTO]).close()
    return home


@pytest.fixture(scope="module")
def memo(home) -> Memo:
    with Index.open(Settings(home=home)) as index:
        docs = {d.source_path.rsplit("/", 1)[-1]: d.doc_id for e in [index.catalog()] for d in
                (entry.document for entry in e.entries)}
        amparo, reglamento = docs[AMPARO], docs[REGLAMENTO]
        a2 = provision_text(index, amparo, "2")[0]
        a17 = provision_text(index, amparo, "17")[0]
        a18 = provision_text(index, amparo, "18")[0]
        a19 = provision_text(index, amparo, "19")[0]
        r6 = provision_text(index, reglamento, "6")[0]
    assert "quince días" in a17 and a19.count(",") >= 4
    altered = a17.replace("quince días", "treinta días", 1)
    words = a19.split()
    elided = " ".join(words[:12]) + " (…) " + " ".join(words[-8:])
    quotes = [
        Quote(a2, "exact", AMPARO, "2", ["2"]),
        Quote(elided, "exact", AMPARO, "19", ["19"]),
        Quote(altered, "altered", AMPARO, "17", ["17"]),
        Quote(a18, "misattributed", AMPARO, "18", ["16"]),
        Quote(r6, "misattributed", REGLAMENTO, "6", ["6"]),
        Quote(NOWHERE, "not_found", None, None, ["20"]),
    ]
    text = "\n\n".join([
        "MEMORÁNDUM. Plazos y procedencia del juicio de amparo.",
        f"El artículo 2o. de la Ley de Amparo dispone: «{a2}»",
        f"En cuanto a los días hábiles, el artículo 19 señala que «{elided}».",
        f"Conforme al artículo 17 de la Ley de Amparo, «{altered}»",
        f"El artículo 16 de la Ley de Amparo establece que «{a18}»",
        f"La Ley de Amparo, en su artículo 6o., dispone: «{r6}»",
        f"El artículo 20 de la Ley de Amparo prevé que «{NOWHERE}».",
        UNSUPPORTED,
        PARAPHRASE,
    ]) + "\n"
    return Memo(text=text, quotes=quotes, amparo_17=a17)


def squash(text: str) -> str:
    return " ".join(text.split())


def check(result: dict, memo: Memo) -> None:
    quotes = result["quotes"]
    assert len(quotes) == len(memo.quotes)
    got = [(q["status"], squash(q["text"])) for q in quotes]
    assert got == [(q.status, squash(q.text)) for q in memo.quotes]
    sources = {s["chunk"]["chunk_id"]: s for s in result["sources"]}
    for q, want in zip(quotes, memo.quotes):
        assert squash(memo.text[q["start"]:q["end"]]) == squash(want.text)
        assert q["claimed"]["articles"] == want.claimed, q
        assert q["found_article"] == want.article, q
        if want.found_in is None:
            assert not q["citations"] and q["official"] is None
            continue
        assert q["citations"] and all(c["verified"] for c in q["citations"])
        files = {sources[c["chunk_id"]]["document"]["file_name"] for c in q["citations"]}
        assert files == {want.found_in}, q
        assert q["verbatim"] == (want.status != "altered")
    # the altered quote: the official wording, and the word that was changed
    altered = quotes[2]
    assert squash(altered["official"]) == squash(memo.amparo_17)
    assert [(d["quoted"], d["official"]) for d in altered["diff"] if d["op"] != "equal"] == [("treinta", "quince")]
    assert altered["found_label"].startswith("Ley de Amparo, art. 17")
    # the wrong law: the claim resolved to the Ley de Amparo, the words are the reglamento's
    assert quotes[4]["claimed_doc_ids"] and quotes[4]["found_doc_id"] not in quotes[4]["claimed_doc_ids"]
    assert result["summary"]["quotes"] == {"exact": 2, "altered": 1, "misattributed": 2, "not_found": 1}

    sentences = {squash(s["text"]): s for s in result["sentences"]}
    # the claim no law states: never supported, and what no source states is named (how low its score must fall to
    # read "unsupported" is the support judge's calibration, retrieval.answers.support)
    unsupported = sentences[squash(UNSUPPORTED)]
    assert unsupported["support"] != "supported" and unsupported["score"] < 0.4
    assert {"4500", "2019"} <= set(unsupported["missing"])
    paraphrase = sentences[squash(PARAPHRASE)]
    assert paraphrase["support"] in ("supported", "partial")
    assert any(c["label"].startswith("Ley de Amparo, art. 17") for c in paraphrase["citations"])
    by_quote = [result["sentences"][q["sentence"]]["support"] for q in quotes]
    assert by_quote == ["supported", "supported", "partial", "unsupported", "unsupported", "unsupported"]
    # the answer shape of /ask: the memo itself, segment by segment, citations verified
    assert "".join(seg["text"] for seg in result["content"]) == memo.text
    assert all(c["verified"] for seg in result["content"] for c in seg["citations"])
    # coverage counts these verdicts: cited = backed (supported or partly), the rest uncited
    coverage, summary = result["coverage"], result["summary"]
    assert coverage["sentences"] == summary["sentences"]
    assert coverage["cited"] == summary["supported"] + summary["partial"]
    assert coverage["supported"] == summary["supported"]
    assert coverage["ratio"] == round(coverage["cited"] / coverage["sentences"], 4)
    assert coverage["flagged"] == bool(coverage["flag_reasons"])


def test_the_memo_through_the_cli(home, memo, monkeypatch):
    monkeypatch.setenv("GACETA_HOME", str(home))
    result = CliRunner().invoke(app, ["attribute", "-", "--json"], input=memo.text)
    assert result.exit_code == 0, result.output
    check(json.loads(result.stdout), memo)


def test_the_memo_through_the_api(home, memo):
    settings = Settings(home=home, api_key=None)
    with Index.open(settings) as index, TestClient(create_app(settings, index)) as client:
        r = client.post("/attribute", json={"text": memo.text})
        assert r.status_code == 200, r.text
        check(r.json(), memo)
        # checked against the reglamento only: the Ley de Amparo's words are not there, and the reglamento's words
        # are still not the Ley de Amparo's article 6 the memo names
        reglamento = next(s["document"]["doc_id"] for s in r.json()["sources"]
                          if s["document"]["file_name"] == REGLAMENTO)
        r = client.post("/attribute", json={"text": memo.text, "doc_ids": [reglamento]})
        assert r.status_code == 200, r.text
        quotes = r.json()["quotes"]
        assert [q["status"] for q in quotes] == ["not_found"] * 4 + ["misattributed", "not_found"]
        assert quotes[4]["found_doc_id"] == reglamento and quotes[4]["found_article"] == "6"


def test_the_terminal_report(home, memo, monkeypatch, tmp_path):
    monkeypatch.setenv("GACETA_HOME", str(home))
    path = tmp_path / "memo.txt"
    path.write_text(memo.text, encoding="utf-8")
    result = CliRunner().invoke(app, ["attribute", str(path)])
    assert result.exit_code == 0, result.output
    out = squash(result.stdout)
    for word in ("EXACT", "ALTERED", "MISATTRIBUTED", "NOT FOUND", "✗ unsupported", "official: «"):
        assert word in out, word
    assert "replace: “treinta” → “quince”" in out
    assert "quotes: 2 exact, 1 altered, 2 misattributed, 1 not found" in out


def test_bad_input_fails_cleanly(home, monkeypatch, tmp_path):
    monkeypatch.setenv("GACETA_HOME", str(home))
    binary = tmp_path / "memo.pdf"
    binary.write_bytes(b"%PDF-1.7\n\xff\xfe\x00binary")
    cases = [(["attribute", str(tmp_path / "missing.txt")], "no such file"),
             (["attribute", str(binary)], "not UTF-8"),
             (["attribute", "-"], "empty"),
             (["attribute", "-", "--doc", "no-such-doc"], "unknown document"),
             (["attribute", "-", "--rerank", "maybe"], "--rerank")]
    for args, words in cases:
        result = CliRunner().invoke(app, args, input="" if words == "empty" else "El artículo 17 dispone algo.")
        assert result.exit_code == 1 and words in result.output and "Traceback" not in result.output, result.output


# -- quote matching on the reglamento's own text (no index needed) ---------------------------------------------------

@pytest.fixture(scope="module")
def reglamento_text() -> str:
    from ingest.parse import parse_pdf
    from tests.conftest import pdf

    return parse_pdf(pdf(REGLAMENTO)).documents[0].markdown


def sentence_with(markdown: str, words: str) -> str:
    from ingest.sentences import split_sentences

    return next(markdown[s.start:s.end] for s in split_sentences(markdown) if words in markdown[s.start:s.end])


def test_a_quote_copied_from_the_pdf_is_exact(reglamento_text):
    from retrieval.attribution.quotes import match_quote

    official = sentence_with(reglamento_text, "sesenta días naturales")
    words = official.split()
    long_word = max(range(len(words)), key=lambda i: len(words[i]))
    cut = len(words[long_word]) // 2
    # wrapped lines, a word hyphenated at a line end, another case, curly quotes around it
    hyphenated = words[:long_word] + [words[long_word][:cut] + "-\n" + words[long_word][cut:]] + words[long_word + 1:]
    copied = "\n".join(" ".join(hyphenated[i:i + 7]) for i in range(0, len(hyphenated), 7)).upper()
    found = match_quote(copied, reglamento_text)
    assert found is not None and found.exact
    assert reglamento_text[found.start:found.end] == official


def test_changed_and_dropped_words_are_listed(reglamento_text):
    from retrieval.attribution.quotes import match_quote

    official = sentence_with(reglamento_text, "sesenta días naturales")
    quoted = official.replace("sesenta días naturales", "noventa días hábiles").replace(" anual", "", 1)
    found = match_quote(quoted, reglamento_text)
    assert found is not None and not found.exact
    assert reglamento_text[found.start:found.end] == official
    changes = [(d.op, d.quoted, d.official) for d in found.diff if d.op != "equal"]
    assert changes == [("replace", "noventa", "sesenta"), ("replace", "hábiles", "naturales"),
                       ("insert", "", "anual")]
    # punctuation only: close, not exact, and no word changed
    comma = official.replace(",", "", 1)
    assert comma != official
    found = match_quote(comma, reglamento_text)
    assert found is not None and not found.exact and all(d.op == "equal" for d in found.diff)


def test_words_that_are_not_there_match_nothing(reglamento_text):
    from retrieval.attribution.quotes import match_quote

    assert match_quote(NOWHERE, reglamento_text) is None
    assert match_quote("El reparto de utilidades se hará cada semana en especie y en moneda extranjera",
                       reglamento_text) is None


def test_quotes_are_found_in_every_quotation_style():
    from retrieval.attribution.quotes import find_quotes

    text = ('Dice «el plazo será de quince días», también “se computará a partir del día siguiente”, y '
            '"la persona quejosa podrá hacerlo". Los términos «amparo» y "juicio de amparo" no son citas; '
            '«una cita sin cerrar no cuenta')
    assert [q.text for q in find_quotes(text)] == [
        "el plazo será de quince días", "se computará a partir del día siguiente", "la persona quejosa podrá hacerlo"]
    for q in find_quotes(text):
        assert text[q.start:q.end] == q.text


# -- the optional LLM second pass, through a local OpenAI-compatible endpoint ------------------------------------------

def judge_by_words(request: dict) -> str:
    """A judge that backs a claim mentioning "quince días" with the passage that says it, and nothing else."""
    payload = json.loads(request["messages"][1]["content"])
    out = []
    for claim in payload["claims"]:
        backing = [p["passage"] for p in claim["passages"] if "quince días" in p["text"]]
        if "quince días" in claim["text"] and backing:
            out.append({"claim": claim["claim"], "label": "supported", "evidence": backing[:1]})
        else:
            out.append({"claim": claim["claim"], "label": "unsupported", "evidence": []})
    return "```json\n" + json.dumps({"judgements": out}, ensure_ascii=False) + "\n```"


def test_an_llm_second_pass_rejudges_the_sentences_without_quotes(home, memo):
    from retrieval.attribution import attribute
    from tests.stubs.openai_stub import OpenAIStub

    with OpenAIStub(judge_by_words) as stub:
        settings = Settings(home=home, openai_base_url=stub.base_url, openai_model="judge-model", api_key=None)
        with Index.open(settings) as index:
            offline = attribute(index, memo.text)
            judged = attribute(index, memo.text, llm=True, settings=settings)
            stub.fail(500, times=3)
            failed = attribute(index, memo.text, llm=True, settings=settings)
    assert len(stub.requests) == 1 + 3  # one call for every sentence; the failing one retried
    sent = [squash(c["text"]) for c in json.loads(stub.requests[0]["messages"][1]["content"])["claims"]]
    assert squash(PARAPHRASE) in sent and squash(UNSUPPORTED) in sent
    assert not any("«" in text for text in sent)  # quotes are decided by alignment, never sent

    assert judged.model == "judge-model" and judged.fallback_reason is None
    paraphrase = next(s for s in judged.sentences if squash(s.text) == squash(PARAPHRASE))
    assert paraphrase.support.value == "supported" and "judge-model" in paraphrase.reason
    assert [c.label.startswith("Ley de Amparo") and "quince días" in c.cited_text for c in paraphrase.citations] == [True]
    assert judged.content[paraphrase.segment].support.method == "llm"
    assert [q.status for q in judged.quotes] == [q.status for q in offline.quotes]

    # the endpoint down: the offline verdicts stand, and the result says why
    assert "LLM pass not used" in failed.fallback_reason and "500" in failed.fallback_reason
    assert [(s.support, s.score) for s in failed.sentences] == [(s.support, s.score) for s in offline.sentences]


def test_the_llm_pass_without_an_endpoint_says_so(home, memo, monkeypatch):
    monkeypatch.setenv("GACETA_HOME", str(home))
    monkeypatch.delenv("GACETA_OPENAI_BASE_URL", raising=False)
    result = CliRunner().invoke(app, ["attribute", "-", "--llm", "--json"], input=memo.text)
    assert result.exit_code == 0, result.output
    assert "GACETA_OPENAI_BASE_URL" in json.loads(result.stdout)["fallback_reason"]
