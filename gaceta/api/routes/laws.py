"""`GET /laws/{law}`, `/laws/{law}/diff`, `/laws/{law}/articles/{article}/diff` and `…/history`: a law's versions
and what a reform changed (`retrieval.article_history`); `GET /laws/{law}/articles/{article}`: the provision itself,
verbatim, in the version in force on `as_of` (`retrieval.provisions`). `{law}` is a law id ("mx/ley-de-amparo") or
the law as cited ("Ley de Amparo", "CPEUM"); `from` / `to` are days (YYYY-MM-DD): each reads the version in force on
it (defaults: the latest version, and the one before it). A law, or an article, the index does not hold is a 404;
versions that cannot be compared (one version held, both days under the same one) a 409."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, HTTPException, Path, Query

from gaceta.api.deps import get_index
from gaceta.api.schemas import IsoDate, errors
from retrieval.article_history import (ArticleDiff, ArticleHistory, HistoryError, Law, LawDiff, NotInIndex,
                                       article_diff, article_history, find_law, law_diff)
from retrieval.provisions import Provision, find_provision

router = APIRouter(tags=["laws"])

LawName = Annotated[str, Path(min_length=1, max_length=300, description="A law id (\"mx/ley-de-amparo\") or the "
                                                                         "law as cited (\"Ley de Amparo\", \"CPEUM\").")]
Article = Annotated[str, Path(min_length=1, max_length=40, description="As the law numbers it: 27, 3 Bis, 330-A.")]
From = Annotated[IsoDate | None, Query(alias="from", description="The earlier version: the one in force on this day "
                                                                 "(default: the version before the later one).")]
To = Annotated[IsoDate | None, Query(alias="to", description="The later version: the one in force on this day "
                                                             "(default: the latest held).")]


def _answer(call):
    try:
        return call()
    except NotInIndex as exc:
        raise HTTPException(404, str(exc)) from None
    except HistoryError as exc:  # two versions cannot be compared with what the index holds
        raise HTTPException(409, str(exc)) from None


@router.get("/laws/{law:path}/articles/{article}/diff", response_model=ArticleDiff, responses=errors(404, 409, 422),
            summary="One article in two versions of its law, word by word, with the reform decrees that touch it")
def diff_article(law: LawName, article: Article, from_: From = None, to: To = None,
                 index=Depends(get_index)) -> ArticleDiff:
    return _answer(lambda: article_diff(index, *find_law(index, law), article, before=from_, after=to))


@router.get("/laws/{law:path}/articles/{article}/history", response_model=ArticleHistory,
            responses=errors(404, 409, 422), summary="One article in every version of its law held, dated")
def article_versions(law: LawName, article: Article, index=Depends(get_index)) -> ArticleHistory:
    return _answer(lambda: article_history(index, *find_law(index, law), article))


@router.get("/laws/{law:path}/articles/{article}", response_model=Provision, responses=errors(404, 422),
            summary="An article of a law (or one paragraph / fracción of it) verbatim, with its notes, page and label")
def provision(law: LawName, article: Article,
              paragraph: Annotated[int | None, Query(ge=1, le=500, description="Only this paragraph (párrafo), "
                                                     "counted as lawyers count them.")] = None,
              fraction: Annotated[str | None, Query(min_length=1, max_length=20, description="Only this fracción "
                                                    "(roman numeral: IV).")] = None,
              as_of: Annotated[IsoDate | None, Query(description="The version in force on this day (default "
                                                     "today).")] = None,
              index=Depends(get_index)) -> Provision:
    return _answer(lambda: find_provision(index, law, article, paragraph, fraction, as_of))


@router.get("/laws/{law:path}/diff", response_model=LawDiff, responses=errors(404, 409, 422),
            summary="Which articles of a law two versions word differently, and which one adds or drops")
def diff_law(law: LawName, from_: From = None, to: To = None, index=Depends(get_index)) -> LawDiff:
    return _answer(lambda: law_diff(index, *find_law(index, law), before=from_, after=to))


@router.get("/laws/{law:path}", response_model=Law, responses=errors(404, 409, 422),
            summary="A law and the versions of it the index holds, oldest first")
def law_versions(law: LawName, index=Depends(get_index)) -> Law:
    return _answer(lambda: find_law(index, law)[0])

