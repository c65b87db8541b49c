"""`evaluate_answers` on a small SQuAD-format set: a citation hit needs a verified span covering the gold answer."""

from __future__ import annotations

import json

import pytest

from retrieval.evaluation.answers import evaluate_answers
from retrieval.evaluation.datasets import DatasetFormatError

PARAGRAPHS = [
    ("Puerto_de_Tuxpan", "El Puerto de Tuxpan se habilitó para tráfico de altura en 1974. Su recinto portuario tiene "
     "un área total de 413,480 metros cuadrados. El puerto está en el Estado de Veracruz.",
     [("¿En qué año se habilitó el Puerto de Tuxpan para tráfico de altura?", "1974"),
      ("¿En qué estado se encuentra el Puerto de Tuxpan?", "Veracruz")]),
    ("Registro_Civil", "El Registro Civil inscribe los nacimientos de las personas. La Secretaría de Gobernación "
     "coordina el Programa de Registro e Identificación de Población desde el año 2018.",
     [("¿Quién coordina el Programa de Registro e Identificación de Población?", "La Secretaría de Gobernación")]),
]


@pytest.fixture(scope="module")
def squad_dir(tmp_path_factory):
    folder = tmp_path_factory.mktemp("mini_squad")
    data = []
    for n, (title, context, qas) in enumerate(PARAGRAPHS):
        data.append({"title": title, "paragraphs": [{"context": context, "qas": [
            {"id": f"q{n}-{i}", "question": q, "answers": [{"text": a, "answer_start": context.index(a)}]}
            for i, (q, a) in enumerate(qas)]}]})
    (folder / "xquad.es.json").write_text(json.dumps({"version": "1.1", "data": data}), encoding="utf-8")
    return folder


def test_report_scores_citations_against_gold_spans(squad_dir):
    report = evaluate_answers(squad_dir, answerer="extractive")
    assert report.questions == 3 and not report.limited and report.answerer == "extractive"
    assert report.gold_retrieved_rate == 1.0 and report.verified_share == 1.0
    by_id = {r.qid: r for r in report.rows}
    assert by_id["q0-0"].hit and by_id["q1-0"].hit  # the sentence holding the answer is the one cited
    assert report.citation_hit_rate == sum(r.hit for r in report.rows) / 3


def test_non_squad_dataset_is_rejected(tmp_path):
    (tmp_path / "notes.txt").write_text("nada")
    with pytest.raises(DatasetFormatError):
        evaluate_answers(tmp_path)
