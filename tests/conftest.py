import atexit
import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"
sys.path.insert(0, str(REPO))


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


@pytest.fixture
def two_openings(tmp_path) -> Path:
    """An EPD file of two openings (1.e4 and 1.d4) for short matches."""
    path = tmp_path / "openings.epd"
    path.write_text("rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq -\n"
                    "rnbqkbnr/pppppppp/8/8/3P4/8/PPP1PPPP/RNBQKBNR b KQkq -\n")
    return path


@pytest.fixture(autouse=True)
def endgame_rules_restored():
    """The endgame rules are a switch of the whole core, and a Session turns
    them on: each test leaves them as it found them."""
    from engine._core import endgame_rules_on, set_endgame_rules
    before = endgame_rules_on()
    yield
    if endgame_rules_on() != before:
        set_endgame_rules(before)


# What the engines of the tests learn between games (MoveTables) goes to a
# folder of this run, never to the user's own data folder (engine/paths.py).
# It is removed when the run ends (xdist's workers each make their own).
os.environ["NMM_CHESS_HOME"] = tempfile.mkdtemp(prefix="nmm-chess-home-")
atexit.register(shutil.rmtree, os.environ["NMM_CHESS_HOME"], ignore_errors=True)

# A Ray instance starting beside a busy test run takes minutes, not seconds:
# the tests that start one get a longer hang guard than pyproject's 300 s.
RAY_HANG_GUARD = 1200
