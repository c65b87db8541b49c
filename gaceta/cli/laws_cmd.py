"""The commands that read a law by its citation, through `gaceta serve` when it holds the index (`GET /laws/…`):
`gaceta article LAW ARTICLE [--paragraph N] [--fraction IV] [--as-of DATE]`, the provision verbatim in the version in
force (`retrieval.provisions`); `gaceta diff LAW [ARTICLE] [--from DATE] [--to DATE]` and `gaceta history LAW
ARTICLE`, what a reform changed (`retrieval.article_history`)."""

from __future__ import annotations

from typing import Any
from urllib.parse import quote

import typer
from rich.text import Text

from gaceta.cli.common import NO_OWNER, console, fail, open_index, print_json, settings, via_owner


def _run(path: str, params: dict[str, Any], local) -> dict[str, Any]:
    """The `GET /laws/…` body: through the serving owner when there is one, else from the index this command
    opens (`local(index)` → the same model)."""
    from retrieval.article_history import HistoryError

    config = settings()
    served = via_owner(config, lambda client: client.get(path, {k: v for k, v in params.items() if v}))
    if served is not NO_OWNER:
        return served
    with open_index(config) as index:
        try:
            return local(index).model_dump(mode="json")
        except HistoryError as exc:
            fail(str(exc))


def _version(v: dict[str, Any]) -> str:
    return v["version_date"] and "-".join(reversed(v["version_date"].split("-"))) or v["doc_id"]


def _show_changes(changes: list[dict[str, str]]) -> Text:
    """The later wording with the words it drops struck through in red and the words it adds in green; without
    colour (a pipe, NO_COLOR) marked as `git diff --word-diff` does: [-dropped-]{+added+}."""
    plain = console.color_system is None
    out = Text()
    for change in changes:
        if change["op"] == "equal":
            out.append(change["after"] + " ")
            continue
        if change["before"]:
            out.append(f"[-{change['before']}-]" if plain else change["before"], style="red strike")
            out.append(" ")
        if change["after"]:
            out.append(f"{{+{change['after']}+}}" if plain else change["after"], style="green underline")
            out.append(" ")
    return out


def _print_article_diff(d: dict[str, Any]) -> None:
    span = f"{_version(d['before_version'])} → {_version(d['after_version'])}"
    console.print(Text(f"{d['law']}, art. {d['article']}: {d['status']} ({span})", style="bold"))
    for side in ("before", "after"):
        if d[side]:
            console.print(Text(f"  {side}: {d[side]['label']}", style="dim"))
    if d["status"] == "changed":
        console.print(_show_changes(d["changes"]))
    elif d["status"] == "unchanged":
        console.print(d["after"]["wording"])
    else:
        shown = d["after"] or d["before"]
        console.print(shown["wording"], style="green" if d["after"] else "red strike")
    notes = (d["after"] or d["before"])["notes"]
    if notes:
        console.print(Text("  notes: " + "; ".join(n["text"] for n in notes), style="dim"))
    for decree in d["reform_decrees"]:
        console.print(Text(f"  reform decree: {decree['label']}", style="dim"))


def _print_law_diff(d: dict[str, Any]) -> None:
    span = f"{_version(d['before_version'])} → {_version(d['after_version'])}"
    console.print(Text(f"{d['law']} ({span}): {len(d['changed'])} articles changed, {len(d['added'])} added, "
                       f"{len(d['removed'])} removed, {d['unchanged']} unchanged", style="bold"))
    for name in ("changed", "added", "removed"):
        if d[name]:
            console.print(f"  {name}: " + ", ".join(d[name]), soft_wrap=True)


def register(app: typer.Typer) -> None:
    @app.command()
    def article(
        law: str = typer.Argument(..., help="The law as cited (\"Ley de Amparo\", CPEUM, Constitución) or its law id."),
        article: str = typer.Argument(..., help="The article as the law numbers it (27, 3 Bis, 330-A)."),
        paragraph: int = typer.Option(None, "--paragraph", min=1, help="Only this paragraph (párrafo)."),
        fraction: str = typer.Option(None, "--fraction", help="Only this fracción (roman numeral: IV)."),
        as_of: str = typer.Option(None, "--as-of", help="The version in force on this day (YYYY-MM-DD; default "
                                  "today)."),
        as_json: bool = typer.Option(False, "--json", help="The provision as JSON on stdout."),
    ) -> None:
        """An article of a law (or one paragraph / fracción of it) verbatim from the official text: the label a
        lawyer cites it by, the version read, its text and the amendment notes printed in it."""
        from gaceta.cli.search_cmd import as_of_day
        from retrieval.provisions import find_provision

        day = as_of_day(as_of, "--as-of")
        params = {"paragraph": paragraph, "fraction": fraction, "as_of": day and day.isoformat()}
        result = _run(f"/laws/{quote(law, safe='')}/articles/{quote(article, safe='')}", params,
                      lambda index: find_provision(index, law, article, paragraph, fraction, day))
        if as_json:
            print_json(result)
            return
        console.print(Text(result["label"], style="bold"), soft_wrap=True)
        console.print(Text(f"{result['law']} · version {_version(result['version'])}", style="dim"), soft_wrap=True)
        console.print(Text(result["text"] + ("\n[…]" if result["truncated"] else "")), soft_wrap=True)
        for note in result["notes"]:
            console.print(Text(f"  {note['text']}", style="dim"), soft_wrap=True)

    @app.command()
    def diff(
        law: str = typer.Argument(..., help="The law as cited (\"Ley de Amparo\", CPEUM) or its law id."),
        article: str = typer.Argument(None, help="One article (27, 3 Bis); without it, which articles changed."),
        from_: str = typer.Option(None, "--from", help="The earlier version: the one in force on this day "
                                  "(YYYY-MM-DD; default: the version before the later one)."),
        to: str = typer.Option(None, "--to", help="The later version: the one in force on this day (YYYY-MM-DD; "
                               "default: the latest held)."),
        as_json: bool = typer.Option(False, "--json", help="The diff as JSON on stdout."),
    ) -> None:
        """What a reform changed: one article in two versions of its law, word by word (with its amendment notes
        and the reform decrees that touch it), or the articles two versions word differently."""
        from gaceta.cli.search_cmd import as_of_day
        from retrieval.article_history import article_diff, find_law, law_diff

        days = {"before": as_of_day(from_, "--from"), "after": as_of_day(to, "--to")}
        params = {"from": days["before"] and days["before"].isoformat(), "to": days["after"] and days["after"].isoformat()}
        if article is None:
            result = _run(f"/laws/{quote(law, safe='')}/diff", params,
                          lambda index: law_diff(index, *find_law(index, law), **days))
        else:
            result = _run(f"/laws/{quote(law, safe='')}/articles/{quote(article, safe='')}/diff", params,
                          lambda index: article_diff(index, *find_law(index, law), article, **days))
        if as_json:
            print_json(result)
        elif article is None:
            _print_law_diff(result)
        else:
            _print_article_diff(result)

    @app.command()
    def history(
        law: str = typer.Argument(..., help="The law as cited (\"Ley de Amparo\", CPEUM) or its law id."),
        article: str = typer.Argument(..., help="The article (27, 3 Bis)."),
        as_json: bool = typer.Option(False, "--json", help="The history as JSON on stdout."),
    ) -> None:
        """One article in every version of its law the index holds, oldest first: its label, whether it changed
        from the version before, and its amendment notes."""
        from retrieval.article_history import article_history, find_law

        result = _run(f"/laws/{quote(law, safe='')}/articles/{quote(article, safe='')}/history", {},
                      lambda index: article_history(index, *find_law(index, law), article))
        if as_json:
            print_json(result)
            return
        console.print(Text(f"{result['law']}, art. {result['article']}", style="bold"))
        for row in result["versions"]:
            text = row["text"]
            line = Text(f"  {_version(row['version'])}  {row['status']:<9}  ")
            line.append(text["label"] if text else "—", style="dim")
            console.print(line, soft_wrap=True)
            for note in (text or {}).get("notes", []):
                console.print(Text(f"      {note['text']}", style="dim"), soft_wrap=True)

