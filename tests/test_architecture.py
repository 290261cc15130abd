"""The package's shape, checked by parsing its source (ast): layers, names, exports.

* Imports run one way down the layer order (docs/extending.md, "Architecture"), with
  no exception, and the package's import graph has no circle.
* No module outside ``strategies/`` (and the paper's own ``reproduce/``) names a
  strategy by class, or by a string used as a strategy name; the exceptions below
  say why each one is not a switch on a strategy.
* Every subpackage declares ``__all__``; ``simulate`` has at most 12 named parameters.
"""

from __future__ import annotations

import ast
import inspect
import pathlib

import pytest

import baygo_graph as bg

ROOT = pathlib.Path(bg.__file__).parent

#: Layer of each top-level module or subpackage: a module may import its own layer
#: and those below (lower numbers), never above.
LAYERS = {
    "_version": 0,
    "_interrupt": 0,
    "_cluster": 0,
    "defaults": 0,
    "exceptions": 0,
    "_validate": 0,
    "_format": 0,
    "_text": 0,
    "_magic": 0,
    "limits": 0,
    "data": 1,
    "models": 2,
    "series_backings": 3,
    "series": 3,
    "_run_arrays": 3,
    "io": 4,
    "run": 5,
    "inputs": 6,
    "monitors": 7,
    "strategies": 8,
    "learning": 9,
    "analysis": 10,
    "experiments": 11,
    "export": 12,
    "figures": 13,
    "_render": 13,  # the tellers' words: figures, reproduce and cli render with it
    "reproduce": 14,
    "cli": 15,
}

#: Strings equal to a strategy name that are not strategy names here (or are in files
#: owned by other work): (file, string) -> why.
NOT_A_SWITCH = {
    ("_run_arrays.py", "cen"): "the stored series kind of a run without a graph",
    ("io/safenpz.py", "cen"): "the stored series kind of a run without a graph",
    ("run.py", "cen"): "the stored series kind of a run without a graph",
    ("run.py", "baygo"): "the label of a Run made from a choice array",
    ("defaults.py", "cen"): "the paper's reference label in comparison tables",
    ("cli/__init__.py", "baygo"): "the program's name",
    ("_interrupt.py", "baygo"): "the program's name",
    ("cli/figures.py", "baygo"): "the program's name in a printed command line",
    ("cli/run.py", "complete"): "the physical graph named complete",
    ("experiments/sweep.py", "complete"): "the physical graph named complete",
    # the fixed references posm/negm/complete of the influence plots and summaries
    ("analysis/centrality.py", "posm"): "reference influence of the paper's baselines",
    ("analysis/centrality.py", "negm"): "reference influence of the paper's baselines",
    ("analysis/centrality.py", "complete"): "reference influence of the paper's baselines",
    ("cli/analyze.py", "posm"): "prints analysis.reference_influence's keys",
    ("cli/analyze.py", "negm"): "prints analysis.reference_influence's keys",
    ("cli/analyze.py", "complete"): "prints analysis.reference_influence's keys",
}
#: Files that style or default-plot the paper's strategies by label (colours, names,
#: the paper's figure panels): a new strategy gets a colour and its own name there.
PAPER_LABEL_FILES = {
    "figures/_style.py",
    "figures/influence.py",
    "figures/mse.py",
    "figures/runs.py",
    "figures/topology.py",
}
STRATEGY_CLASSES = {"BayGo", "FixedGraph", "Centralised", "CentralisedStratified"}


def _modules():
    for path in sorted(ROOT.rglob("*.py")):
        rel = path.relative_to(ROOT.parent).with_suffix("")
        parts = list(rel.parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield path, ".".join(parts)


def _imported(path, name) -> list[tuple[str, int]]:
    """``(imported module or name, line)`` of every baygo_graph import in the file."""
    package = name if path.name == "__init__.py" else name.rsplit(".", 1)[0]
    out = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                mod = ".".join(base + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod == "baygo_graph":
                out += [(f"{mod}.{a.name}", node.lineno) for a in node.names]
            elif mod.startswith("baygo_graph."):
                out.append((mod, node.lineno))
        elif isinstance(node, ast.Import):
            out += [(a.name, node.lineno) for a in node.names if a.name.startswith("baygo_graph")]
    return out


def _layer(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


def test_every_module_has_a_layer():
    missing = {_layer(m) for _, m in _modules() if _layer(m) and _layer(m) not in LAYERS}
    assert not missing, f"add these to LAYERS (and to docs/extending.md): {missing}"


def test_imports_run_down_the_layer_order():
    bad = []
    for path, name in _modules():
        mine = _layer(name)
        if mine is None:  # the package's __init__ gathers the public names
            continue
        for target, line in _imported(path, name):
            theirs = _layer(target)
            if theirs in LAYERS and LAYERS[theirs] > LAYERS[mine]:
                bad.append(f"{name}:{line} imports {target} (layer {theirs} is above {mine})")
    assert not bad, "\n".join(bad)


def _import_graph() -> dict[str, set[str]]:
    """Module -> the package modules it imports (a name imported from a package that
    is one of its modules counts as that module; ``__init__`` files left out: they
    gather public names)."""
    modules = {name for _, name in _modules()}
    graph = {}
    for path, name in _modules():
        if path.name == "__init__.py":
            continue
        targets = set()
        for target, _ in _imported(path, name):
            while target not in modules and "." in target:
                target = target.rsplit(".", 1)[0]
            if target in modules and target != name:
                targets.add(target)
        graph[name] = targets
    return graph


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The import circles a depth-first search meets (each as its modules in order)."""
    state, found = {}, []

    def visit(node, stack):
        state[node] = "open"
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == "open":
                found.append(stack[stack.index(nxt) :])
            elif nxt not in state:
                visit(nxt, [*stack, nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    return found


def test_import_graph_has_no_circle():
    """Every import, at module level or inside a function, runs one way: no module
    imports itself through others."""
    assert not _circles(_import_graph())


def test_circle_check_finds_circles():
    assert _circles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _circles({"a": {"b"}, "b": set(), "c": {"a", "b"}}) == []


def test_analysis_imports_nothing_above_it_and_no_experiments():
    for path, name in _modules():
        if _layer(name) != "analysis":
            continue
        for target, line in _imported(path, name):
            assert LAYERS.get(_layer(target), 0) <= LAYERS["analysis"], (name, line, target)


def _docstring_nodes(tree) -> set:
    ids = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            first = node.body[0] if node.body else None
            if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant):
                ids.add(id(first.value))
    return ids


def test_no_strategy_named_outside_strategies():
    """Strategy classes and names appear only in strategies/ (and the paper's reproduce/)."""
    names = set(bg.strategies.STRATEGY_NAMES) | {"star-posm", "star-negm", "centralised"}
    bad = []
    for path, _ in _modules():
        rel = path.relative_to(ROOT).as_posix()
        if rel.startswith(("strategies/", "reproduce/")) or rel in PAPER_LABEL_FILES:
            continue
        tree = ast.parse(path.read_text())
        docs = _docstring_nodes(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Name | ast.alias | ast.Attribute):
                ident = getattr(node, "id", None) or getattr(node, "name", None) or node.attr
                if ident in STRATEGY_CLASSES:
                    bad.append(f"{rel}: names the class {ident}")
            if (
                isinstance(node, ast.Constant)
                and isinstance(node.value, str)
                and node.value in names
                and id(node) not in docs
                and (rel, node.value) not in NOT_A_SWITCH
            ):
                bad.append(f"{rel}:{node.lineno} names the strategy {node.value!r}")
    assert not bad, "\n".join(bad)


@pytest.mark.parametrize(
    "package", sorted(p.parent.name for p in ROOT.glob("*/__init__.py")), ids=str
)
def test_every_subpackage_declares_all(package):
    module = __import__(f"baygo_graph.{package}", fromlist=["__all__"])
    assert isinstance(module.__all__, list | tuple) and module.__all__
    missing = [n for n in module.__all__ if not hasattr(module, n)]
    assert not missing


def test_top_level_exports_a_short_list():
    assert len(bg.__all__) <= 25
    assert all(hasattr(bg, n) for n in bg.__all__)


def test_simulate_has_at_most_12_named_parameters():
    params = inspect.signature(bg.simulate).parameters.values()
    named = [p for p in params if p.kind is not inspect.Parameter.VAR_KEYWORD]
    assert len(named) <= 12, [p.name for p in named]


def test_import_leaves_slow_modules_for_later():
    """``import baygo_graph`` (every CLI start, every worker) does not import
    scipy.stats (~0.8 s, its distributions' docstrings) nor matplotlib: the functions
    that need them import them."""
    import subprocess
    import sys

    code = (
        "import sys, baygo_graph, baygo_graph.experiments, baygo_graph.analysis; "
        "print(sorted(m for m in ('scipy.stats', 'matplotlib') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)  # fmt: skip
    assert out.stdout.strip() == "[]"
