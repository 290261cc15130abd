"""README and the documentation pages run as pasted, and link only to what exists.

The convention, for ``README.md`` and every Markdown page under ``docs/``:

- Every fenced ```python block of a page runs, in order, in **one fresh
  interpreter per page** (the blocks of a page share a namespace), in an empty
  temporary folder, with ``MPLBACKEND=Agg``. ``$BAYGO_BODYFAT`` is passed through
  (as an absolute path) when it is set, but the blocks must not need it: they use
  the synthetic data or files they create themselves.
- Every fenced ```bash block runs in a shell (``bash -e -o pipefail``) in that same
  folder, after the page's python blocks that precede it; the ``baygo`` and
  ``python`` it finds are those of the interpreter running the tests.
- ```text blocks (output, or commands shown but not to be run), MyST directives
  (```{toctree} ...) and any other fence are not run.
- A ```python or ```bash block that must not run here (it installs the package or
  runs the whole paper experiment) is marked by an HTML comment on the line right
  above its fence, ``<!-- not-run: REASON -->``, with a non-empty reason. Use it
  sparingly: a command the reader is meant to paste belongs in a block that runs.
- A ```python block marked ``<!-- save-as: FILE.py -->`` on the line right above its
  fence runs as any other and is also appended to ``FILE.py`` in that folder (the
  page says which blocks make up a file, e.g. a plug-in its shell lines import).

Links: a relative link or image of a page (``[text](target)``), a MyST
``{doc}`` reference, ``{include}`` and every ``{toctree}`` entry must name a file
that exists; a link to a Markdown heading (``page.md#anchor``) must name a heading
of that page. Package files cite no file outside the repository (``DESIGN.md``) and
only docs pages that exist.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
#: Folders under docs/ that the build generates (not sources).
GENERATED = ("_build", "auto_examples", "api/generated")
#: Seconds a page's blocks may take together before the test counts as failed.
TIMEOUT = 300
#: README is a front page.
README_MAX_LINES = 250

NOT_RUN = re.compile(r"^<!--\s*not-run:\s*(?P<reason>.*?)\s*-->\s*$")
SAVE_AS = re.compile(r"^<!--\s*save-as:\s*(?P<file>[\w.-]+)\s*-->\s*$")
FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})(?P<info>[^`\n]*)$")


def pages() -> list[Path]:
    """README and every Markdown source page of the docs, sorted."""
    found = [ROOT / "README.md"]
    for path in sorted(DOCS.rglob("*.md")):
        rel = path.relative_to(DOCS).as_posix()
        if not any(rel == g or rel.startswith(g + "/") for g in GENERATED):
            found.append(path)
    return found


def fenced_blocks(text: str) -> list[dict]:
    """Every fenced block of ``text``: ``lang``, ``code``, ``line`` (1-based), ``skip``,
    ``save``.

    ``lang`` is the fence's info string (``python``, ``bash``, ``text``,
    ``{toctree}`` ...); ``skip`` is the reason of a ``<!-- not-run: ... -->``
    comment on the line right above the fence, else None; ``save`` the file of a
    ``<!-- save-as: FILE -->`` comment there, else None.
    """
    lines = text.splitlines()
    blocks = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group("fence"), m.group("info").strip()
        start = i
        i += 1
        body = []
        while i < len(lines) and not (
            lines[i].startswith(fence[0] * len(fence)) and not lines[i].strip(fence[0]).strip()
        ):
            body.append(lines[i])
            i += 1
        i += 1  # the closing fence
        above = NOT_RUN.match(lines[start - 1]) if start > 0 else None
        save = SAVE_AS.match(lines[start - 1]) if start > 0 else None
        blocks.append(
            {
                "lang": lang,
                "code": "\n".join(body) + "\n",
                "line": start + 1,
                "skip": above.group("reason") if above else None,
                "save": save.group("file") if save else None,
            }
        )
    return blocks


def runnable(text: str) -> list[dict]:
    """The python and bash blocks of a page that run, in order."""
    return [b for b in fenced_blocks(text) if b["lang"] in ("python", "bash") and not b["skip"]]


def driver(page: str, blocks: list[dict]) -> str:
    """A script that runs ``blocks`` in order: python in its own namespace, bash in a shell."""
    steps = [(b["lang"], b["line"], b["code"], b.get("save")) for b in blocks]
    return textwrap.dedent(
        f"""
        import subprocess, sys
        namespace = {{"__name__": "__main__"}}
        for lang, line, code, save in {steps!r}:
            where = f"{page} block at line {{line}}"
            if save:
                with open(save, "a") as fh:
                    fh.write(code + "\\n")
            if lang == "python":
                exec(compile(code, where, "exec"), namespace)
            else:
                sys.stdout.flush()
                sys.stderr.flush()
                done = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", code])
                if done.returncode:
                    sys.exit(f"{{where}} (bash) exited with {{done.returncode}}")
        """
    )


# -- the parser itself -------------------------------------------------------------------


def test_fenced_blocks_are_found_with_their_language_line_and_marker():
    text = (
        "a\n```python\nx = 1\n```\n"
        "<!-- not-run: too slow -->\n```bash\nls\n```\n"
        "```text\nout\n```\n"
        "````{toctree}\nindex\n````\n"
        "```python\ny = 2\n\nz = 3\n```\n"
    )
    blocks = fenced_blocks(text)
    assert [(b["lang"], b["line"], b["skip"]) for b in blocks] == [
        ("python", 2, None),
        ("bash", 6, "too slow"),
        ("text", 9, None),
        ("{toctree}", 12, None),
        ("python", 15, None),
    ]
    assert blocks[4]["code"] == "y = 2\n\nz = 3\n"
    assert [b["line"] for b in runnable(text)] == [2, 15]
    saved = fenced_blocks("<!-- save-as: my_plugins.py -->\n```python\nx = 1\n```\n")
    assert [(b["save"], b["skip"]) for b in saved] == [("my_plugins.py", None)]


def test_driver_runs_python_and_bash_in_order_in_one_namespace(tmp_path):
    blocks = runnable(
        "```python\nopen('a.txt', 'w').write('1')\nx = 2\n```\n"
        "```bash\ntest -f a.txt\necho ok > b.txt\n```\n"
        "```python\nassert x == 2 and open('b.txt').read() == 'ok\\n'\n```\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", driver("demo.md", blocks)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    saved = runnable(
        "<!-- save-as: p.py -->\n```python\nu = 1\n```\n"
        "<!-- save-as: p.py -->\n```python\nv = u + 1\n```\n"
        "```bash\npython -c 'import p; assert p.v == 2'\n```\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", driver("demo.md", saved)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    failing = runnable("```bash\nfalse\necho never > c.txt\n```\n")
    done = subprocess.run(
        [sys.executable, "-c", driver("demo.md", failing)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0 and "demo.md block at line 1 (bash)" in done.stderr
    assert not (tmp_path / "c.txt").exists()


# -- every page runs as pasted -----------------------------------------------------------

PAGES = pages()


def _page_id(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


def test_readme_is_a_front_page():
    n = len((ROOT / "README.md").read_text().splitlines())
    assert n <= README_MAX_LINES, f"README.md has {n} lines (at most {README_MAX_LINES})"


@pytest.mark.parametrize("path", PAGES, ids=_page_id)
def test_not_run_markers_have_a_reason_and_a_block(path):
    lines = path.read_text().splitlines()
    for n, line in enumerate(lines):
        m = NOT_RUN.match(line)
        if line.lstrip().startswith("<!--") and "not-run" in line and not m:
            pytest.fail(f"{_page_id(path)}:{n + 1}: write the marker as <!-- not-run: REASON -->")
        if m:
            assert m.group("reason"), f"{_page_id(path)}:{n + 1}: a not-run marker needs a reason"
            nxt = lines[n + 1] if n + 1 < len(lines) else ""
            fence = FENCE.match(nxt)
            assert fence and fence.group("info").strip() in ("python", "bash"), (
                f"{_page_id(path)}:{n + 1}: a not-run marker stands right above a python or "
                "bash fence"
            )


@pytest.mark.parametrize("path", PAGES, ids=_page_id)
def test_page_runs_as_pasted(path, tmp_path):
    blocks = runnable(path.read_text())
    if not blocks:
        pytest.skip(f"{_page_id(path)} has no python or bash block")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["MPLBACKEND"] = "Agg"
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    if env.get("BAYGO_BODYFAT"):  # the blocks run in a temporary folder: an absolute path
        env["BAYGO_BODYFAT"] = str(Path(env["BAYGO_BODYFAT"]).resolve())
    done = subprocess.run(
        [sys.executable, "-c", driver(_page_id(path), blocks)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
    )
    assert done.returncode == 0, f"{_page_id(path)} failed as pasted:\n{done.stderr[-4000:]}"


# -- links -------------------------------------------------------------------------------

LINK = re.compile(r"!?\[[^\]]*\]\((?P<target><[^>]+>|[^)\s]+)(?:\s+\"[^\"]*\")?\)")
DOC_ROLE = re.compile(r"\{doc\}`(?:[^`<]*<)?(?P<target>[^`>]+)>?`")


def _outside_code(text: str) -> str:
    """``text`` with its fenced blocks and inline code blanked (links there are code)."""
    lines = text.splitlines()
    for b in fenced_blocks(text):
        if b["lang"].startswith("{"):
            continue  # directives: their links are checked by name below
        n = b["code"].count("\n")
        for k in range(b["line"] - 1, b["line"] + n + 1):
            if k < len(lines):
                lines[k] = ""
    return re.sub(r"`[^`\n]*`", "``", "\n".join(lines))


def slug(heading: str) -> str:
    """The anchor GitHub and MyST (``myst_heading_anchors``) give a heading."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    text = path.read_text()
    code = {b["line"] + k for b in fenced_blocks(text) for k in range(b["code"].count("\n") + 2)}
    return {
        slug(line.lstrip("#"))
        for n, line in enumerate(text.splitlines(), start=1)
        if line.startswith("#") and n not in code
    }


def _doc_exists(base: Path, name: str) -> bool:
    """A docs page named without suffix (toctree, ``{doc}``) has a source file."""
    if name.startswith("auto_examples/"):  # the gallery's pages come from docs/examples/
        return (DOCS / "examples" / "GALLERY_HEADER.rst").exists()
    target = (DOCS / name.lstrip("/")) if name.startswith("/") else (base / name)
    return any(target.with_suffix(s).exists() for s in (".md", ".rst")) or target.exists()


def broken_links(path: Path) -> list[str]:
    text = path.read_text()
    plain = _outside_code(text)
    broken = []
    for m in LINK.finditer(plain):
        target = m.group("target").strip("<>")
        if re.match(r"^[a-z][a-z0-9+.-]*:", target, flags=re.I):
            continue  # http:, https:, mailto: ...
        file, _, anchor = target.partition("#")
        dest = path if not file else (path.parent / file).resolve()
        if not dest.exists():
            broken.append(f"{target}: no such file")
        elif anchor and dest.suffix == ".md" and anchor not in anchors(dest):
            broken.append(f"{target}: no heading with that anchor")
    for m in DOC_ROLE.finditer(text):
        if not _doc_exists(path.parent, m.group("target")):
            broken.append(f"{{doc}}`{m.group('target')}`: no such page")
    for b in fenced_blocks(text):
        if b["lang"] == "{toctree}":
            for line in b["code"].splitlines():
                entry = line.strip()
                if entry and not entry.startswith(":"):
                    entry = re.sub(r"^.*<(.+)>$", r"\1", entry)
                    if not _doc_exists(path.parent, entry):
                        broken.append(f"toctree entry {entry}: no such page")
        elif b["lang"] == "{include}" or b["lang"].startswith("{include} "):
            name = b["lang"].split(None, 1)[1] if " " in b["lang"] else ""
            if not (path.parent / name).exists():
                broken.append(f"include {name}: no such file")
    return broken


def test_link_checker_finds_broken_links(tmp_path):
    (tmp_path / "a.md").write_text("# A\n\n## Some heading\n\ntext\n")
    page = tmp_path / "b.md"
    page.write_text(
        "[ok](a.md) [ok](a.md#some-heading) [gone](missing.md) [bad](a.md#nope)\n"
        "![img](img.png) [web](https://example.org/x.md) `[code](nothing.md)`\n"
        "```{include} a.md\n```\n```{include} none.md\n```\n"
    )
    assert broken_links(page) == [
        "missing.md: no such file",
        "a.md#nope: no heading with that anchor",
        "img.png: no such file",
        "include none.md: no such file",
    ]


@pytest.mark.parametrize("path", PAGES, ids=_page_id)
def test_page_links_exist(path):
    assert broken_links(path) == [], f"{_page_id(path)} links to what does not exist"


def test_every_docs_page_is_in_a_toctree():
    listed = set()
    for path in PAGES[1:]:
        for b in fenced_blocks(path.read_text()):
            if b["lang"] == "{toctree}":
                for line in b["code"].splitlines():
                    entry = line.strip()
                    if entry and not entry.startswith(":"):
                        entry = re.sub(r"^.*<(.+)>$", r"\1", entry)
                        listed.add((path.parent / entry).resolve().relative_to(DOCS).as_posix())
    sources = {p.relative_to(DOCS).with_suffix("").as_posix() for p in PAGES[1:]}
    assert sources - listed - {"index"} == set()


# -- the package cites what exists -------------------------------------------------------

CITED_DOC = re.compile(r"docs/[\w./-]*\w")


def test_package_cites_only_files_in_the_repository():
    bad = []
    for path in sorted((ROOT / "baygo_graph").rglob("*")):
        if not path.is_file() or path.suffix not in (".py", ".html", ".txt", ".md"):
            continue
        for n, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
            where = f"{path.relative_to(ROOT)}:{n}"
            if "DESIGN.md" in line:
                bad.append(f"{where}: cites DESIGN.md (not in the repository; cite docs/design.md)")
            for cited in CITED_DOC.findall(line):
                if not (ROOT / cited).exists():
                    bad.append(f"{where}: cites {cited}, which does not exist")
    assert bad == []


def _extras_said(path: Path) -> set[str]:
    """The extras named in a page's "Optional extras" paragraph."""
    text = path.read_text(encoding="utf-8")
    start = text.index("Optional extras")
    paragraph = text[start : text.index("\n\n", start)]
    return set(re.findall(r"`([a-z]+)` \(", paragraph)) | set(
        re.findall(r"the `([a-z]+)` extra", paragraph)
    )


def test_readme_and_getting_started_list_the_same_extras_as_pyproject():
    import tomllib

    extras = set(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
                 ["optional-dependencies"])  # fmt: skip
    assert _extras_said(ROOT / "README.md") == _extras_said(DOCS / "getting_started.md") == extras


def test_readme_python_block_says_when_its_data_are_synthetic(tmp_path):
    block = next(
        b for b in fenced_blocks((ROOT / "README.md").read_text()) if b["lang"] == "python"
    )
    env = {k: v for k, v in os.environ.items() if k != "BAYGO_BODYFAT"}
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT), env.get("PYTHONPATH", "")])
    env["MPLBACKEND"] = "Agg"
    done = subprocess.run([sys.executable, "-c", block["code"]], capture_output=True, text=True,
                          cwd=tmp_path, env=env, timeout=TIMEOUT)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "SYNTHETIC" in done.stdout.splitlines()[0]


#: Pages for contributors, which may name the package's private modules.
CONTRIBUTOR_PAGES = ("docs/design.md", "docs/extending.md")
PRIVATE_IMPORT = re.compile(r"^\s*(?:from|import)\s+baygo_graph(?:\.\w+)*\._\w+", re.MULTILINE)


@pytest.mark.parametrize(
    "path", [p for p in PAGES if _page_id(p) not in CONTRIBUTOR_PAGES], ids=_page_id
)
def test_researcher_pages_use_public_api_only(path):
    private = [
        f"{_page_id(path)}:{b['line']}: {m.group(0).strip()}"
        for b in fenced_blocks(path.read_text())
        if b["lang"] in ("python", "pycon")
        for m in PRIVATE_IMPORT.finditer(b["code"])
    ]
    assert not private, f"a researcher's page imports a private module: {private}"
