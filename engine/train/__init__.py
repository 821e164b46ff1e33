"""Training: the Neural MoveMap (nmm.py), and later the TD evaluation."""
