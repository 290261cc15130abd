"""
MSE curves
==========

Test MSE of BayGo against the complete graph.
"""

from baygo_graph.experiments import compare
from baygo_graph.figures import plot_vs_complete

df = compare(["baygo", "complete"], seeds=2, steps=15, agents=6, grid=21, rng=0, n_jobs=1)
plot_vs_complete(df)
