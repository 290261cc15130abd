"""Text stays text: one small helper per place user text is written.

A strategy name, a data file's name, a column label or run metadata come from
users (or from files made by strangers). Written raw they become code: ``$...$``
is mathtext to matplotlib (and fails to parse), ``|`` and newlines are table
syntax in Markdown, escape sequences drive the terminal, a cell starting with
``=`` is a formula to a spreadsheet, a control character makes XML malformed.
Each target has one helper here, used wherever that target is written:

* matplotlib text - :func:`mathtext`: ``$`` escaped, so it is shown, not parsed,
  and control characters and bidirectional overrides removed;
* Markdown user text - :func:`markdown`: Markdown's special characters escaped,
  newlines made spaces; Markdown table cells - :func:`markdown_cell`: ``|``
  escaped, newlines and control characters made spaces (markup kept); inline
  code - :func:`markdown_code`;
* the console - :func:`console`: control characters (ESC of escape sequences)
  and bidirectional overrides removed;
* CSV cells - :func:`csv_cell`: a leading ``'`` before ``= + - @``, tab, CR or
  ``'`` (OWASP's rule against spreadsheet formulas), undone by :func:`csv_uncell`;
* XML - :func:`xml_text`: characters XML 1.0 cannot hold replaced by U+FFFD;
* file names - :func:`path_component`: one safe path component (no ``/``,
  ``..``, control characters), distinct texts giving distinct names;
* messages quoting user content (a cell, a header, an option's value, a list of
  columns) - :func:`shorten`, :func:`short_repr` and :func:`short_list`: bounded,
  with an ellipsis and how many more, so a hostile file or option never makes a
  megabyte-long error line; :func:`short_line`, the last guard of a printed
  error line, cuts every long quoted value in it, then the line, in the middle.
"""

from __future__ import annotations

import decimal
import hashlib
import re

__all__ = [
    "a_kind",
    "NOT_XML",
    "SYNTHETIC_GID",
    "SYNTHETIC_TEXT",
    "figure_metadata",
    "console",
    "loss_label",
    "escape_surrogates",
    "csv_cell",
    "csv_frame",
    "csv_uncell",
    "markdown",
    "markdown_cell",
    "markdown_code",
    "mathtext",
    "path_component",
    "short_line",
    "short_list",
    "short_repr",
    "shorten",
    "xml_text",
]

#: C0 and C1 controls (tab and newline kept by :func:`console` only when asked),
#: DEL, and the bidirectional overrides/isolates that reorder what is shown.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_CONTROL_ALL = re.compile("[\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # no UTF-8 for them: a JSON label, a file name
_MARKDOWN = re.compile(r"([\\`*_\[\]<>|])")
_FORMULA = ("=", "+", "-", "@", "\t", "\r", "'")
_UNSAFE_NAME = re.compile(r"[^\w.+=@,-]")
#: A character XML 1.0 cannot hold (every XML writer and check of the package).
NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def mathtext(text) -> str:
    """``text`` for a matplotlib title, label or legend: shown as written, never parsed
    as mathtext.

    Examples
    --------
    >>> mathtext("cost $x$ model")
    'cost \\\\$x\\\\$ model'
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> t = ax.set_title(mathtext(r"a $\\foo$ b")); fig.canvas.draw(); plt.close(fig)
    """
    return console(text).replace("$", r"\$")  # newlines and tabs become spaces


FIGURE_LABEL_CHARS = 40  # a node or strategy name drawn on a figure, at most
#: What a figure draws for a tab and a line break inside a label: a visible mark.
_DRAWN_MARKS = str.maketrans({"\t": "\u21e5", "\n": "\u21b5", "\r": "\u21b5"})


def figure_label(text, limit: int = FIGURE_LABEL_CHARS) -> str:
    """A user's name (node label, strategy) for a figure: shown as written, never
    parsed as mathtext (:func:`mathtext`), and at most ``limit`` characters: a longer
    one is cut and ends in ``…``, so that a label cannot widen a figure's canvas (the
    whole label stays in reports, tables, JSON and the viewer).

    A tab or a line break is drawn as a visible mark (``⇥``, ``↵``), never as a space
    that would make ``"a\\tb"`` look like the label ``"a b"``. Right-to-left text is
    drawn in reading order by matplotlib 3.11 or later (its layout, libraqm, is
    bidirectional), in logical order by an earlier one (docs/formats.md).

    Examples
    --------
    >>> figure_label("a $x$"), figure_label("x" * 50, 8), figure_label("a\\tb\\nc")
    ('a \\\\$x\\\\$', 'xxxxxxx…', 'a⇥b↵c')
    """
    text = console(str(text).replace("\r\n", "\n").translate(_DRAWN_MARKS))
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    return text.replace("$", r"\$")


def loss_label(name: str) -> str:
    """How a model's loss name (``run.loss_name``, a table's ``attrs["loss"]``) is said in
    every teller: ``"mse"`` as MSE, others in words.

    Examples
    --------
    >>> loss_label("mse"), loss_label("log_loss"), loss_label("hinge")
    ('MSE', 'log-loss', 'hinge')
    >>> loss_label("x" * 5000)[-29:]  # a stranger's run file: never a label's whole text
    'xxx... (4960 more characters)'
    """
    known = {"mse": "MSE", "log_loss": "log-loss", "sq_error": "squared error"}
    if name in known:
        return known[name]
    return shorten(console(str(name)), LOSS_NAME_CHARS)


#: Characters of a loss name (a plug-in's, or read from a run file) said in any output.
LOSS_NAME_CHARS = 40


def counted(n, word: str, plural: str | None = None, *, spec: str = "") -> str:
    """``n`` and ``word``, in the plural unless ``n`` is 1: ``1 step``, ``2 steps``; the
    one way printed text says a count (``plural`` for a word that does not take an s,
    ``spec`` a format for ``n``, such as ``","``).

    Examples
    --------
    >>> counted(1, "step"), counted(0, "node"), counted(60, "step")
    ('1 step', '0 nodes', '60 steps')
    >>> counted(1, "strategy", "strategies"), counted(3, "strategy", "strategies")
    ('1 strategy', '3 strategies')
    >>> counted(12000, "row", spec=",")
    '12,000 rows'
    """
    return f"{n:{spec}} {word if n == 1 else plural or word + 's'}"


def a_kind(name: str) -> str:
    """``name`` (a type's name) with its article, as a message says what a value is:
    ``a list``, ``an object``, ``an ndarray``.

    Examples
    --------
    >>> a_kind("object"), a_kind("str"), a_kind(type(None).__name__)
    ('an object', 'a str', 'a NoneType')
    """
    return f"{'an' if name[:1].lower() in 'aeio' or name.startswith('nd') else 'a'} {name}"


def markdown(text) -> str:
    """``text`` for one cell (or inline span) of a Markdown document.

    Examples
    --------
    >>> markdown("a|b\\nc *d*")
    'a\\\\|b c \\\\*d\\\\*'
    """
    text = _CONTROL_ALL.sub(" ", str(text).replace("\r\n", "\n"))
    return _MARKDOWN.sub(r"\\\1", text)


def markdown_code(text) -> str:
    """``text`` as an inline code span of a Markdown document: control characters
    made spaces, fenced by more backticks than any run of them inside.

    Examples
    --------
    >>> markdown_code("baygo run\x1b]0;x\x07 --out `a`")
    '`` baygo run ]0;x  --out `a` ``'
    """
    text = _CONTROL_ALL.sub(" ", str(text))
    ticks = max((len(r) for r in re.findall("`+", text)), default=0)
    fence = "`" * (ticks + 1)
    pad = " " if ticks else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def markdown_cell(text) -> str:
    """``text`` as one cell of a Markdown table: it cannot end the cell or the row
    (``|`` escaped, newlines and control characters made spaces); other Markdown,
    e.g. ``**bold**`` that a report puts there on purpose, is kept.

    Examples
    --------
    >>> markdown_cell("run|1\\r\\nb **x**")
    'run\\\\|1 b **x**'
    """
    text = _CONTROL_ALL.sub(" ", str(text).replace("\r\n", "\n"))
    return text.replace("|", "\\|")


def console(text, *, lines: bool = False) -> str:
    """``text`` for the terminal: control characters (escape sequences' ESC included)
    and bidirectional overrides removed; newlines and tabs kept only with ``lines``.

    Examples
    --------
    >>> console("run \\x1b[31mred\\x1b[0m\\nnext")
    'run [31mred[0m next'
    >>> console("a\\nb", lines=True)
    'a\\nb'
    """
    text = escape_surrogates(str(text))
    if lines:
        return _CONTROL.sub("", text)
    return _CONTROL.sub("", text.replace("\n", " ").replace("\t", " "))


def escaped_path(path) -> str:
    """A path for one line of output: control characters (newlines, tabs, escape
    sequences, bidirectional overrides) and lone surrogates written as escapes, so a
    ``wrote PATH`` line is one line and names the file exactly.

    Examples
    --------
    >>> print(escaped_path("nl\\nname/report.txt"))
    nl\\nname/report.txt
    >>> escaped_path("résumé/a b.png")
    'résumé/a b.png'
    """
    text = escape_surrogates(str(path))
    named = {"\n": "\\n", "\t": "\\t", "\r": "\\r"}
    return _CONTROL_ALL.sub(lambda m: named.get(m.group(0), f"\\u{ord(m.group(0)):04x}"), text)


def escape_surrogates(text: str) -> str:
    """``text`` with each lone surrogate written as its escape, ``\\ud800`` (no UTF-8
    byte sequence holds one: a JSON label ``"\\ud800"`` read back exactly, a file name
    of bytes that are not UTF-8 as Python holds it): text any terminal, page or file
    can take, the character still named.

    Examples
    --------
    >>> print(escape_surrogates("net\\udcff.csv"))
    net\\udcff.csv
    >>> escape_surrogates("plain") == "plain"
    True
    """
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group(0)):04x}", text)


def csv_cell(value):
    """A CSV cell that a spreadsheet shows as text: a string starting with ``=``,
    ``+``, ``-``, ``@``, a tab, a carriage return or ``'`` gets a leading ``'``.
    Anything else (numbers included) is returned unchanged.

    Examples
    --------
    >>> csv_cell("=HYPERLINK(1)"), csv_cell("-x"), csv_cell("ok"), csv_cell(-1.5)
    ("'=HYPERLINK(1)", "'-x", 'ok', -1.5)
    """
    if isinstance(value, str) and value.startswith(_FORMULA):
        return "'" + value
    return value


def csv_frame(frame):
    """A copy of the DataFrame ``frame`` with :func:`csv_cell` applied to every text
    cell, column name and index label: what to call ``to_csv`` on.

    Examples
    --------
    >>> import pandas as pd
    >>> csv_frame(pd.DataFrame({"s": ["=1+1", "a"], "x": [-1, 2]})).to_csv(index=False)
    "s,x\\n'=1+1,-1\\na,2\\n"
    """
    from pandas.api.types import is_bool_dtype, is_numeric_dtype

    out = frame.rename(columns=csv_cell, index=csv_cell)
    for i in range(out.shape[1]):
        values = out.iloc[:, i]
        if not (is_numeric_dtype(values) or is_bool_dtype(values)):
            out.isetitem(i, values.map(csv_cell))
    return out


def csv_uncell(value):
    """Undo :func:`csv_cell` on a cell read back as text.

    Examples
    --------
    >>> [csv_uncell(csv_cell(s)) for s in ("=1", "'a", "b")]
    ['=1', "'a", 'b']
    """
    if isinstance(value, str) and value.startswith("'") and value[1:].startswith(_FORMULA):
        return value[1:]
    return value


def xml_text(text) -> str:
    """``text`` with every character XML 1.0 cannot hold replaced by U+FFFD.

    (:mod:`xml.etree` escapes ``<``, ``&`` and quotes itself; it writes control
    characters raw, which makes the file unreadable.)

    Examples
    --------
    >>> xml_text("agent\\x00\\x1b1")
    'agent\\ufffd\\ufffd1'
    """
    return NOT_XML.sub("\ufffd", str(text))


def path_component(text, *, max_length: int = 96) -> str:
    """``text`` as one file or folder name inside a chosen folder, never outside it.

    Characters other than letters, digits and ``. _ + = @ , -`` become ``_``,
    leading dots and underscores are dropped (no ``..``, no hidden files), the length is capped;
    when anything changed, 8 hex digits of the text's SHA-1 are appended, so two
    texts never share a name (``a/b`` and ``a_b`` stay apart).

    Examples
    --------
    >>> path_component("baygo-seed01")
    'baygo-seed01'
    >>> path_component("../../X-seed0")
    'X-seed0-c72cc1b9'
    >>> path_component("..")
    '9d891e73'
    """
    text = str(text)
    safe = _UNSAFE_NAME.sub("_", text).lstrip("._")[:max_length]
    if safe == text:
        return safe
    digest = hashlib.sha1(text.encode("utf-8", "surrogatepass")).hexdigest()[:8]
    return f"{safe}-{digest}" if safe else digest


def shorten(text, limit: int = 200) -> str:
    """``text`` cut to its first ``limit`` characters, then ``...`` and how many more.

    Examples
    --------
    >>> shorten("abc"), shorten("x" * 30, 10)
    ('abc', 'xxxxxxxxxx... (20 more characters)')
    """
    text = str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}... ({len(text) - limit} more characters)"


def big_int(n: int) -> str:
    """An integer from a file as a message shows it: whole up to 18 digits, else its
    leading digits, its power of ten and its length (a 400-digit step would push the
    limit a message states off the line).

    Examples
    --------
    >>> big_int(4096), big_int(-(10**400) - 7)
    ('4096', '-1.000...e+400 (a 401-digit integer)')
    >>> big_int(10**5000)  # past Python's 4,300 digits of int-to-text
    '1.000...e+5000 (a 5001-digit integer)'
    """
    text = "".join(map(str, decimal.Decimal(abs(int(n))).as_tuple().digits))
    sign = "-" if n < 0 else ""
    if len(text) <= 18:
        return sign + text
    return f"{sign}{text[0]}.{text[1:4]}...e+{len(text) - 1} (a {len(text)}-digit integer)"


def quoted(value, limit: int = 30) -> str:
    """A cell quoted for a message: at most ``limit`` characters of it, its quotes kept
    (``'ZZZ...' (17 more characters)``), so a line shortened again keeps them paired.

    Examples
    --------
    >>> quoted("1D"), quoted("x" * 100, 12)
    ("'1D'", "'xxxxxxx...' (93 more characters)")
    """
    text = value if isinstance(value, str) else None
    if text is None or len(repr(text)) <= limit:
        return shorten(repr(value), limit)
    kept = limit - 5  # the characters kept: their escaped form fits, and is what is counted
    while kept > 0 and len(repr(text[:kept])) > limit - 3:
        kept -= 1
    head = repr(text[:kept])
    return f"{head[:-1]}...{head[-1]} ({len(text) - kept} more characters)"


def quoted_path(path, limit: int = 80) -> str:
    """A file's path quoted for a message: ``repr`` of it, at most ``limit`` characters,
    cut in its middle with both quotes kept (a cut that dropped the closing quote made a
    shortened line pair it with the next quote and cut the words between), the end (the
    file name) kept.

    Examples
    --------
    >>> quoted_path("data/c.csv")
    "'data/c.csv'"
    >>> quoted_path("/".join(["project_" + "d" * 40] * 3) + "/c.csv", 40)
    "'project_dddd...ddddddddddddddddd/c.csv'"
    """
    return _path_cut(repr(str(path)), limit, head=16)


def short_path(path, limit: int = 120) -> str:
    """A file's path as a message shows it unquoted (``--out: PATH: reason``): at most
    ``limit`` characters, cut in its middle, its end (the file name) kept, so the words
    after it are never what a shortened line cuts.

    Examples
    --------
    >>> short_path("out/v.html")
    'out/v.html'
    >>> short_path("/".join(["project_" + "d" * 40] * 3) + "/v.html", 40)
    'project_dddd...dddddddddddddddddd/v.html'
    """
    return _path_cut(str(path), limit, head=12)


def _path_cut(text: str, limit: int, *, head: int) -> str:
    """``text`` cut to ``limit`` characters in its middle: up to ``head`` characters
    (a third of the limit at most), ``...``, then its end (a path's file name)."""
    if len(text) <= limit:
        return text
    head = min(head, limit // 3)
    return f"{text[:head]}...{text[len(text) - (limit - head - 3) :]}"


def short_repr(value, limit: int = 60) -> str:
    """``repr(value)`` shortened to ``limit`` characters (:func:`shorten`): how a
    message quotes a value a user gave (an option, a cell).

    Examples
    --------
    >>> short_repr("1D"), short_repr("x" * 100, 10)
    ("'1D'", "'xxxxxxxxx... (92 more characters)")
    >>> short_repr(10**400)  # an integer's digits: its lead and its length
    '1.000...e+400 (a 401-digit integer)'
    """
    if type(value) is int and not -(10**18) < value < 10**18:
        return big_int(value)  # repr() of a 5,000-digit integer raises
    return shorten(repr(value), limit)


#: A quoted value in a message: '...' or "..." (backslash escapes inside kept).
_QUOTED = re.compile(r"'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"")


def fit_head(text: str, limit: int) -> str:
    """``text`` with its quoted values (a file name, an option value) cut in their
    middle, longest first, until it is at most ``limit`` characters: the head of a
    message, so that what follows it stays whole; its numbers and words are never cut
    (a text that still does not fit is returned as it is).

    Examples
    --------
    >>> fit_head("reading 'a.csv'", 80)
    "reading 'a.csv'"
    >>> fit_head("reading '" + "x" * 60 + ".csv': 3 steps", 40)
    "reading 'xxxxxxxxxxx...xxxxxxx.csv': 3 steps"
    """
    text = str(text)
    while len(text) > limit:
        quoted = max(_QUOTED.finditer(text), key=lambda m: len(m.group()), default=None)
        value = quoted.group() if quoted is not None else ""
        keep = max(24, len(value) - (len(text) - limit) - 3)
        cut = _cut_value(value, keep)
        if len(cut) >= len(value):  # nothing quoted is long enough to cut
            break
        text = text[: quoted.start()] + cut + text[quoted.end() :]
    return text


#: The mark a value cut in its middle carries (:func:`_middle_cut`).
_MARK = re.compile(r"\.\.\. \((\d+) more characters\) \.\.\.")


def _cut_value(value: str, keep: int) -> str:
    """``value`` cut to about ``keep`` characters in its middle; a value cut before
    keeps its mark, counting what goes now too (never a cut through the count)."""
    mark = _MARK.search(value)
    if mark is None:
        return f"{value[: keep - keep // 2]}...{value[len(value) - keep // 2 :]}"
    head, tail, n = value[: mark.start()], value[mark.end() :], int(mark.group(1))
    side = max(2, (keep - len(mark.group()) - 2) // 2)  # kept on each side of the mark
    h, t = head[:side], tail[max(len(tail) - side, 0) :]
    gone = len(head) - len(h) + len(tail) - len(t)
    return f"{h}... ({n + gone} more characters) ...{t}"


def _middle_cut(text: str, limit: int, tail: int) -> str:
    """``text`` of more than ``limit`` characters as its head, ``... (N more characters)
    ...``, then its last ``tail`` characters (a file name, advice): ``limit`` at most."""
    room = len(f"... ({len(text)} more characters) ...")  # the mark, at most this long
    head = max(limit - tail - room, 0)
    return f"{text[:head]}... ({len(text) - head - tail} more characters) ...{text[-tail:]}"


def short_line(text, limit: int = 300, *, quoted: int = 120) -> str:
    """One message line of at most about ``limit`` characters: a line within it is kept
    whole; a longer one has each quoted value longer than ``quoted`` characters cut in
    its middle (its start and its end, where a file name is, kept), then the quoted
    values cut further, longest first (:func:`fit_head`), then, if still too long, the
    line cut in its middle (what went wrong at the start, what to do at the
    end kept). (A line within the limit is never cut: a quote a reader's own shortening
    left unbalanced would pair with the next one and cut the reason out.)

    Examples
    --------
    >>> line = short_line("bin must be an int, got '" + "x" * 5000 + "'; see --help")
    >>> len(line) < 300, line.endswith("; see --help")
    (True, True)
    >>> short_line("'/a/long/folder/" + "d" * 200 + "/far.csv': bad").endswith("far.csv': bad")
    True
    """
    text = str(text)
    if len(text) <= limit:
        return text
    text = _QUOTED.sub(
        lambda m: _middle_cut(m.group(0), quoted, 40) if len(m.group(0)) > quoted else m.group(0),
        text,
    )
    text = fit_head(text, limit)  # then every quoted value, longest first, not the words
    return text if len(text) <= limit else _middle_cut(text, limit, 100)


def short_list(items, k: int = 10, *, quote: bool = False, limit: int = 80) -> str:
    """At most ``k`` items (each :func:`shorten` to ``limit`` characters; ``quote``:
    as their ``repr``), comma-separated, then ``and N more``: one short line however
    many there are.

    Examples
    --------
    >>> short_list(range(5), 3)
    '0, 1, 2 and 2 more'
    >>> short_list(["a", "b"], quote=True)
    "'a', 'b'"
    """
    items = list(items)
    shown = [shorten(repr(v) if quote else v, limit) for v in items[:k]]
    more = len(items) - len(shown)
    return ", ".join(shown) + (f" and {more} more" if more > 0 else "")


#: Text and artist id of the label that marks figures made from synthetic data
#: (:func:`baygo_graph.figures._style.mark_synthetic` draws it).
SYNTHETIC_TEXT = "SYNTHETIC DATA"
SYNTHETIC_GID = "baygo-synthetic-label"


def figure_metadata(fig, fmt) -> dict:
    """The ``savefig`` metadata that puts the "SYNTHETIC DATA" mark in a figure file as
    text, when the figure carries the drawn mark
    (:func:`~baygo_graph.figures._style.mark_synthetic`): a PDF's
    ``Subject`` and ``Keywords``, a PNG's or SVG's ``Description``, a GIF's comment
    extension or an MP4's ``comment`` tag (the drawn glyphs are no text a search or
    ``strings`` finds); ``{}`` otherwise, or for another format.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()
    >>> figure_metadata(fig, "pdf")
    {}
    >>> _ = ax.text(0.5, 0.5, SYNTHETIC_TEXT, gid=SYNTHETIC_GID)  # as mark_synthetic draws it
    >>> figure_metadata(fig, "png")
    {'Description': 'SYNTHETIC DATA'}
    >>> plt.close(fig)
    """
    keys = {"pdf": ("Subject", "Keywords"), "png": ("Description",), "svg": ("Description",),
            "gif": ("comment",), "mp4": ("comment",)}  # fmt: skip
    fmt = str(fmt or "").lower()
    if fmt not in keys or not fig.findobj(lambda a: a.get_gid() == SYNTHETIC_GID):
        return {}
    return dict.fromkeys(keys[fmt], SYNTHETIC_TEXT)
