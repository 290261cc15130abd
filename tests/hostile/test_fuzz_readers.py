"""Fuzzed readers against brute-force references (issue 30): each generated file either
reads to the series a plain Python reference computes from the same rows, or is refused
with one line of at most 300 characters naming the file."""

from __future__ import annotations

import re

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from baygo_graph.inputs import as_series

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
CANONICAL = re.compile(r"0|-?[1-9][0-9]*")


def _reference(rows, n_steps):
    """Per step, each node's in-weights normalised (self-weight 0), isolated: w_ii = 1."""
    labels = sorted({x for u, v, *_ in rows for x in (u, v)})
    if all(CANONICAL.fullmatch(x) for x in labels):
        labels = sorted(int(x) for x in labels)
        rows = [(int(u), int(v), *rest) for u, v, *rest in rows]
    index = {x: k for k, x in enumerate(labels)}
    w = np.zeros((n_steps, len(labels), len(labels)))
    for u, v, t, weight in rows:
        w[t, index[v], index[u]] += weight
    sums = w.sum(axis=2, keepdims=True)
    out = np.where(sums > 0, w / np.where(sums > 0, sums, 1), 0)
    for t in range(n_steps):
        empty = sums[t, :, 0] == 0
        out[t, empty, empty] = 1.0
    return tuple(labels), out


def _check_refusal(e: Exception, path) -> None:
    msg = str(e).replace(str(path.parent), "D")
    assert "\n" not in msg and len(msg) <= 300 and path.name in msg, msg


TIME_TEXTS = st.sampled_from(["{}", "+{}", "{}.0", "{}e0", " {} ", "{}.000"])
LABELS = st.sampled_from(["a", "b", "7", "007", "-0", "x y", "12", "é"])


@FAST
@given(
    rows=st.lists(
        st.tuples(LABELS, LABELS, st.integers(0, 6), st.sampled_from([1, 2, 0.5])),
        min_size=1,
        max_size=10,
    ),  # fmt: skip
    kind=st.sampled_from(["csv", "tsv", "snap"]),
    gaps=st.lists(st.sampled_from([" ", "\t", "  ", " \t "]), min_size=3, max_size=3),
    comments=st.lists(st.sampled_from(["# c", "% c", "", "#"]), max_size=3),
    spell=TIME_TEXTS,
    quote=st.booleans(),
    junk=st.one_of(st.none(), st.sampled_from(["1.5", "x", "9223372036854775808", "\xa0"])),
)
def test_edge_list_text_reads_as_the_reference_or_one_line(
    tmp_path_factory, rows, kind, gaps, comments, spell, quote, junk
):
    folder = tmp_path_factory.mktemp("el")
    if kind == "snap":  # whitespace-separated, no header: labels without spaces
        rows = [(u.replace(" ", "_"), v.replace(" ", "_"), t, w) for u, v, t, w in rows]
    cells = [[u, v, spell.format(t), str(w)] for u, v, t, w in rows]
    if junk is not None:
        cells[-1][2] = junk
    if kind == "snap":
        path = folder / "e.txt"
        lines = [gaps[0] + gaps[1].join(c) + gaps[2].strip("\t") for c in cells]
        text = "\n".join([*comments, *lines]) + "\n"
        options = {"columns": "source,target,time,weight"}
    else:
        sep = "," if kind == "csv" else "\t"
        path = folder / f"e.{kind}"

        def cell(x):
            return f'"{x}"' if quote and sep not in x else x

        text = sep.join(["source", "target", "time", "weight"]) + "\n"
        text += "".join(sep.join(cell(x) for x in c) + "\n" for c in cells)
        options = {}
    path.write_text(text)
    try:
        got = as_series(path, self_weight=0, **options)
    except (ValueError, MemoryError) as e:
        _check_refusal(e, path)
        assert junk is not None or kind == "snap", e  # valid csv/tsv rows always read
        return
    assert junk in (None, "\xa0") or kind == "snap" and junk == "\xa0"
    first = min(t for *_, t, _ in rows)
    shifted = [(u, v, t - first, w) for u, v, t, w in rows]
    labels, ref = _reference(shifted, max(t for *_, t, _ in shifted) + 1)
    assert got.nodes == labels and got.n_steps == len(ref)
    for t in range(got.n_steps):
        np.testing.assert_allclose(got.weights(t).toarray(), ref[t], rtol=1e-12)


GEXF_HEAD = ('<gexf xmlns="http://gexf.net/1.3" version="1.3"><graph mode="dynamic" '
             'defaultedgetype="directed" timeformat="integer"><nodes>')  # fmt: skip


@FAST
@given(
    edges=st.lists(
        st.tuples(
            st.sampled_from("abc"),
            st.sampled_from("abc"),
            st.tuples(st.one_of(st.none(), st.integers(0, 8)), st.integers(0, 8)),
            st.sampled_from(["start/end", "startopen", "endopen", "open end"]),
            st.one_of(
                st.none(), st.tuples(st.integers(0, 8), st.integers(0, 8), st.integers(1, 4))
            ),
            st.sampled_from([None, 1.0, 3.0]),
        ),  # fmt: skip
        min_size=1,
        max_size=6,
    ),
)
def test_gexf_spells_and_dynamic_weights_match_a_brute_force_reading(tmp_path_factory, edges):
    """Each edge: a spell (closed, an exclusive bound, or no end), maybe a timed weight
    (closed interval) and a static weight; the reference expands the steps by hand."""
    path = tmp_path_factory.mktemp("gx") / "s.gexf"
    body, intervals = [], []
    for k, (u, v, (a, b), form, timed, static) in enumerate(edges):
        a = 0 if a is None else a
        a, b = min(a, b), max(a, b)
        attr = {
            "start/end": f'start="{a}" end="{b}"',
            "startopen": f'startopen="{a - 1}" end="{b}"',
            "endopen": f'start="{a}" endopen="{b + 1}"',
            "open end": f'start="{a}"',
        }[form]
        values = ""
        if timed is not None:
            s, e, w = min(timed[:2]), max(timed[:2]), timed[2]
            values = (f'<attvalues><attvalue for="weight" value="{w}" start="{s}" end="{e}"/>'
                      "</attvalues>")  # fmt: skip
        weight = "" if static is None else f' weight="{static}"'
        body.append(f'<edge id="{k}" source="{u}" target="{v}"{weight}>{values}'
                    f"<spells><spell {attr}/></spells></edge>")  # fmt: skip
        intervals.append((u, v, a, None if form == "open end" else b, timed, static or 1.0))
    times = [t for _, _, a, b, timed, _ in intervals for t in (a, b) if t is not None]
    times += [t for *_, timed, _ in intervals if timed for t in timed[:2]]
    last = max(times)
    first = min(times)
    rows = []
    for u, v, a, b, timed, static in intervals:
        for t in range(a, (last if b is None else b) + 1):
            w = static
            if timed is not None and min(timed[:2]) <= t <= max(timed[:2]):
                w = timed[2]
            rows.append((u, v, t - first, w))
    nodes = "".join(f'<node id="{n}"/>' for n in "abc")
    path.write_text(
        GEXF_HEAD + nodes + "</nodes><edges>" + "".join(body) + "</edges></graph></gexf>"
    )
    got = as_series(path, self_weight=0)  # made elsewhere: the edges' weights alone
    labels, ref = _reference(rows + [(n, n, 0, 0.0) for n in "abc"], last - first + 1)
    assert got.nodes == labels and got.n_steps == len(ref)
    for t in range(got.n_steps):
        np.testing.assert_allclose(got.weights(t).toarray(), ref[t], rtol=1e-12, err_msg=str(t))
