"""How a law named in a question is read (issue 25, item 1): 41 questions naming a law the way lawyers type it —
with a topic after the name, a name one word away from an indexed law's, a jurisdiction, a year, in lower case,
in English ("the Clean Air Act"), by an EU act's number, or no law at all ("la ley penal") — and, for each, whether
the answer says the law is absent, or which document and article it cites first. Over the all-PDFs index (every file of
../shared/data/pdfs and ../shared/data/laws).

    .venv/bin/python benchmarks/named_laws.py --home H [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

QS = [
    "¿Qué dice la Ley de Amparo sobre la Suprema Corte de Justicia?",
    "¿Qué dice el Código Penal sobre el Ministerio Fiscal?",
    "¿Qué dispone la Ley de Sociedades de Capital sobre la Junta General?",
    "¿Qué dispone la Constitución del Estado de Durango sobre el Poder Judicial?",
    "¿Qué plazo fija la Ley de Enjuiciamiento Criminal para el recurso de apelación?",
    "¿Qué plazo fija la Ley de Enjuciamiento Civil para contestar la demanda?",
    "¿cuál es la pena por homicidio según el código penal federal?",
    "¿qué dice la constitución de chile sobre el derecho de propiedad?",
    "¿Qué dice la Ley de Amparo Federal sobre la suspensión del acto reclamado?",
    "¿cuántos días de vacaciones concede la ley federal del trabajo a un trabajador?",
    "¿qué obligaciones impone la ley general de salud a los hospitales?",
    "¿qué multas prevé el código fiscal de la federación?",
    "¿la ley general de salud obliga a los hospitales privados a atender urgencias?",
    "¿qué dice el código civil sobre el contrato de arrendamiento?",
    "¿qué dice la ley penal sobre la tentativa?",
    "¿qué dice la ley de la materia sobre el plazo para presentar la demanda?",
    "¿qué dispone la ley sobre la retroactividad?",
    "¿qué dice el artículo 17 de la ley de amparo?",
    "¿cuál es el plazo para presentar la demanda según la ley de amparo?",
    "¿qué dice el artículo 27 de la constitución sobre las tierras y aguas?",
    "¿qué pena tiene el homicidio según el código penal?",
    "¿Qué decía la Ley de Amparo de 1936 sobre la suspensión del acto reclamado?",
    "¿Qué decía el artículo 27 de la Constitución de 1857?",
    "¿Qué dice la Ley 99 de 1994 sobre las licencias ambientales?",
    "¿Qué decía la Ley de Enjuiciamiento Civil de 1881 sobre el juicio ejecutivo?",
    "¿Qué pena prevé el Código Penal de 1995 para el homicidio?",
    "¿Qué dice el artículo 1o. de la Constitución de 1917?",
    "What does the California Consumer Privacy Act say about the right to delete personal information?",
    "Under the UK Data Protection Act 2018, who is the data protection regulator?",
    "What does Section 5 of the FTC Act prohibit?",
    "Does the Americans with Disabilities Act apply to small businesses?",
    "What does the Clean Air Act require from power plants?",
    "Under the Civil Rights Act of 1964, can an employer refuse to hire someone because of their religion?",
    "Under the General Data Protection Regulation, when must a breach be notified to the supervisory authority?",
    "What does Article 17 of the GDPR say about the right to erasure?",
    "What does the Act say about penalties?",
    "Under the Federal Aviation Administration's proposed airworthiness directive, which software must be installed?",
    "What does Article 17 of Regulation (EU) 2016/679 say?",
    "¿Qué dice el artículo 33 del Reglamento (UE) 2016/679?",
    "What does Directive 95/46/EC say about consent?",
    "Under Regulation (EU) 2017/745 on medical devices, who is a manufacturer?",
]


def read(home: Path) -> list[dict]:
    """Each question's answer over the index at `home` (`ask`: extractive, k 8, offline judge): the named laws as
    read (name, resolved, absent), and the first verified citation's document and article."""
    from retrieval.answers import ask
    from retrieval.index import Index
    from retrieval.settings import Settings

    settings = Settings(home=home, answerer="extractive", judge="offline", _env_file=None)
    rows = []
    with Index.open(settings) as index:
        titles = {d.doc_id: d.title for d in index.document_infos()}
        for q in QS:
            answer = ask(index, q, k=8, settings=settings)
            cited = [c for seg in answer.content for c in seg.citations if c.verified]
            rows.append({"question": q, "found": answer.found,
                         "laws": [{"law": r.reference.law, "resolved": r.resolved, "absent": r.absent}
                                  for r in answer.references if r.reference.law],
                         "first": {"document": titles.get(cited[0].doc_id, ""), "article": cited[0].article}
                         if cited else None})
    return rows


def outcome(row: dict) -> str:
    absent = [law["law"] for law in row["laws"] if law["absent"]]
    if absent:
        return "absent: " + "; ".join(absent)
    if row["first"]:
        return f"{row['first']['document'][:40]}, art. {row['first']['article']}"
    return "No encontré"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, required=True, help="an index of the shared PDFs and laws (GACETA_HOME)")
    ap.add_argument("--json", action="store_true", help="print the rows as JSON")
    args = ap.parse_args()
    rows = read(args.home)
    if args.json:
        print(json.dumps(rows, ensure_ascii=False, indent=1))
        return
    for row in rows:
        print(f"{row['question']}\n    {outcome(row)}")


if __name__ == "__main__":
    main()
