"""
B-strong connectivity against the run length
============================================

The paper's Remark asks for a B such that the union of the step graphs of every
window ``[nB, (n+1)B)`` is strongly connected. On a finite run the smallest B
grows with the run's length T: here for three seeds, measured on the first T
steps of one longer run per seed.
"""

import baygo_graph as bg
from baygo_graph.analysis import b_connectivity, horizon_table, smallest_b
from baygo_graph.figures import plot_horizon, plot_window_connectivity
from baygo_graph.models import LinearRegression

runs = [
    bg.simulate("baygo", agents=8, steps=80, model=LinearRegression(grid=31), rng=seed)
    for seed in range(3)
]
table = horizon_table(runs, [20, 40, 80], window=10)
plot_horizon(table, synthetic=True)

# %%
# One run, its smallest B under both window conventions, and per-window
# connectivity for windows of 10 steps.
print("aligned:", smallest_b(runs[0], windows="aligned").B)
print("sliding:", smallest_b(runs[0], windows="sliding").B)
plot_window_connectivity(b_connectivity(runs[0], 10, windows="aligned"), synthetic=True)
