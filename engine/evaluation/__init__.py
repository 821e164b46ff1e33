"""The learned evaluation: its inputs (features.py), its net (td_net.py)."""
