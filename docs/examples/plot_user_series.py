"""
Your own temporal network
=========================

Every function of :mod:`baygo_graph.analysis` takes a sequence of
:class:`networkx.DiGraph` on one node set as readily as a run. Here a made-up
contact series: 10 people, 30 days, each day a few random directed contacts
(edge ``(j, i)``: ``i`` hears from ``j``), with a hub that everyone hears often.
Each person also keeps their own view (a self-loop), so a window's influence is
the left Perron vector of its mean row-normalised weight matrix
(``method="union"``).
"""

import networkx as nx
import numpy as np

from baygo_graph.analysis import influence_series, smallest_b
from baygo_graph.figures import draw_graph, plot_influence_series

rng = np.random.default_rng(0)
people, days = 10, 30
graphs = []
for _ in range(days):
    g = nx.DiGraph()
    g.add_nodes_from(range(people))
    for i in range(people):
        g.add_edge(i, i, weight=1.0)
        j = 0 if rng.random() < 0.3 else int(rng.integers(people))
        if j != i:
            g.add_edge(j, i, weight=1.0)
    graphs.append(g)

print("smallest B, aligned windows:", smallest_b(graphs, windows="aligned").B)
series = influence_series(graphs, window=7, method="union", windows="sliding").values
plot_influence_series(
    series, informative=0, title="Influence over 7-day windows", caption="made-up contacts"
)

# %%
# The union of the first week, arrows weighted by how often they occur.
week = nx.DiGraph()
week.add_nodes_from(range(people))
for g in graphs[:7]:
    for j, i in g.edges:
        if i == j:
            continue
        w = week.edges[j, i]["weight"] + 1 if week.has_edge(j, i) else 1.0
        week.add_edge(j, i, weight=w)
draw_graph(week, informative=0, caption="made-up contacts, days 0-6")
