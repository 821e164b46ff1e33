"""The TD(lambda) learner: its targets, its gradients, and the thesis's tic-tac-toe check."""
import numpy as np

from engine.train import tictactoe
from engine.train.td import Mlp, Sgd, lambda_returns, td_block


def test_lambda_returns_by_hand():
    values = np.array([[0.0, 0.5, 0.2], [0.3, 0.1, 9.0]])
    targets = lambda_returns(values, np.array([3, 2]), np.array([1.0, -1.0]), lam=0.5)
    # G2 = 1; G1 = .5 * .2 + .5 * 1; G0 = .5 * .5 + .5 * .6. Second game: two plies.
    assert np.allclose(targets, [[0.55, 0.6, 1.0], [-0.45, -1.0, 0.0]])
    # lambda = 1 is Monte Carlo (every target the result), lambda = 0 is TD(0).
    assert np.allclose(lambda_returns(values[:1], np.array([3]), np.array([1.0]), 1.0), 1.0)
    assert np.allclose(lambda_returns(values[:1], np.array([3]), np.array([1.0]), 0.0), [[0.5, 0.2, 1.0]])


def test_lambda_returns_pass_through_positions_not_trusted():
    values = np.array([[0.0, 0.5, 0.2, -0.4]])
    through = np.array([[False, False, True, False]])
    plain = lambda_returns(values, np.array([4]), np.array([-1.0]), 0.5)
    passed = lambda_returns(values, np.array([4]), np.array([-1.0]), 0.5, through)
    # G3 = -1; G2 = .5 * -.4 + .5 * -1 = -.7; then V(s2) is replaced by G2 itself.
    assert np.allclose(plain[0], [0.125, -0.25, -0.7, -1.0])
    assert np.allclose(passed[0], [-0.1, -0.7, -0.7, -1.0])      # G1 = G2


def test_gradients_match_finite_differences():
    rng = np.random.default_rng(0)
    for hidden in (0, 4):
        net = Mlp.create(5, hidden, 1, scale=1.0)
        x = rng.standard_normal((3, 5)).astype(np.float32)
        dy = np.array([0.3, -1.0, 0.5], np.float32)
        grads = net.gradients(net.forward(x)[1], dy)
        for name, p in net.params().items():
            if p.size == 0:
                continue
            idx = (0,) * p.ndim
            old = p[idx]
            p[idx] = old + 1e-3
            up = float((net(x) * dy).sum())
            p[idx] = old - 1e-3
            down = float((net(x) * dy).sum())
            p[idx] = old
            assert abs(grads[name][idx] - (up - down) / 2e-3) < 1e-3, name


def test_td_block_moves_values_toward_the_result():
    net = Mlp.create(3, 8, 2)
    x = np.eye(3, dtype=np.float32)
    sign = np.array([1, -1, 1], np.float32)       # the middle position has the other side to move
    before = net(x) * sign
    for _ in range(300):
        td_block(net, Sgd(0.05), x, sign, np.zeros(3, np.int64),
                 np.arange(3), np.array([3]), np.array([1.0]), lam=0.9)
    after = net(x) * sign
    assert after[2] > 0.9 and abs(after[2] - 1) < abs(before[2] - 1)
    assert after.min() > 0.5                        # the win reaches back to the first position


def test_tic_tac_toe_learner_beats_win_block_random():
    untrained = tictactoe.match(tictactoe.train(0, seed=1), 2000)
    trained = tictactoe.match(tictactoe.train(20_000, seed=1), 2000)
    # Untrained, the net loses most games; after 20,000 it wins about half and
    # loses about one in six (seeds 1-3: 50-55% wins, 15-19% losses).
    assert untrained.losses > untrained.wins
    assert trained.wins > 2 * trained.losses
    assert trained.wins > 0.4 * 2000
