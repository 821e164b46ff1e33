"""Studies: the measurements behind the papers' claims (ordering, prediction, ...)."""
