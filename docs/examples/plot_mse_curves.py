"""
MSE curves: BayGo against its baselines
=======================================

Every strategy runs on the same paired seeds (same split, same batches), and the
figure shows the test MSE of the informative agent and the mean of the others,
with a 95% t-band over seeds. The sizes are small so the page builds in seconds;
the paper's size is 20 seeds, 60 steps, 12 agents and a 61 x 61 grid
(``baygo reproduce``). With no data file the toolkit uses its labelled
synthetic stand-in for the bodyfat data, and the figure says so.
"""

import matplotlib.pyplot as plt

from baygo_graph.analysis import summarize
from baygo_graph.experiments import compare
from baygo_graph.figures import plot_vs_baselines, plot_vs_complete
from baygo_graph.models import LinearRegression

df = compare(
    ["baygo", "complete", "nocol", "cen"],
    seeds=3,
    steps=20,
    agents=8,
    model=LinearRegression(grid=31),
    rng=0,
    n_jobs=1,
    progress=False,
)

fig, axes = plt.subplots(2, 1, figsize=(9, 8), layout="constrained")
plot_vs_complete(df, ax=axes[0])
plot_vs_baselines(df, ax=axes[1])

# %%
# One row per strategy: final MSE of the informative agent and of the others.
summarize(df)[["final_mse_informative", "final_mse_others"]]
