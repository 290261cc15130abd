"""
Influence (centrality) over time
================================

An agent's influence is the left Perron vector of the weight matrix W
(``pi @ W == pi``, summing to 1): eigenvector centrality of the *reversed*
communication digraph, since edge ``(j, i)`` means agent ``i`` receives from
``j``. Over a window of steps it is computed from the product of the step
matrices. Rows where the window's influence is not unique are NaN.
"""

import baygo_graph as bg
from baygo_graph.analysis import influence_series, reference_influence
from baygo_graph.figures import plot_influence_series
from baygo_graph.models import LinearRegression

run = bg.simulate("baygo", agents=8, steps=40, model=LinearRegression(grid=31), rng=0)
series = influence_series(run, window=10, windows="sliding").values
plot_influence_series(series, references=reference_influence(8), synthetic=True)
