"""A session's options reach the core: what a GUI is shown as an option's
default, or sets, is what the engine searches with."""
from engine.session import CoreSetting, Session


def same(core, value) -> bool:
    """The core keeps some fractions as 32-bit floats."""
    return abs(core - value) < 1e-6 if isinstance(value, float) else core == value


def core_options(session: Session):
    return [o for o in session.options if isinstance(o.apply, CoreSetting)]


def test_every_default_reaches_a_new_searcher() -> None:
    session = Session(lambda line: None)
    options = core_options(session)
    assert {"MoveOrdering", "NMMMinDepth", "ContinuationHistory", "TimeManagement"} <= {o.name for o in options}
    settings = session.searcher.settings
    for option in options:
        assert same(settings[option.apply.keyword], option.apply.core_value(option.default)), option.name


def test_setoption_reaches_the_searcher() -> None:
    session = Session(lambda line: None)
    for option in core_options(session):
        if option.type == "check":
            value = not option.default
        elif option.type == "spin":
            value = option.max if option.default != option.max else option.min
        else:
            value = next(c for c in option.choices if c != option.default)
        session.options.set(["name", *option.name.split(), "value", str(value).lower()])
        assert same(session.searcher.settings[option.apply.keyword], option.apply.core_value(value)), option.name
