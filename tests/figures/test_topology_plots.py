"""Graph drawings, who-listens-to-whom heat map, the informative agent's audience."""

from __future__ import annotations

import matplotlib as mpl
import networkx as nx
import numpy as np
import pytest

from baygo_graph.figures import (
    INFORMATIVE_COLOR,
    INFORMATIVE_MARKER,
    draw_graph,
    plot_listen_matrix,
    plot_listening_fraction,
)
from baygo_graph.figures._graph import agent_layout, as_weights


def _collection(ax, gid):
    (coll,) = [c for c in ax.collections if c.get_gid() == gid]
    return coll


def test_step_graph_has_one_arrow_per_listening_edge(baygo_run):
    for t in (0, 5):
        g = baygo_run.graph(t)
        before = nx.to_dict_of_dicts(g)
        ax = draw_graph(g)
        _, src, dst, _ = baygo_run.step_edges(t, t + 1)
        expected = {f"edge:{j}->{i}" for j, i in zip(src, dst, strict=True)}
        assert {p.get_gid() for p in ax.patches} == expected
        assert nx.to_dict_of_dicts(g) == before
        assert ax.get_title() == f"step {t}"


def test_edge_width_grows_with_weight_and_weights_convention():
    w = np.array([[0.4, 0.6, 0.0], [0.1, 0.9, 0.0], [0.3, 0.0, 0.7]])
    ax = draw_graph(w, informative=1)
    width = {p.get_gid(): p.get_linewidth() for p in ax.patches}
    assert set(width) == {"edge:1->0", "edge:0->1", "edge:0->2"}  # w_ij > 0: i hears j
    assert width["edge:1->0"] > width["edge:0->2"] > width["edge:0->1"]
    # A DiGraph with the DESIGN.md convention gives the same W.
    g = nx.DiGraph()
    g.add_weighted_edges_from([(1, 0, 0.6), (0, 1, 0.1), (0, 2, 0.3)])
    np.testing.assert_allclose(as_weights(g).toarray(), w - np.diag(np.diag(w)))


def test_informative_agent_is_a_star_and_sizes_follow_influence(baygo_run):
    infl = np.array([0.5, 0.2, 0.1, 0.1, 0.1])
    ax = draw_graph(baygo_run.graph(2), influence=infl)
    star = _collection(ax, "nodes:informative")
    pos = agent_layout(5, informative=0)
    np.testing.assert_allclose(star.get_offsets(), pos[[0]])
    assert mpl.colors.same_color(star.get_facecolor()[0], INFORMATIVE_COLOR)
    style = mpl.markers.MarkerStyle(INFORMATIVE_MARKER)
    marker = style.get_path().transformed(style.get_transform())
    np.testing.assert_allclose(star.get_paths()[0].vertices, marker.vertices)
    others = _collection(ax, "nodes:others").get_sizes()
    # Sizes are affine in influence: equal influences, equal sizes; larger, larger.
    assert np.allclose(others[1:], others[1]) and others[0] > others[1]


def test_draw_graph_refuses_bad_positions():
    with pytest.raises(ValueError, match="pos"):
        draw_graph(np.eye(3), pos=np.zeros((2, 2)))


def test_listen_matrix_rows_are_shares_and_star_labels():
    counts = np.array([[0, 3, 1], [4, 0, 0], [2, 2, 0]])
    ax = plot_listen_matrix(counts, informative=0)
    np.testing.assert_allclose(ax.images[0].get_array(), counts / counts.sum(1, keepdims=True))
    xt = [lab.get_text() for lab in ax.get_xticklabels()]
    assert xt == [f"{INFORMATIVE_MARKER}0", "1", "2"]
    assert mpl.colors.same_color(ax.get_xticklabels()[0].get_color(), INFORMATIVE_COLOR)
    raw = plot_listen_matrix(counts, normalize=False)
    np.testing.assert_array_equal(raw.images[0].get_array(), counts)
    with pytest.raises(ValueError, match="square"):
        plot_listen_matrix(np.ones((2, 3)))


def test_listening_fraction_mean_band_and_chance(rng, t_reference):
    frac = rng.uniform(size=(5, 7))
    ax = plot_listening_fraction(frac, chance=1 / 11, synthetic=True)
    (line,) = [ln for ln in ax.get_lines() if ln.get_gid() == "fraction"]
    ref = np.array([t_reference(frac[:, k]) for k in range(7)])
    np.testing.assert_allclose(line.get_ydata(), ref[:, 0])
    band = _collection(ax, "band:fraction")
    verts = np.concatenate([p.vertices for p in band.get_paths()])
    # a share: percentile bootstrap over seeds (brute force with the same counts)
    counts = np.random.default_rng(0).multinomial(5, np.full(5, 0.2), size=2000)
    boot = counts @ frac / 5
    assert verts[:, 1].min() == pytest.approx(np.quantile(boot, 0.025, axis=0).min())
    assert verts[:, 1].max() == pytest.approx(np.quantile(boot, 0.975, axis=0).max())
    assert 0.0 <= verts[:, 1].min() and verts[:, 1].max() <= 1.0
    (chance,) = [ln for ln in ax.get_lines() if ln.get_gid() == "chance"]
    assert chance.get_ydata()[0] == pytest.approx(1 / 11)
    assert line.get_marker() == INFORMATIVE_MARKER
    assert "SYNTHETIC DATA" in [t.get_text() for t in ax.texts]
    one = plot_listening_fraction(frac[0])
    assert not [c for c in one.collections if c.get_gid() == "band:fraction"]


def test_many_arrows_are_one_quiver_along_the_edges():
    from baygo_graph.figures._graph import ARROW_PATCH_LIMIT

    m = ARROW_PATCH_LIMIT + 30
    rng = np.random.default_rng(3)
    heard = (np.arange(m) + rng.integers(1, m, size=m)) % m  # agent i listens to heard[i]
    w = np.eye(m) * 0.5
    w[np.arange(m), heard] = 0.5
    ax = draw_graph(w, min_weight=0.0)
    legend = ax.get_legend().get_title().get_text()
    assert "strongest" not in legend  # every arrow is drawn: the quiver counts as m arrows
    assert not [p for p in ax.patches if str(p.get_gid()).startswith("edge:")]
    (q,) = [c for c in ax.collections if c.get_gid() == "edges"]
    assert q.N == m
    pos = agent_layout(m, informative=0)
    start = pos[heard]
    direction = pos[np.arange(m)] - start
    got = np.column_stack([q.U, q.V])
    order = np.lexsort(got.T)
    np.testing.assert_allclose(got[order], (0.84 * direction)[np.lexsort((0.84 * direction).T)])


def test_a_long_or_mathtext_label_keeps_the_canvas_its_size():
    """hostile9 M14: a 100,000-character node label drew 800,026-pixel-wide figures (4 GB);
    names on figures are cut to 40 characters, and '$' is shown, never parsed."""
    import matplotlib.pyplot as plt

    from baygo_graph.figures import plot_influence_series

    long, math = "x" * 100_000, r"$\foo$"
    graph = nx.DiGraph([(long, "b", {"weight": 1.0}), ("b", math, {"weight": 0.5})])
    ax = draw_graph(graph)
    fig = ax.figure
    fig.canvas.draw()
    texts = [t.get_text() for t in ax.texts]
    assert "x" * 39 + "…" in texts and r"\$\foo\$" in texts
    assert max(map(len, texts)) == 40
    width, height = fig.canvas.get_width_height()
    assert width < 2_000 and height < 2_000
    plt.close(fig)
    ax = plot_influence_series(np.full((3, 3), 1 / 3), labels=[long, "b", math], top=2)
    ax.figure.canvas.draw()  # '$\foo$' would raise a mathtext ParseError
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any(("x" * 39 + "…") in t for t in legend)
    assert max(map(len, legend)) < 80
    plt.close(ax.figure)


def test_arrow_curves_are_matplotlibs_arc3_and_drawn_the_same():
    """draw_edges' connection style keeps each clipped curve per end points: the curve is
    ConnectionStyle.Arc3(rad=0.2)'s for the same values, and a graph drawn with it has
    the pixels of one drawn with the plain "arc3,rad=0.2"."""
    import io
    import pickle

    import matplotlib.pyplot as plt
    from matplotlib.patches import ConnectionStyle, FancyArrowPatch

    from baygo_graph.figures import _graph

    rng = np.random.default_rng(3)
    plain = ConnectionStyle.Arc3(rad=0.2)
    ends, shrinks = rng.uniform(0, 500, (20, 2, 2)), rng.uniform(0, 20, (20, 2))
    for (a, b), (s1, s2) in zip(ends, shrinks, strict=True):
        for _ in range(2):  # computed, then kept
            mine = _graph._arc()(a, b, shrinkA=s1, shrinkB=s2)
            ref = plain(a, b, shrinkA=s1, shrinkB=s2)
            assert np.array_equal(mine.vertices, ref.vertices)
            assert np.array_equal(mine.codes, ref.codes)

    def png(style):
        fig, ax = plt.subplots(figsize=(3, 3))
        pos = np.array([[0.0, 0.0], [1.0, 0.2], [0.4, 1.0]])
        ax.set_xlim(-0.5, 1.5)
        ax.set_ylim(-0.5, 1.5)
        for j, i, w in ((0, 1, 0.3), (1, 2, 1.0), (2, 0, 0.6), (1, 0, 0.1)):
            ax.add_artist(FancyArrowPatch(pos[j], pos[i], arrowstyle="-|>", mutation_scale=12,
                                          linewidth=0.4 + 2.4 * w, connectionstyle=style,
                                          shrinkA=9, shrinkB=11))  # fmt: skip
        buf = io.BytesIO()
        fig.savefig(buf, format="png", dpi=60)
        plt.close(fig)
        return buf.getvalue()

    assert png(_graph._arc()) == png("arc3,rad=0.2")
    assert pickle.loads(pickle.dumps(_graph._arc())) is _graph._arc()  # a figure pickles
