"""reproduce.claims: verdicts computed from the numbers, both ways."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from baygo_graph.analysis import TheoremCheck
from baygo_graph.reproduce import CLAIM_KEYS, CONTRASTS, STRATEGIES, evaluate_claims

SEEDS, STEPS, AGENTS = 5, 30, 3
#: The claims the synthetic tables below steer (the sentences and beliefs: own tests).
STEERED = [k for k in CLAIM_KEYS if not k.startswith("paper_") and k != "consensus_beliefs"]


def claims_table(*, baygo_shift, consensus_at, rng, shifts=None):
    """A compare()-shaped table whose numbers make the claims come out as asked.

    Every baseline's MSE is ``1 + shifts.get(s, 0) + noise``; BayGo's is ``1 +
    baygo_shift + noise + 0.01 r`` on seed r. BayGo's agents disagree by 0.5 before
    step ``consensus_at`` and agree exactly from it on.
    """
    shifts = {"baygo": baygo_shift} | dict(shifts or {})
    seed_noise = rng.uniform(0, 0.05, SEEDS)
    rows = []
    for s in STRATEGIES:
        for r in range(SEEDS):
            for t in range(STEPS):
                for a in range(AGENTS):
                    mse = 1.0 + shifts.get(s, 0.0) + seed_noise[r] + (0.01 * r * (s == "baygo"))
                    if s == "baygo" and t < consensus_at:
                        mse += 0.5 * a
                    rows.append((s, r, t, a, a == 0, mse))
    df = pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative", "mse"])
    df.attrs = {"synthetic": True, "strategies": list(STRATEGIES)}
    return df


def b_table(aligned):
    aligned = np.asarray(aligned, dtype=float)
    return pd.DataFrame(
        {
            "seed": np.tile(np.arange(len(aligned)), 2),
            "windows": ["aligned"] * len(aligned) + ["sliding"] * len(aligned),
            "smallest_b": np.concatenate([aligned, aligned + 1]),
        }
    )


def check(holds, vacuous, rate=-0.1):
    """A TheoremCheck with the same shares in every reading."""
    return TheoremCheck(holds, vacuous, holds, vacuous, holds, vacuous,
                        rate=np.array([rate, rate * 1.1]), final_error=np.ones(2) * 0.1,
                        pairs=1000)  # fmt: skip


# "beats" baselines a bit worse than BayGo, "matches" baselines equal to it.
GOOD = {"complete": 0.2, "negm": 0.2, "nocol": 0.2}


def test_claims_hold_when_the_numbers_say_so(rng):
    df = claims_table(baygo_shift=0.0, consensus_at=25, rng=rng, shifts=GOOD)
    claims = evaluate_claims(df, smallest_b=b_table([3, 7, 5, 2, 7]),
                             theorem=[check(1.0, 0.1)] * 3)  # fmt: skip
    assert [c.key for c in claims] == list(CLAIM_KEYS)
    # 5 seeds never pin a median down at 95% (order statistics need >= 6): cannot tell
    expected = {k: "cannot tell at 5 seeds" if k.startswith("consensus") else "holds"
                for k in STEERED}  # fmt: skip
    assert {c.key: c.verdict for c in claims if c.key in STEERED} == expected
    vs_complete = claims[0].values
    assert vs_complete["hi"] < 0 and vs_complete["n"] == SEEDS
    assert vs_complete["mean_difference"] == pytest.approx(-0.2 + 0.01 * np.mean(range(SEEDS)))
    # the equivalence uses the 90% interval of d = 0.01 r (the seed noise cancels)
    d = 0.01 * np.arange(SEEDS)
    half = stats.t.ppf(0.95, SEEDS - 1) * d.std(ddof=1) / np.sqrt(SEEDS)
    posm = claims[1].values
    assert posm["lo_tost"] == pytest.approx(d.mean() - half)
    assert posm["hi_tost"] == pytest.approx(d.mean() + half)
    assert posm["margin"] == pytest.approx(0.05 * np.mean(df.query("strategy == 'posm'")["mse"]))
    # equivalent within the margin, yet d = 0.01 r > 0 is significant: said so
    assert all(c.note == "" for c in claims if CONTRASTS.get(c.key, ("", "", ""))[2] == "beats")
    assert "significantly better than BayGo" in claims[1].note


def test_claims_fail_when_the_numbers_say_so(rng):
    df = claims_table(baygo_shift=0.2, consensus_at=26, rng=rng)
    claims = evaluate_claims(df, smallest_b=b_table([3, 8, 5, 2, 7]),
                             theorem=[check(0.5, 0.1)] * 3)  # fmt: skip
    expected = {k: "cannot tell at 5 seeds" if k.startswith("consensus") else "does not hold"
                for k in STEERED}  # fmt: skip
    expected |= dict.fromkeys(("theorem_literal", "theorem_cumulative", "theorem_kl"),
                              "violated where informative")  # fmt: skip
    assert {c.key: c.verdict for c in claims if c.key in STEERED} == expected
    by_key = {c.key: c for c in claims}
    assert by_key["consensus_abs_0.01"].values["median_step"] == 26
    assert by_key["consensus_abs_0.01"].values["limit"] == 25
    assert "max 8" in by_key["b_connectivity"].evidence
    assert by_key["b_connectivity"].values["b_max"] == STEPS // 4
    # read the other way: every baseline is significantly better than BayGo
    for key in CONTRASTS:
        assert "significantly better than BayGo" in by_key[key].note
    assert "exceeds that informative bound" in by_key["theorem_literal"].note


def test_matches_is_not_one_sided_and_an_ideal_baseline_beaten_is_said(rng):
    # BayGo far better than every baseline: "beats" holds, "matches" does not.
    df = claims_table(baygo_shift=-0.2, consensus_at=0, rng=rng)
    by_key = {c.key: c for c in evaluate_claims(df)}
    for key, (_, _, word) in CONTRASTS.items():
        assert by_key[key].holds is (word == "beats"), key
    assert by_key["baygo_vs_posm"].note.startswith("Not a match: BayGo is significantly better")
    assert "contradict the paper's premise" in by_key["baygo_vs_cen"].note
    assert "under-weights" in by_key["baygo_vs_cen_stratified"].note


def test_equivalence_inconclusive_and_beats_without_difference(rng):
    df = claims_table(baygo_shift=0.0, consensus_at=0, rng=rng, shifts={"posm": 0.0})
    # a wide spread: d = 0.01 r - 0.02 per seed, scaled up so the 90% interval is wide
    df.loc[df["strategy"] == "baygo", "mse"] += df.loc[df["strategy"] == "baygo", "seed"].map(
        {0: -0.3, 1: 0.3, 2: -0.2, 3: 0.2, 4: 0.0}
    )
    by_key = {c.key: c for c in evaluate_claims(df)}
    posm, complete = by_key["baygo_vs_posm"], by_key["baygo_vs_complete"]
    # an interval that straddles the margin is no finding: "cannot tell", with N
    assert posm.holds is None and posm.verdict == "cannot tell at 5 seeds"
    assert posm.note.startswith("Cannot tell")
    assert posm.values["lo_tost"] < posm.values["margin"] < posm.values["hi_tost"]
    assert posm.values["lo"] < 0 < posm.values["hi"]
    assert complete.holds is None and complete.verdict == "cannot tell at 5 seeds"
    assert complete.note.startswith("Cannot tell: no significant difference")


def test_missing_b_theorem_or_strategies(rng):
    df = claims_table(baygo_shift=-0.2, consensus_at=0, rng=rng)
    claims = {c.key: c for c in evaluate_claims(df)}
    assert claims["b_connectivity"].verdict == "not evaluated"
    assert claims["theorem_kl"].verdict == "not evaluated"
    claims = {c.key: c for c in evaluate_claims(df, smallest_b=b_table([2, np.nan, 2, 2, 2]))}
    assert claims["b_connectivity"].verdict == "does not hold"
    assert "no B in 1/5 seeds" in claims["b_connectivity"].evidence
    partial = df[df["strategy"].isin(["baygo", "nocol"])]
    verdicts = {c.key: c.verdict for c in evaluate_claims(partial)}
    assert verdicts["baygo_vs_nocol"] == "holds"
    assert verdicts["baygo_vs_complete"] == "not evaluated"


def test_theorem_claim_vacuous_bound_does_not_hold():
    # informative (right side < 1) in 1% and 3% of the pairs: too few to say anything
    claims = {c.key: c for c in evaluate_claims(
        claims_table(baygo_shift=0.0, consensus_at=0, rng=np.random.default_rng(0)),
        theorem=[check(1.0, 0.99, rate=-0.2), check(1.0, 0.97, rate=-0.1)],
    )}  # fmt: skip
    lit = claims["theorem_literal"]
    assert lit.holds is None and lit.verdict == "vacuous" and "not a counterexample" in lit.note
    assert lit.values["vacuous_share"] == pytest.approx(0.98)
    assert lit.values["informative_share"] == pytest.approx(0.02)
    assert lit.values["rate"] == pytest.approx(np.mean([-0.21, -0.105]))


def test_theorem_reading_failing_where_informative_is_violated_not_vacuous():
    # the real data's whole-KL reading: informative in ~45% of pairs, fails in ~98% of
    # those; vacuous in most pairs is no excuse (the former 50% rule called it vacuous)
    fails = [check(0.55 + 0.01 * f, 0.55, rate=-0.1) for f in (0.0, 0.5, 1.0, 1.5)]
    lit = {c.key: c for c in evaluate_claims(
        claims_table(baygo_shift=0.0, consensus_at=0, rng=np.random.default_rng(0)),
        theorem=fails,
    )}["theorem_literal"]  # fmt: skip
    assert lit.verdict == "violated where informative" and lit.holds is False
    assert lit.values["informative_share"] == pytest.approx(0.45)
    held = np.array([0.0, 0.5, 1.0, 1.5]) / 45  # bound holds among informative pairs
    assert lit.values["holds_where_informative"] == pytest.approx(held.mean(), abs=1e-9)
    assert lit.values["holds_lo"] <= held.mean() <= lit.values["holds_hi"] < 0.95
    assert "45.0% of" in lit.evidence and "Violated where informative" in lit.note


def test_theorem_reading_straddling_its_threshold_cannot_tell():
    mixed = [check(1.0, 0.5), check(0.5, 0.5), check(1.0, 0.5)]  # 100%, 0%, 100% hold
    lit = {c.key: c for c in evaluate_claims(
        claims_table(baygo_shift=0.0, consensus_at=0, rng=np.random.default_rng(0)),
        theorem=mixed,
    )}["theorem_literal"]  # fmt: skip
    assert lit.verdict == "cannot tell at 3 seeds" and lit.holds is None
    assert lit.values["holds_lo"] < 0.95 <= lit.values["holds_hi"]


@pytest.mark.parametrize(
    ("steps", "verdict"),
    [
        ([10] * 12, "holds"),
        ([40] * 12, "does not hold"),
        ([10] * 6 + [40] * 6, "cannot tell at 12 seeds"),
    ],
)
def test_consensus_is_three_way_from_the_median_interval(steps, verdict):
    rows = [{"strategy": "baygo", "seed": r, "step": t, "agent": a, "informative": a == 0,
                 "mse": 1.0 + (t < steps[r]) * 0.5 * a}
            for r in range(len(steps)) for t in range(50) for a in range(2)]  # fmt: skip
    claims = {c.key: c for c in evaluate_claims(pd.DataFrame(rows))}
    c = claims["consensus_abs_0.01"]
    assert c.verdict == verdict and c.n == len(steps)
    assert c.values["median_lo"] <= c.values["median_step"] <= c.values["median_hi"]


def test_the_matches_verdict_is_decided_only_outside_the_straddle(rng):
    # BayGo 0.2 worse than PosM, a tight interval far outside a 5% margin: does not hold
    df = claims_table(baygo_shift=0.2, consensus_at=0, rng=rng)
    posm = {c.key: c for c in evaluate_claims(df)}["baygo_vs_posm"]
    assert posm.values["lo_tost"] > posm.values["margin"]
    assert posm.verdict == "does not hold" and posm.n == SEEDS


def curves_table(rng, *, complete, baygo, stars):
    """Informative-agent curves (seeds, steps) per strategy around given mean curves;
    the other agent sits at the final value (+ star offsets at the last step)."""
    rows = []
    for s, curve in (("complete", complete), ("baygo", baygo), ("posm", baygo), ("negm", baygo)):
        noise = rng.normal(0, 0.002, (8, len(curve)))
        for r in range(8):
            for t, v in enumerate(curve):
                last = stars.get(s, 0.0) * (t == len(curve) - 1)
                rows.append((s, r, t, 0, True, v + noise[r, t]))
                rows.append((s, r, t, 1, False, curve[-1] + last + 0.01 * (r % 3)))
    return pd.DataFrame(rows, columns=["strategy", "seed", "step", "agent", "informative",
                                       "mse"])  # fmt: skip


def test_paper_sentences_read_against_the_data(rng):
    t = np.arange(30)
    falling = 1.0 / (1 + t)
    rising_early = np.where(t < 20, 0.5 + 0.02 * t, 0.9)
    wiggly = falling + 0.05 * (t % 2)  # rises at every odd step
    df = curves_table(rng, complete=falling, baygo=wiggly, stars={"posm": 0.0, "negm": 0.2})
    by_key = {c.key: c for c in evaluate_claims(df)}
    early = by_key["paper_complete_worsens_early"]
    assert early.verdict == "does not hold" and early.values["step"] == 19
    assert early.values["seeds_rising"] == 0 and "contradict" in early.note
    assert "first 20 iterations" in early.claim and early.values["source"]
    dec = by_key["paper_baygo_informative_decreases"]
    assert dec.verdict == "does not hold"
    assert dec.values["steps_rising"] == int((np.diff(wiggly) > 0).sum()) == 13
    stars = by_key["paper_outperforms_stars"]
    # BayGo equals PosM on the non-informative agents: no superiority, whatever NegM says
    assert stars.verdict != "holds" and stars.values["negm"]["hi"] < 0
    df = curves_table(rng, complete=rising_early, baygo=falling, stars={"posm": 0.1, "negm": 0.2})
    by_key = {c.key: c for c in evaluate_claims(df)}
    assert by_key["paper_complete_worsens_early"].verdict == "holds"
    assert by_key["paper_baygo_informative_decreases"].verdict in (
        "holds",
        "cannot tell at 8 seeds",
    )
    assert by_key["paper_baygo_informative_decreases"].values["significant_rises"] == 0
    assert by_key["paper_outperforms_stars"].verdict == "holds"


def test_belief_consensus_is_its_own_reading(rng):
    from baygo_graph.reproduce.consensus import belief_spread

    # three agents whose posterior means meet at step 8 (MSE equal from step 0)
    means = np.zeros((12, 30, 3, 2))
    means[:, :8, :, 0] = np.linspace(-1, 1, 3)
    spreads = np.stack([belief_spread(m) for m in means])
    brute = [[max(np.linalg.norm(a - b) for a in m[t] for b in m[t]) for t in range(30)]
             for m in means]  # fmt: skip
    np.testing.assert_allclose(spreads, brute, atol=1e-12)
    df = claims_table(baygo_shift=0.0, consensus_at=0, rng=rng)
    by_key = {c.key: c for c in evaluate_claims(df, beliefs=spreads)}
    b = by_key["consensus_beliefs"]
    assert b.verdict == "holds" and b.values["median_step"] == 8 and b.n == 12
    assert b.values["reading"] == "beliefs" and "posterior means" in b.test
    assert by_key["consensus_abs_0.01"].values["reading"] == "mse"
    assert "MSE reading" in by_key["consensus_abs_0.01"].test


@pytest.mark.parametrize("seeds", [8, 2])
@pytest.mark.parametrize("steps", [2, 3, 12])
def test_a_run_shorter_than_a_claims_span_is_not_tested_never_contradicted(rng, steps, seeds):
    # a run of T steps cannot show: 4 complete windows when T < 4, the first 20
    # iterations when T < 20, consensus by step 25 when it ends before step 25; with 2
    # seeds too ("cannot tell at 2 seeds" said more seeds would decide: hostile17 V6)
    t = np.arange(steps)
    falling = 1.0 / (1 + t)
    df = curves_table(rng, complete=falling, baygo=falling, stars={})
    df = df[df["seed"] < seeds]
    df = pd.concat([df, df.assign(agent=2, mse=df["mse"] + 1.0)])  # agents never agree
    claims = {c.key: c for c in evaluate_claims(df, smallest_b=b_table([1] * seeds),
                                                beliefs=np.ones((seeds, steps)))}  # fmt: skip
    b = claims["b_connectivity"]
    if steps < 4:
        assert b.holds is None and b.verdict == "not evaluated"
        assert b.evidence.startswith(f"not tested: a run of T = {steps} steps")
    else:  # B = 1 <= 12 // 4: decided on the data
        assert b.verdict == "holds"
    early = claims["paper_complete_worsens_early"]
    assert early.holds is None and early.verdict == "not evaluated"
    assert f"T = {steps} steps is shorter than the sentence's first 20" in early.evidence
    for key in ("consensus_abs_0.01", "consensus_beliefs"):
        c = claims[key]
        assert c.holds is None and c.verdict == "not evaluated", key
        assert c.note.startswith(f"Not tested: the run of T = {steps} steps ends before")
        assert np.isinf(c.values["median_step"])  # never reached within the run
        assert c.values["not_tested"] == c.note[0].lower() + c.note[1:-1]
    if steps < 4:  # every teller reads the same reason (the report's table from values)
        assert b.evidence.startswith(b.values["not_tested"] + "; aligned: smallest B")
    else:
        assert "not_tested" not in b.values
    assert early.values["not_tested"] == early.evidence


def test_a_long_enough_run_that_never_reaches_consensus_contradicts(rng):
    t = np.arange(30)  # the run goes past step 25: never reaching consensus is late
    df = curves_table(rng, complete=1.0 / (1 + t), baygo=1.0 / (1 + t), stars={})
    df = pd.concat([df, df.assign(agent=2, mse=df["mse"] + 1.0)])
    claims = {c.key: c for c in evaluate_claims(df, beliefs=np.ones((8, 30)))}
    assert claims["consensus_abs_0.01"].verdict == "does not hold"
    assert claims["consensus_beliefs"].verdict == "does not hold"


@pytest.mark.parametrize(("tail", "words"), [(1, "(up to 1 step)"), (3, "(up to 3 steps)")])
def test_the_longest_tail_is_counted_in_words(tail, words):
    """ "a tail after the last full window in 2 seeds (up to 1 steps)" (hostile18 W5)."""
    from baygo_graph.reproduce.claims import _b_evidence

    table = pd.DataFrame({"windows": "aligned", "smallest_b": [2.0, 2.0],
                          "tail_length": [tail, 1.0], "tail_connected": [0.0, 1.0]})  # fmt: skip
    text = _b_evidence(table, 5)[0]
    assert f"a tail after the last full window in 2 seeds {words}" in text, text


def test_coverage_rows_read_one_pass_and_equal_each_kind_alone():
    """Both rows from one time-to-connectivity pass equal each kind computed alone, on
    BayGo runs and on random sparse series (some with no B)."""
    import networkx as nx

    import baygo_graph as bg
    from baygo_graph.models import LinearRegression
    from baygo_graph.reproduce.claims import coverage_row, coverage_rows

    runs = [bg.simulate("baygo", agents=5, steps=30, model=LinearRegression(grid=11), rng=s,
                        data=bg.synthetic_bodyfat(), progress=False) for s in range(2)]  # fmt: skip
    gen = np.random.default_rng(3)
    for p in (0.05, 0.15, 0.4):
        runs.append([nx.gnp_random_graph(6, p, seed=int(gen.integers(1 << 30)), directed=True)
                     for _ in range(25)])  # fmt: skip
    for run in runs:
        alone = [coverage_row(run, kind) for kind in ("aligned", "sliding")]
        pd.testing.assert_frame_equal(pd.DataFrame(coverage_rows(run)), pd.DataFrame(alone))
