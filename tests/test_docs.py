"""The documents stay short where a newcomer starts and whole everywhere:
the README within about 300 lines, every relative link and every path in
backquotes pointing at a file that is there, and reports/ a folder per topic,
each with a README naming its commands (issue 40).

No engine is started: these tests read files only.
"""
from __future__ import annotations

import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README_MAX_LINES = 320
# Made by a command, not kept in git: a link to one may be missing until it is.
GENERATED = {REPO / "docs" / "options.md"}
# Paths in backquotes that name no file in a checkout: generated data (var/),
# and the folder a wheel puts the nets in.
NOT_IN_A_CHECKOUT = ("var/", "engine/shipped_nets/")
TOP_FOLDERS = ("reports", "docs", "nets", "engine", "ext", "tests")

LINK = re.compile(r"\[[^\]\n]*\]\(([^)\s]+)\)")
CODE = re.compile(r"`([^`\n]+)`")
FENCE = re.compile(r"^```.*?^```", re.S | re.M)
ROOT_PATH = re.compile(rf"(?:{'|'.join(TOP_FOLDERS)})/[^\s*{{}}…,<>]*")


def documents() -> list[Path]:
    """README.md, docs/*.md, nets/README.md and every README under reports/."""
    found = [REPO / "README.md", REPO / "nets" / "README.md"]
    found += sorted((REPO / "docs").glob("*.md"))
    found += sorted((REPO / "reports").glob("**/README.md"))
    return [p for p in found if p.exists()]


def links(text: str) -> list[str]:
    """The relative targets of the markdown links in ``text`` (no URLs, no
    mail, no bare anchors), without their #anchor."""
    return [target.split("#", 1)[0] for target in anchored_links(text)]


def anchored_links(text: str) -> list[str]:
    """The same with their #anchor, where they have one."""
    return [target for target in LINK.findall(text)
            if not re.match(r"[a-z][a-z0-9+.-]*:", target) and not target.startswith("#")]


def anchors(text: str) -> set[str]:
    """The anchors GitHub makes of a document's headings: lower case, spaces
    as hyphens, punctuation other than hyphens dropped."""
    text = FENCE.sub("", text)
    return {re.sub(r"[^\w\- ]", "", h.strip().lower()).replace(" ", "-")
            for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def root_paths(text: str) -> list[str]:
    """The paths from the repository's root that ``text`` names in backquotes
    outside code blocks: a whole backquoted span that starts with one of the
    project's top folders and is not a pattern."""
    text = FENCE.sub("", text)
    return [s for s in CODE.findall(text) if ROOT_PATH.fullmatch(s)]


def test_the_readers_find_links_and_paths() -> None:
    assert links("[a](b.md#x) [u](https://x.org) [c](#here) [d](../e/) [m](mailto:a@b)") == ["b.md", "../e/"]
    text = "`reports/td/README.md`, `nmm-chess match`, `reports/x{,_b}.log`, `ext/*.pxi`\n```\n`nets/gone.npz`\n```\n"
    assert root_paths(text) == ["reports/td/README.md"]
    assert anchored_links("[t](a.md#the-protocol) [u](https://x.org#y)") == ["a.md#the-protocol"]
    assert anchors("# Two parts: the engine\n## The TD(λ) net, `Eval`\n```\n# not a heading\n```\n") == {
        "two-parts-the-engine", "the-tdλ-net-eval"}


def test_the_readme_is_short() -> None:
    lines = (REPO / "README.md").read_text().count("\n")
    assert lines <= README_MAX_LINES, (
        f"README.md has {lines} lines (at most {README_MAX_LINES}): move detail to docs/ or reports/<topic>/")


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_relative_link_points_at_a_file(doc: Path) -> None:
    broken = []
    for target in links(doc.read_text()):
        path = (doc.parent / target).resolve()
        if not path.exists() and path not in GENERATED:
            broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)}: links to nothing: {broken}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_link_to_a_heading_finds_it(doc: Path) -> None:
    broken = []
    for target in anchored_links(doc.read_text()):
        name, _, anchor = target.partition("#")
        path = (doc.parent / name).resolve()
        if anchor and path.suffix == ".md" and path.exists() and anchor not in anchors(path.read_text()):
            broken.append(target)
    assert not broken, f"{doc.relative_to(REPO)}: links to headings that are not there: {broken}"


@pytest.mark.parametrize("doc", documents(), ids=lambda p: str(p.relative_to(REPO)))
def test_every_path_in_backquotes_is_there(doc: Path) -> None:
    """The documents name files by their path from the repository's root; a
    file moved without its mentions leaves one of these behind."""
    missing = [p for p in root_paths(doc.read_text())
               if not p.startswith(NOT_IN_A_CHECKOUT) and not (REPO / p).exists()
               and (REPO / p).resolve() not in GENERATED]
    assert not missing, f"{doc.relative_to(REPO)}: names paths that are not there: {missing}"


def test_reports_is_a_folder_per_topic_each_with_its_readme() -> None:
    reports = REPO / "reports"
    loose = sorted(p.name for p in reports.iterdir() if p.is_file())
    assert not loose, f"files at the top of reports/ (give each a topic folder): {loose}"
    without = sorted(p.name for p in reports.iterdir() if p.is_dir() and not (p / "README.md").exists())
    assert not without, f"report folders without a README.md naming their commands: {without}"


def test_the_map_names_every_file_of_the_core() -> None:
    """docs/architecture.md's map of ext/ has a line for each source file
    (search_params.h is made from engine/search_params.py at build time)."""
    text = (REPO / "docs" / "architecture.md").read_text()
    sources = [p.name for p in (REPO / "ext").iterdir() if p.suffix in (".pyx", ".pxi", ".h")]
    missing = sorted(name for name in sources
                     if name != "search_params.h" and not re.search(rf"^  {re.escape(name)}\s", text, re.M))
    assert not missing, f"ext/ files the map in docs/architecture.md does not name: {missing}"


def test_the_command_table_names_every_command() -> None:
    """docs/architecture.md's table of commands has a row for each command
    of the CLI, and for each of its groups' (study, train, data)."""
    from engine.cli import main
    text = (REPO / "docs" / "architecture.md").read_text()
    groups = ("study", "train", "data")
    names = [name for name in main.commands if name not in groups]
    names += [f"{group} {name}" for group in groups for name in main.commands[group].commands]
    missing = [name for name in names if f"`nmm-chess {name}" not in text]
    assert not missing, f"commands the table in docs/architecture.md does not name: {missing}"
