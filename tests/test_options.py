"""Each option is declared once (engine/options.py): the uci list, the core
settings of a new searcher and docs/options.md are made from it, and the
documentation cannot drift from it."""
from engine._core import Searcher
from engine.options import DOCS, GROUPS, OPTIONS, PLAYING, core_settings, defaults, listed, markdown, needs_nmm
from engine.session import CoreSetting, Session, default_searcher


def test_docs_options_md_is_the_declaration() -> None:
    """If this fails, run ``make docs`` (python -m engine.options) and commit docs/options.md."""
    assert DOCS.read_text() == markdown()


def test_every_option_is_declared_whole() -> None:
    names = [o.name.lower() for o in OPTIONS]
    assert len(names) == len(set(names))
    keywords = set(Searcher(hash_mb=1).settings)
    for option in OPTIONS:
        assert option.help and "\n" not in option.help and "|" not in option.help, option.name
        assert option.group in GROUPS, option.name
        assert option.keyword is None or option.keyword in keywords, option.name
        assert option.type != "combo" or option.default in option.choices, option.name
        assert option.type != "spin" or option.min <= option.default <= option.max, option.name
    assert [o.group for o in OPTIONS][:8] == [PLAYING] * 8       # the uci list begins with the playing options


def test_the_uci_list_is_the_declaration_in_order() -> None:
    """Plain: the playing options in their declared order; research mode:
    then the research switches in theirs."""
    playing = [o for o in OPTIONS if o.group == PLAYING]
    research = [o for o in OPTIONS if o.group != PLAYING]
    for mode, expected in ((False, playing), (True, playing + research)):
        lines: list[str] = []
        Session(lines.append, research=mode).uci([])
        shown = [line for line in lines if line.startswith("option ")]
        assert [line.split(" type ")[0] for line in shown] == [f"option name {o.name}" for o in expected]
        assert shown[0] == OPTIONS[0].uci_line()
        assert [o.name for o in listed(OPTIONS, mode)] == [o.name for o in expected]


def test_every_option_does_something_or_is_read_by_a_command() -> None:
    """A core setting configures the searcher; the others have an effect, but
    those ``go`` reads (Ponder, Move Overhead, SlowMover, BookBestMove,
    UCI_AnalyseMode, UCI_ShowWDL, and the playing strength's: engine/strength.py)."""
    session = Session(lambda line: None)
    effects = session._effects()
    assert set(effects) <= {o.name for o in OPTIONS}
    idle = {o.name for o in session.options if not isinstance(o.apply, CoreSetting) and o.name not in effects}
    assert idle == {"Ponder", "Move Overhead", "SlowMover", "BookBestMove", "UCI_AnalyseMode", "UCI_ShowWDL",
                    "UCI_LimitStrength", "UCI_Elo", "StrengthSeed", "StrengthSkill"}


def test_the_default_searcher_is_the_engines() -> None:
    """What the lab searches with (engine.session.default_searcher) is what a
    new engine makes at its defaults, unlike a bare Searcher."""
    engine = Session(lambda line: None).searcher.settings
    lab = default_searcher(1).settings
    assert lab == engine
    assert Searcher(hash_mb=1).settings["ordering"] != lab["ordering"] == "chessmaps"
    assert not needs_nmm(core_settings(defaults()))
    weighted = default_searcher(1, {"MoveOrdering": "weighted"})
    assert weighted.has_nmm and weighted.settings["ordering"] == "weighted"
    assert default_searcher(1, ordering="nmm").has_nmm          # a core keyword that reads the net loads it
