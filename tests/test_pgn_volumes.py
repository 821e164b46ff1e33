"""A match's committed record: gzipped volumes of a fixed number of games."""
import gzip

from engine.tools.pgn_volumes import pack, read_record, split_games, volumes


def game(n: int, result: str = "1-0") -> str:
    return f'[Event "m"]\n[Round "{n}"]\n[Result "{result}"]\n\n1. e4 e5 {result}\n\n'


def test_volumes_hold_fixed_runs_of_games_and_read_back_whole(tmp_path):
    pgn = tmp_path / "sprt.pgn"
    text = "".join(game(n) for n in range(1, 6)) + '[Event "m"]\n[Round "6"]\n\n1. d4'   # the last one cut off
    pgn.write_text(text)
    assert split_games(text)[1] == game(2) and split_games(text)[-1].endswith("1. d4")
    written = pack(pgn, per_volume=2)
    assert [p.name for p in written] == ["sprt.pgn.gz", "sprt.2.pgn.gz", "sprt.3.pgn.gz"]
    assert volumes(pgn) == written
    assert gzip.decompress(written[1].read_bytes()).decode() == game(3) + game(4)
    pgn.rename(tmp_path / "kept.pgn")
    assert read_record(pgn) == text                     # without the .pgn, its volumes joined
    assert read_record(tmp_path / "other.pgn") is None


def test_a_growing_record_rewrites_only_its_last_volumes_and_a_shrunk_one_drops_the_rest(tmp_path):
    pgn = tmp_path / "m.pgn"
    pgn.write_text("".join(game(n) for n in range(1, 4)))
    first = pack(pgn, per_volume=2)
    before = first[0].read_bytes()
    assert pack(pgn, per_volume=2) == []                 # nothing changed, nothing written
    pgn.write_text("".join(game(n) for n in range(1, 6)))
    assert [p.name for p in pack(pgn, per_volume=2)] == ["m.2.pgn.gz", "m.3.pgn.gz"]
    assert first[0].read_bytes() == before               # the full volume is the same file
    pgn.write_text(game(1))                              # the match started over
    assert [p.name for p in pack(pgn, per_volume=2)] == ["m.pgn.gz"]
    assert [p.name for p in volumes(pgn)] == ["m.pgn.gz"]
    pgn.unlink()
    assert read_record(pgn) == game(1)
