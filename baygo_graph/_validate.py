"""Argument checks shared by the package: a wrong type is a TypeError, a wrong value a ValueError.

Every message names the argument and the value it got. Random state follows SciPy's
SPEC 7: one ``rng`` argument (a Generator, a SeedSequence, an int or None) turned
into a Generator once, at the boundary, by :func:`seed_record`.
"""

from __future__ import annotations

import decimal
import math
import numbers
import re

import numpy as np

from ._text import a_kind, short_repr

__all__ = [
    "check_bool",
    "INTEGER_TEXT",
    "INT_LABEL",
    "NUMBER_TEXT",
    "int_label_text",
    "int_label_texts",
    "real_text",
    "check_choice",
    "check_int",
    "check_registry_name",
    "check_finite_step",
    "check_real",
    "check_real_array",
    "check_scale",
    "check_unique_names",
    "csv_header_names",
    "held_float_warnings",
    "is_plain_row",
    "root_seed_sequence",
    "seed_from_record",
    "seed_record",
    "TINY_WEIGHT",
    "underflows",
    "weight_problem",
]


#: An integer as every reader takes it from text: ASCII digits and an optional sign.
#: Python's ``int()`` and ``float()`` take more (``1_000``, Arabic-Indic digits, a
#: no-break space around it), which the readers refuse (docs/formats.md).
INTEGER_TEXT = re.compile(r"[+-]?[0-9]+")
#: A decimal number as every reader takes it from text: :data:`INTEGER_TEXT` with an
#: optional fraction and exponent, ASCII only.
NUMBER_TEXT = re.compile(r"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")


#: An integer node label written the one canonical way (ASCII digits, no ``+``, no
#: leading zero, no ``-0``: no two texts name one integer), at most 19 digits; read as an
#: integer only when it also fits a signed 64-bit integer (:func:`int_label_text`).
INT_LABEL = re.compile(r"0|-?[1-9][0-9]{0,18}")
_INT64_TOP = {False: "9223372036854775807", True: "9223372036854775808"}  # 2^63 - 1, -2^63


def int_label_text(text) -> bool:
    """Whether ``text`` is read as an integer label: :data:`INT_LABEL` and within the
    signed 64-bit range (integer labels are 64-bit signed, docs/formats.md) - the one
    rule of every door that reads labels from text (CSV, TSV, SNAP and KONECT files,
    GEXF and GraphML ids).

    Examples
    --------
    >>> [int_label_text(t) for t in ("7", "007", "-0", "9223372036854775807")]
    [True, False, False, True]
    >>> int_label_text("9223372036854775808"), int_label_text("-9223372036854775808")
    (False, True)
    """
    if not isinstance(text, str) or not INT_LABEL.fullmatch(text):
        return False
    digits = text.removeprefix("-")
    return len(digits) < 19 or digits <= _INT64_TOP[text.startswith("-")]


def int_label_texts(texts) -> bool:
    """:func:`int_label_text` of every cell of a pandas Series of text, vectorised (False
    for an empty one).

    Examples
    --------
    >>> import pandas as pd
    >>> int_label_texts(pd.Series(["1", "-9223372036854775808"]))
    True
    >>> int_label_texts(pd.Series(["1", "10000000000000000000"]))
    False
    """
    if not len(texts) or not texts.str.fullmatch(INT_LABEL.pattern).all():
        return False
    digits = texts.str.removeprefix("-")
    long = digits.str.len() == 19
    if not long.any():
        return True
    negative = texts.str.startswith("-")
    top = negative.map({False: _INT64_TOP[False], True: _INT64_TOP[True]})
    return bool((digits[long] <= top[long]).all())


#: A strategy's or model's registered name: what a command can select (``--strategies``
#: splits on commas, and ``_`` is read as ``-``).
REGISTRY_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*")


def check_registry_name(name, *, what: str = "name") -> str:
    """``name`` when it is a name a command can select: lower-case ASCII letters and
    digits, words joined by ``-`` (``"cen-stratified"``); a ValueError naming it
    otherwise (a comma, a newline, ``_``, ``/`` or a NUL made a name no command could
    select, or one printed as another).

    Examples
    --------
    >>> check_registry_name("cen-stratified")
    'cen-stratified'
    >>> check_registry_name("x,y")
    Traceback (most recent call last):
    ...
    ValueError: name must be lower-case letters and digits, words joined by '-' (how ...
    """
    if not isinstance(name, str) or not REGISTRY_NAME.fullmatch(name):
        raise ValueError(
            f"{what} must be lower-case letters and digits, words joined by '-' (how "
            f"commands select it, e.g. 'cen-stratified'), got {short_repr(name)}"
        )
    return name


def check_int(name: str, value, *, minimum: int | None = None, maximum: int | None = None) -> int:
    """``value`` as an int, checked against ``[minimum, maximum]``.

    Examples
    --------
    >>> check_int("agents", 12, minimum=2)
    12
    >>> check_int("agents", 1, minimum=2)
    Traceback (most recent call last):
    ...
    ValueError: agents must be an integer >= 2, got 1
    >>> check_int("agents", 2.0)
    Traceback (most recent call last):
    ...
    TypeError: agents must be an integer, got float 2.0
    """
    bound = (
        ""
        if minimum is None and maximum is None
        else f" >= {minimum}"
        if maximum is None
        else f" <= {maximum}"
        if minimum is None
        else f" in [{minimum}, {maximum}]"
    )
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer{bound}, got {type(value).__name__} {value!r}")
    value = int(value)
    if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
        raise ValueError(f"{name} must be an integer{bound}, got {value!r}")
    return value


def check_real(
    name: str,
    value,
    *,
    low: float | None = None,
    high: float | None = None,
    low_open: bool = False,
    high_open: bool = False,
) -> float:
    """``value`` as a finite float in ``[low, high]`` (``(low, ...`` with ``low_open``,
    ``..., high)`` with ``high_open``). Every refusal states the whole range, and says
    "finite" when the value is a number but not a finite one (nan, inf).

    Examples
    --------
    >>> check_real("delta", 0.5, low=0, high=1)
    0.5
    >>> check_real("sigma", float("nan"), low=0, low_open=True)
    Traceback (most recent call last):
    ...
    ValueError: sigma must be a finite number > 0, got nan
    >>> check_real("test_fraction", "abc", low=0, high=1, low_open=True, high_open=True)
    Traceback (most recent call last):
    ...
    TypeError: test_fraction must be a finite number in (0, 1), got str 'abc'
    """
    if low is not None and high is not None:
        bound = f" in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    elif low is not None:
        bound = f" {'>' if low_open else '>='} {low:g}"
    elif high is not None:
        bound = f" {'<' if high_open else '<='} {high:g}"
    else:
        bound = ""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(  # the words of the value refusals below: one rule, one wording
            f"{name} must be a finite number{bound}, got {type(value).__name__} {value!r}"
        )
    value = float(value)
    too_low = low is not None and (value <= low if low_open else value < low)
    too_high = high is not None and (value >= high if high_open else value > high)
    if not math.isfinite(value):
        raise ValueError(f"{name} must be a finite number{bound}, got {value!r}")
    if too_low or too_high:
        # a range says the number is finite; a one-sided bound says it too
        what = bound.lstrip() if low is not None and high is not None else f"a finite number{bound}"
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return value


def real_text(name: str, text, *, zero: str = "") -> float:
    """The float a number written as ``text`` stands for, ``-0`` as 0: one rule for every
    number a user types (``--delta``, ``--self-weight``, ``--param delta=...``). Text of a
    nonzero number that is 0 as a float (``1e-400``, below the smallest float) is refused
    (a positive value typed is never taken as 0); a number that is not text is taken as
    it is (a float cannot be below the floats). ``zero``: what 0 would mean, for the message.

    Examples
    --------
    >>> real_text("delta", "0.5"), real_text("delta", "-0"), real_text("delta", 0.25)
    (0.5, 0.0, 0.25)
    >>> real_text("delta", "1e-400")
    Traceback (most recent call last):
    ...
    ValueError: delta '1e-400' is nonzero but below the smallest float, so it would be 0: \
give 0, or a value of 1e-300 or more
    """
    bare = text.strip(" \t\r\n") if isinstance(text, str) else None
    if (
        bare is not None
        and not NUMBER_TEXT.fullmatch(bare)
        and (bare.lower().lstrip("+-") not in ("inf", "infinity", "nan"))
    ):
        raise ValueError(f"{name} {text!r} is not a number (ASCII digits, e.g. 0.5)")
    value = float(text)  # ValueError / TypeError for what is no number
    if value == 0 and isinstance(text, str):
        from decimal import Decimal, InvalidOperation

        try:
            tiny = Decimal(text.strip()) != 0
        except InvalidOperation:
            tiny = False
        if tiny:
            why = f" ({zero})" if zero else ""
            raise ValueError(
                f"{name} {text.strip()!r} is nonzero but below the smallest float, so it "
                f"would be 0{why}: give 0, or a value of 1e-300 or more"
            )
    return value + 0.0  # -0 is 0


def check_real_array(name: str, value) -> None:
    """TypeError when the array (dense or sparse) ``value`` holds complex numbers, which
    ``astype(float)`` would silently cut to their real parts.

    Examples
    --------
    >>> check_real_array("weights", np.eye(2))
    >>> check_real_array("weights", np.eye(2) + 1j)
    Traceback (most recent call last):
    ...
    TypeError: weights must be real numbers, got complex128 values
    """
    dtype = getattr(value, "dtype", None)
    if dtype is None and not isinstance(value, str | bytes):
        try:
            dtype = np.asarray(value).dtype
        except (TypeError, ValueError):
            return  # not array-like: the caller's own checks say so
    if dtype is not None and dtype.kind == "c":
        raise TypeError(f"{name} must be real numbers, got {dtype} values")


#: Accepted range of a scale (a noise standard deviation, a prior variance): its
#: square and the inverse of its square stay normal floats (1e-300 .. 1e300), so
#: no ``1 / sigma**2`` divides by zero or overflows.
SCALE_RANGE = (1e-150, 1e150)


def check_scale(name: str, value, *, size: int | None = None):
    """A positive scale (``size``: a number or ``size`` numbers) within :data:`SCALE_RANGE`.

    Returns a float, or a float array of shape ``(size,)``.

    Examples
    --------
    >>> check_scale("sigma", 0.5), check_scale("prior_var", 2, size=2).tolist()
    (0.5, [2.0, 2.0])
    >>> check_scale("sigma", 1e-300)
    Traceback (most recent call last):
    ...
    ValueError: sigma must be in [1e-150, 1e+150], got 1e-300
    >>> check_scale("prior_var", (1e-320, 1.0), size=2)
    Traceback (most recent call last):
    ...
    ValueError: prior_var must be a number in [1e-150, 1e+150] or 2 such numbers, got (1e-320, 1.0)
    """
    low, high = SCALE_RANGE
    if size is None:
        check_real(name, value, low=0.0, low_open=True)  # "a finite number > 0" first
        return check_real(name, value, low=low, high=high)
    each = f"or {size} such numbers"
    if np.iscomplexobj(value) or isinstance(value, str | bytes):
        raise TypeError(f"{name} must be a finite number > 0 {each}, got {value!r}")
    try:
        v = np.broadcast_to(np.asarray(value, dtype=float), (size,))
    except (TypeError, ValueError):
        raise TypeError(f"{name} must be a finite number > 0 {each}, got {value!r}") from None
    if not np.all(np.isfinite(v) & (v > 0)):
        raise ValueError(f"{name} must be a finite number > 0 {each}, got {value!r}")
    if not np.all((v >= low) & (v <= high)):
        raise ValueError(f"{name} must be a number in [{low:g}, {high:g}] {each}, got {value!r}")
    return v.astype(float)


def check_finite_step(step: int, **values) -> None:
    """Stop a run whose per-agent values went non-finite, naming the step and agent.

    ``values``: name -> array with one value per agent (first axis), e.g. the step's
    entropy and posterior mean.

    Raises
    ------
    baygo_graph.exceptions.NonFiniteError
        ``"the run went non-finite at step 3, agent 1 (entropy = nan) ..."``.

    Examples
    --------
    >>> check_finite_step(0, entropy=np.array([0.1, 0.2]))
    >>> check_finite_step(3, entropy=np.array([0.1, np.nan]))
    Traceback (most recent call last):
    ...
    baygo_graph.exceptions.NonFiniteError: the run went non-finite at step 3, agent 1 ...
    """
    from .exceptions import NonFiniteError

    for name, array in values.items():
        a = np.asarray(array)
        bad = ~np.isfinite(a)
        if bad.any():
            where = tuple(np.argwhere(bad)[0])
            agent, value = (int(where[0]) if where else 0), a[where]
            raise NonFiniteError(
                f"the run went non-finite at step {step}, agent {agent} ({name} = {value}): "
                "the model's numbers left the float range; check sigma, prior_var, the grid "
                "and the data's scale"
            )


class held_float_warnings:  # noqa: N801 - used as a context manager, like np.errstate
    """Hold back numpy's floating-point warnings (overflow, invalid value, divide by
    zero) met inside the block, for :func:`check_finite_step` to judge.

    A step that went non-finite then stops with :class:`NonFiniteError` alone (the
    warnings said the same, less clearly); a step whose values are finite gets the
    warnings back from :meth:`release`, one ``RuntimeWarning`` per kind. Only the
    kinds numpy would have warned about (``np.geterr()`` "warn") are held; ignored,
    raised or logged ones behave as before. Not global: numpy's settings are restored
    on leaving the block.

    Examples
    --------
    >>> import warnings
    >>> with held_float_warnings() as held:
    ...     x = np.array([1e308]) * 10
    >>> held.kinds
    ['overflow']
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     held.release(step=2)
    >>> str(w[0].message)
    'overflow encountered in a numpy operation at step 2 (the values stayed finite)'
    """

    def __init__(self):
        self.kinds: list[str] = []

    def _seen(self, kind: str, flag: int) -> None:
        if kind not in self.kinds:
            self.kinds.append(kind)

    def __enter__(self):
        held = {k: "call" for k, v in np.geterr().items() if v == "warn"}
        self._state = np.errstate(**held, call=self._seen)
        self._state.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._state.__exit__(*exc)

    def release(self, *, step: int, stacklevel: int = 2) -> None:
        """Issue the held warnings (call once the values were found finite)."""
        if not self.kinds:  # the usual step: nothing held
            return
        import warnings

        for kind in self.kinds:
            warnings.warn(
                f"{kind} encountered in a numpy operation at step {step} (the values stayed "
                "finite)",
                RuntimeWarning,
                stacklevel=stacklevel,
            )
        self.kinds = []


def check_unique_names(names, *, where: str = "") -> None:
    """ValueError naming a column name that appears more than once in ``names``.

    For headers read as they are written (pandas renames a repeat ``time`` to
    ``time.1`` and reads on silently; a DataFrame's ``frame[name]`` gives a table).

    Examples
    --------
    >>> check_unique_names(["source", "time", "time"], where="'e.csv': ")
    Traceback (most recent call last):
    ...
    ValueError: 'e.csv': column name 'time' appears 2 times among the column names: ...
    """
    from ._text import shorten

    seen: dict = {}
    for name in names:
        seen[name] = seen.get(name, 0) + 1
    name = next((n for n, count in seen.items() if count > 1), None)
    if name is not None:
        raise ValueError(
            f"{where}column name {shorten(repr(name), 80)} appears {seen[name]} times among "
            "the column names: each column needs a distinct name"
        )


def read_csv_rows(path, **options):
    """``pandas.read_csv(path, **options)`` with every column where its header puts it.

    ``index_col=False``: a trailing comma on every row is not read as an index column
    (which would shift every column one place); a row with more values than the header
    names is a ValueError, never values read into the wrong columns.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "t.csv"
    >>> _ = p.write_text("a,b\\n1,2,\\n3,4,\\n")
    >>> read_csv_rows(p).to_dict("list")
    {'a': [1, 3], 'b': [2, 4]}
    """
    import warnings

    import pandas as pd

    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", pd.errors.ParserWarning)
            return pd.read_csv(path, index_col=False, **options)
    except pd.errors.ParserWarning:
        raise ValueError(
            "a row holds more values than the header names (its values would be read "
            "into the wrong columns)"
        ) from None


def csv_header_names(path, *, sep: str = ",", skipinitialspace: bool = False,
                     where: str = "") -> list[str]:  # fmt: skip
    """The column names of a CSV's header row as written, checked by
    :func:`check_unique_names` (``where`` prefixes its message).

    Read with :mod:`csv` (quotes, a UTF-8 byte-order mark and, with
    ``skipinitialspace``, spaces after a separator handled as pandas does), not
    pandas: pandas renames repeats, and takes seconds on 100,000 columns.

    Raises
    ------
    ValueError
        For a repeated name, or a header row :mod:`csv` cannot parse.
    UnicodeDecodeError, OSError
        As :func:`open` and reading.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> p = pathlib.Path(tempfile.mkdtemp()) / "e.csv"
    >>> _ = p.write_text('source, "target",time\\na,b,0\\n')
    >>> csv_header_names(p, skipinitialspace=True)
    ['source', 'target', 'time']
    """
    import csv

    with open(path, newline="", encoding="utf-8-sig") as fh:
        try:
            reader = csv.reader(fh, delimiter=sep, skipinitialspace=skipinitialspace)
            names = next((row for row in reader if row), None)  # blank lines skipped
        except csv.Error as e:
            raise ValueError(f"{where}the header row cannot be parsed: {e}") from None
    if names is None:
        raise ValueError(f"{where}no header row (the file is empty or blank)")
    check_unique_names(names, where=where)
    return names


def check_bool(name: str, value, *, none: bool = False) -> bool | None:
    """``value`` as a bool if it is ``True`` or ``False`` (a numpy bool too; None
    with ``none``), else TypeError: a text such as ``"no"`` or ``"False"`` from a
    config file is truthy, and would silently mean True.

    Examples
    --------
    >>> check_bool("overwrite", np.False_)
    False
    >>> check_bool("overwrite", "no")
    Traceback (most recent call last):
    ...
    TypeError: overwrite must be True or False, got 'no'
    """
    if value is None and none:
        return None
    if isinstance(value, bool | np.bool_):
        return bool(value)
    either = "True, False or None" if none else "True or False"
    raise TypeError(f"{name} must be {either}, got {short_repr(value)}")


def check_choice(name: str, value, choices):
    """``value`` if it is one of ``choices``.

    Examples
    --------
    >>> check_choice("windows", "aligned", ("aligned", "sliding"))
    'aligned'
    >>> check_choice("windows", "both", ("aligned", "sliding"))
    Traceback (most recent call last):
    ...
    ValueError: windows must be one of ('aligned', 'sliding'), got 'both'
    """
    if all(isinstance(c, str) for c in choices) and not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(choices)}, got {type(value).__name__}")
    if value not in choices:
        raise ValueError(f"{name} must be one of {tuple(choices)}, got {value!r}")
    return value


def is_plain_row(row: dict, numbers_in=()) -> bool:
    """True when ``row`` (a decoded JSON object) is flat and typed as a table row.

    Every value is a scalar (str, int, float, bool or None) and the fields named
    in ``numbers_in`` are finite real numbers (not bools, not texts): a row read
    back from a file is trusted only then.

    Examples
    --------
    >>> is_plain_row({"a": 1.5, "b": "x"}, ("a",)), is_plain_row({"a": "1.5"}, ("a",))
    (True, False)
    >>> is_plain_row({"a": [1]}), is_plain_row({"a": float("nan")}, ("a",))
    (False, False)
    """
    if not all(isinstance(v, str | int | float | None) for v in row.values()):
        return False
    return all(
        isinstance(row.get(k), int | float)
        and not isinstance(row.get(k), bool)
        and math.isfinite(row[k])
        for k in numbers_in
    )


def _check_rng_type(rng) -> None:
    ok = rng is None or isinstance(rng, np.random.Generator | np.random.SeedSequence)
    if not ok and (isinstance(rng, bool) or not isinstance(rng, numbers.Integral)):
        raise TypeError(
            "rng must be an int, a numpy Generator, a SeedSequence or None, "
            f"got {type(rng).__name__}"
        )
    if not ok and rng < 0:
        raise ValueError(f"rng must be a non-negative integer, got {rng!r}")


def root_seed_sequence(rng) -> np.random.SeedSequence:
    """A fresh SeedSequence from ``rng``; the caller's object is not mutated (a Generator
    is advanced by one draw of entropy).

    Examples
    --------
    >>> root_seed_sequence(5).entropy
    5
    >>> s = np.random.SeedSequence(3, spawn_key=(1,))
    >>> root_seed_sequence(s).spawn_key
    (1,)
    """
    _check_rng_type(rng)
    if isinstance(rng, np.random.SeedSequence):
        return np.random.SeedSequence(rng.entropy, spawn_key=rng.spawn_key, pool_size=rng.pool_size)
    if isinstance(rng, np.random.Generator):
        return np.random.SeedSequence(rng.integers(0, 2**63, size=4).tolist())
    return np.random.SeedSequence(None if rng is None else int(rng))


def seed_record(rng) -> tuple[int | dict, np.random.Generator]:
    """A JSON-able record that reproduces the run, and the Generator to use.

    An int is recorded as itself; anything else as the ``entropy`` and
    ``spawn_key`` of its SeedSequence (a Generator first gives one draw of
    entropy). Such a record is itself accepted as ``rng`` and restarts the same
    stream (``simulate(..., rng=run.config["seed"])`` reruns the run).

    Examples
    --------
    >>> rec, gen = seed_record(7)
    >>> rec, gen.integers(100) == np.random.default_rng(7).integers(100)
    (7, np.True_)
    >>> rec, _ = seed_record(np.random.SeedSequence(11, spawn_key=(2,)))
    >>> rec
    {'entropy': '11', 'spawn_key': [2]}
    """
    if isinstance(rng, dict):  # a record of a run's config: the same stream again
        seq = seed_from_record(rng)
        return seed_record(seq)[0], np.random.default_rng(seq)
    _check_rng_type(rng)
    if isinstance(rng, numbers.Integral):
        return int(rng), np.random.default_rng(int(rng))
    seq = root_seed_sequence(rng)
    entropy = seq.entropy  # an int, or a list of ints for a Generator's draw
    entropy = str(entropy) if isinstance(entropy, numbers.Integral) else [str(e) for e in entropy]
    record = {"entropy": entropy, "spawn_key": [int(k) for k in seq.spawn_key]}
    return record, np.random.default_rng(seq)


def seed_from_record(record) -> np.random.SeedSequence:
    """The SeedSequence a :func:`seed_record` record stands for (inverse of the record).

    Examples
    --------
    >>> rec, gen = seed_record(np.random.SeedSequence(11, spawn_key=(2,)))
    >>> a = np.random.default_rng(seed_from_record(rec)).random()
    >>> b = np.random.default_rng(np.random.SeedSequence(11, spawn_key=(2,))).random()
    >>> a == b
    True
    """
    if isinstance(record, numbers.Integral):
        return np.random.SeedSequence(int(record))
    if not isinstance(record, dict) or not {"entropy", "spawn_key"} <= set(record):
        raise TypeError(f"a seed record has 'entropy' and 'spawn_key', got {record!r}")
    entropy = record["entropy"]
    entropy = int(entropy) if isinstance(entropy, str) else [int(e) for e in entropy]
    return np.random.SeedSequence(entropy, spawn_key=tuple(record["spawn_key"]))


def underflows(text: str, value: float) -> bool:
    """Whether ``text`` writes a nonzero number that ``value``, its double, rounds to 0
    (``1e-400``): a positive weight read as 0 would drop its edge, never said.

    Examples
    --------
    >>> underflows("1e-400", float("1e-400")), underflows("0e5", 0.0), underflows("0.5", 0.5)
    (True, False, False)
    """
    return (
        value == 0.0
        and re.search(r"[1-9]", re.split(r"[eE]", str(text), maxsplit=1)[0]) is not None
    )


#: The words for a positive weight that no float holds (:func:`weight_problem`).
TINY_WEIGHT = (
    "it is positive but below the smallest float (5e-324): it would become 0 and drop its edge: "
    "scale the weights up"
)


def weight_problem(x) -> str | None:
    """What makes ``x`` no edge weight, in the words of its case, or None if it is one.

    An edge weight is a real number (an int, float, NumPy number, Decimal or Fraction;
    a bool is no number) that is finite, >= 0 and that a double holds: not above
    1.8e308, and not a positive number below 5e-324 (it would become 0 and drop its
    edge). The words say which rule ``x`` breaks and what to do; the caller names the
    edge.

    Examples
    --------
    >>> weight_problem(0.5) is None, weight_problem(decimal.Decimal("1e-400"))
    (True, 'it is positive but below the smallest float (5e-324): it would become 0 and drop its edge: scale the weights up')
    >>> weight_problem("1")
    'a str is not a number: weights are real numbers >= 0 (int, float, Decimal, Fraction)'
    """  # noqa: E501
    if isinstance(x, bool | np.bool_) or not isinstance(x, numbers.Real | decimal.Decimal):
        kind = "None" if x is None else a_kind(type(x).__name__)
        return (
            f"{kind} is not a number: weights are real numbers >= 0 (int, float, Decimal, Fraction)"
        )
    if isinstance(x, decimal.Decimal):
        finite = x.is_finite()
    elif isinstance(x, np.floating):  # a long double past 1.8e308 is finite, too large
        finite = bool(np.isfinite(x))
    else:  # an int or a Fraction is finite; a float or another real type is asked
        finite = isinstance(x, numbers.Rational) or math.isfinite(x)
    if not finite:
        return "it is not finite: weights are finite numbers >= 0"
    if x < 0:
        return "it is negative: weights are numbers >= 0"
    try:
        f = float(x)
    except OverflowError:  # an integer (or a Fraction) past the float range
        f = math.inf
    if f == math.inf:
        return "it is too large for a float (above 1.8e308): scale the weights down"
    if f == 0 and x != 0:
        return TINY_WEIGHT
    return None
