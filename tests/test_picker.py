"""The move picker's selection: the first highest score, as a selection sort finds it."""
import random

import pytest

from engine._core import first_best_score


def test_first_best_score_is_the_first_of_the_highest():
    rng = random.Random(7)
    for _ in range(3000):
        n = rng.randint(1, 218)
        spread = rng.choice([2, 5, 1000, 2**31 - 1])        # few values (ties) to all distinct
        scores = [rng.randint(-spread, spread) for _ in range(n)]
        if rng.random() < 0.2:
            scores = [-2**31 + s % 3 for s in scores]        # the lowest int32 values
        assert first_best_score(scores) == scores.index(max(scores)), scores


@pytest.mark.parametrize("n", [7, 8, 9, 15, 16, 17, 24])
def test_first_best_score_at_the_kernels_edges(n):
    for top in range(n):                    # the maximum at every place, once and twice
        scores = [0] * n
        scores[top] = 1
        assert first_best_score(scores) == top
        scores[-1] = 1
        assert first_best_score(scores) == top


def test_first_best_score_rejects_an_empty_list():
    with pytest.raises(ValueError):
        first_best_score([])
