"""Tools: benchmarks, match runners, engine drivers."""
