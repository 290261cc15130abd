"""Sphinx configuration of the baygo-graph documentation.

Build (offline, warnings are errors)::

    pip install -e ".[docs]"
    sphinx-build -W -b html docs docs/_build/html
"""

from __future__ import annotations

import os
import warnings

import baygo_graph

os.environ.setdefault("MPLBACKEND", "Agg")

project = "baygo-graph"
author = "the baygo-graph developers"
copyright = "2026, the baygo-graph developers"  # noqa: A001
release = baygo_graph.__version__
version = ".".join(release.split(".")[:2])

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "sphinx.ext.viewcode",
    "numpydoc",
    "sphinx_click",
    "sphinx_gallery.gen_gallery",
]

source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
root_doc = "index"
templates_path = ["_templates"]
exclude_patterns = [
    "_build",
    "gallery/*.md",
    "auto_examples/*.ipynb",
    "auto_examples/*.py",
    "auto_examples/*.zip",
    "auto_examples/*.md5",
    "auto_examples/*.json",
    "examples/GALLERY_HEADER.rst",
]

# -- MyST: markdown pages, math with $...$ / $$...$$ and amsmath environments ----------
myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3

# -- API reference: autosummary walks the package recursively; each module lists the
# names of its ``__all__`` (autosummary_ignore_module_all = False), so the pages follow
# the package's own public names without a hand-written list.
autosummary_generate = True
autosummary_ignore_module_all = False
autosummary_imported_members = False
autodoc_default_options = {"member-order": "bysource"}


def _public_names(package: str = "baygo_graph") -> dict[str, object]:
    """``{dotted path: object}`` of every public name, as the API pages list them.

    A module's public names are its ``__all__``, else what it defines itself; modules
    whose dotted path has a part starting with ``_`` are private and not listed.
    """
    import importlib
    import inspect
    import pkgutil

    root = importlib.import_module(package)
    names: dict[str, object] = {}
    modules = [package] + [m.name for m in pkgutil.walk_packages(root.__path__, f"{package}.")]
    for modname in modules:
        if any(part.startswith("_") for part in modname.split(".")):
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module = importlib.import_module(modname)
        public = getattr(module, "__all__", None)
        if public is None:
            public = [
                n
                for n, o in vars(module).items()
                if not n.startswith("_") and getattr(o, "__module__", None) == modname
            ]
        for name in public:
            obj = getattr(module, name, None)
            if inspect.isclass(obj):
                names[f"{modname}.{name}"] = obj
    return names


def _class_homes() -> dict[str, str]:
    """``{path: home}`` for every class listed under more than one path.

    A class re-exported by a package (``baygo_graph.Run`` is ``baygo_graph.run.Run``)
    is documented in full once, at its shortest public path (the one users type);
    every other path gets a short page pointing there. Two full pages of one class
    would register its canonical name twice (a duplicate-object warning).
    """
    paths: dict[int, list[str]] = {}
    for path, obj in _public_names().items():
        paths.setdefault(id(obj), []).append(path)
    homes = {}
    for group in paths.values():
        home = min(group, key=lambda p: (p.count("."), p))
        homes.update({p: home for p in group if p != home})
    return homes


autosummary_context = {"class_homes": _class_homes()}
autodoc_typehints = "none"  # numpydoc's Parameters sections carry the types

numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False

# -- Gallery: every example runs at build time on the synthetic data -------------------
sphinx_gallery_conf = {
    "examples_dirs": "examples",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "matplotlib_animations": False,
    "reset_modules": ("matplotlib",),
    "show_memory": False,
    "write_computation_times": False,
    "promote_jupyter_magic": False,
}

# -- HTML -------------------------------------------------------------------------------
html_theme = "pydata_sphinx_theme"
html_title = f"baygo-graph {release}"
html_static_path: list[str] = []
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "secondary_sidebar_items": ["page-toc"],
}
html_show_sourcelink = False

# The data file is never needed to build the docs: the gallery uses the synthetic
# stand-in, whatever $BAYGO_BODYFAT says.
os.environ.pop("BAYGO_BODYFAT", None)
warnings.filterwarnings("ignore", category=DeprecationWarning, module="baygo_graph")

# A docstring's re-exported name (``horizon_table`` is both
# ``baygo_graph.analysis.horizon_table`` and ``baygo_graph.analysis.horizon.horizon_table``)
# matches two targets of one object; Sphinx links the first and warns. Not an error here.
suppress_warnings = ["ref.python"]


def _summary_keeps_literals() -> None:
    """Autosummary's one-line summaries never end inside an inline literal.

    Autosummary cuts a docstring's first sentence at ". ", also inside
    ````start .. stop-1````, leaving an unclosed literal (a docutils warning). Where
    that happens, the table shows the whole first paragraph instead.
    """
    import sphinx.ext.autosummary as autosummary

    extract = autosummary.extract_summary
    if getattr(extract, "_keeps_literals", False):
        return

    def extract_summary(doc, settings):
        summary = extract(doc, settings)
        if summary.count("``") % 2:
            lines = []
            for line in doc:
                if not line.strip():
                    if lines:
                        break
                    continue
                lines.append(line.strip())
            summary = " ".join(lines)
        return summary

    extract_summary._keeps_literals = True
    autosummary.extract_summary = extract_summary


_summary_keeps_literals()
