"""The house rules of the package, checked on its source: every folder says its job, no
module is too long to read, and no module reaches into another module's private names."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from conftest import REPO

PACKAGE = REPO / "src" / "litsearch"
MODULES = sorted(path for path in PACKAGE.rglob("*.py"))
MAX_LINES = 500


def _name(path: Path) -> str:
    return str(path.relative_to(PACKAGE.parent))


@pytest.mark.parametrize("folder", sorted(p for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"),
                         ids=lambda p: p.name)
def test_every_subpackage_has_a_one_line_job(folder):
    init = folder / "__init__.py"
    assert init.exists(), f"{folder.name}/ has no __init__.py"
    docstring = ast.get_docstring(ast.parse(init.read_text()))
    assert docstring, f"{folder.name}/__init__.py says nothing about the folder's job"


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_no_module_is_over_500_lines(module):
    assert len(module.read_text().splitlines()) <= MAX_LINES


def _resolve(module: Path, node: ast.ImportFrom) -> str:
    """The absolute dotted name an import refers to."""
    if node.level == 0:
        return node.module or ""
    # A module's (and an __init__'s) level-1 imports are relative to its folder.
    parts = list(module.relative_to(PACKAGE.parent).with_suffix("").parts)[:-1]
    base = parts[: len(parts) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_reaches(module: Path) -> list[str]:
    """`from x import _y` and `x._y` where x is another litsearch module."""
    tree = ast.parse(module.read_text())
    found, module_aliases = [], set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            if not source.startswith("litsearch"):
                continue
            for alias in node.names:
                if _private(alias.name) and not source.rsplit(".", 1)[-1].startswith("_"):
                    found.append(f"line {node.lineno}: from {source} import {alias.name}")
                # `from ..providers import openalex` binds a module: its attributes are checked below.
                if (PACKAGE.parent / (source.replace(".", "/") + f"/{alias.name}.py")).exists():
                    module_aliases.add(alias.asname or alias.name)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("litsearch"):
                    module_aliases.add(alias.asname or alias.name.split(".")[0])
    for node in ast.walk(tree):
        if (isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name)
                and node.value.id in module_aliases and _private(node.attr)):
            found.append(f"line {node.lineno}: {node.value.id}.{node.attr}")
    return found


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_no_module_uses_another_modules_private_names(module):
    assert private_reaches(module) == []


def test_the_private_name_check_catches_both_forms(tmp_path, monkeypatch):
    # The rule itself must be able to fail: a module that reaches in both ways is caught.
    fake = PACKAGE / "search" / "rank.py"
    source = "from ..providers._common import as_int\nfrom ..providers.openalex import _identity_params\n" \
             "from ..providers import openalex\nopenalex._identity_params(None)\n"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert private_reaches(fake) == ["line 2: from litsearch.providers.openalex import _identity_params",
                                     "line 4: openalex._identity_params"]


def test_help_and_usage_checks_load_no_http_or_merge_engine():
    """`lit-search --help` and the command line's own checks run before any request: they must
    not pay for httpx, the merge engine or the MCP SDK (tens to hundreds of milliseconds each)."""
    import subprocess
    import sys

    code = ("import sys; from litsearch.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in ('httpx', 'rapidfuzz', 'mcp', 'jinja2') if m in sys.modules))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert loaded.stdout.strip().splitlines()[-1] == "[]", loaded.stdout[-500:] + loaded.stderr[-500:]


# ---------------------------------------------------------------- layers and declarations

def _imports(module: Path) -> list[tuple[int, str]]:
    """(line, absolute litsearch module) of every import in ``module``, lazy ones included."""
    found = []
    for node in ast.walk(ast.parse(module.read_text())):
        if isinstance(node, ast.ImportFrom):
            source = _resolve(module, node)
            if source.startswith("litsearch"):
                # `from .. import x` may bind a module: name it.
                found += [(node.lineno, f"{source}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names if alias.name.startswith("litsearch")]
    return found


# Each folder and the folders it may import (besides itself and the package's __init__): every
# arrow points down, from the doors (the command line, the MCP server, the Python API) through
# the run-time layer they stand on to core, which imports nothing. So the HTTP layer knows
# policies, never providers; the library store knows nothing of HTTP; no door walks through
# another. A new folder is one line here (test_every_folder_has_a_row fails until it has it).
BELOW_THE_DOORS = ("core", "net", "dedupe", "biblio", "library", "providers", "semantic", "search", "graph",
                   "deep", "render", "fulltext", "zotero", "runtime")
LAYERS = {
    "core": (),
    "net": ("core",),
    "dedupe": ("core",),
    "biblio": ("core",),
    "library": ("core", "dedupe"),
    "providers": ("core", "net"),
    "semantic": ("core",),
    "search": ("core", "net", "dedupe", "providers", "semantic"),
    "graph": ("core", "net", "dedupe", "providers", "search", "library", "semantic"),
    # Deep search: sessions of rounds over the search, the citation lists and the merge engine.
    "deep": ("core", "net", "dedupe", "providers", "search", "graph", "library", "semantic"),
    "render": ("core", "dedupe", "providers", "search", "graph", "library", "deep"),
    "fulltext": ("core", "net", "providers", "graph"),
    "zotero": ("core", "net", "providers", "biblio", "graph", "library"),
    # The run-time layer checks a file a door will write: never over a deep-search session (deep).
    "runtime": ("core", "net", "providers", "library", "biblio", "render", "deep"),
    "mcp_server": BELOW_THE_DOORS,
    "api": BELOW_THE_DOORS,
    # The command line starts the MCP server (`lit-search mcp`); the server never calls back.
    "cli": BELOW_THE_DOORS + ("mcp_server",),
}
FOLDERS = sorted(p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__")


def test_every_folder_has_a_row_and_the_rows_draw_no_circle():
    assert sorted(LAYERS) == FOLDERS
    placed: list[str] = []  # a folder is placed once everything it may import is
    while len(placed) < len(LAYERS):
        ready = [name for name, below in LAYERS.items() if name not in placed and set(below) <= set(placed)]
        assert ready, f"the rows of {sorted(set(LAYERS) - set(placed))} import one another"
        placed += ready


def upward_imports(module: Path) -> list[str]:
    """The imports of ``module`` that its folder's row does not allow (the package's own
    ``__init__``, which imports nothing, gives every folder its version and exit code)."""
    folder = module.relative_to(PACKAGE).parts[0]
    allowed = (folder, *LAYERS[folder])
    return [f"line {line}: {name}" for line, name in _imports(module)
            if name.split(".")[1] in FOLDERS and name.split(".")[1] not in allowed]


def test_no_import_runs_back_up():
    found = {_name(module): reaching for module in MODULES if module.parent != PACKAGE
             if (reaching := upward_imports(module))}
    assert found == {}


@pytest.mark.parametrize("module,source", [
    ("net/http.py", "from ..providers.base import get_provider\n"),
    ("core/config.py", "def f():\n    from ..providers.registry import services\n"),
    ("mcp_server/runtime.py", "from ..cli.common import Console\n"),
    ("api/search.py", "from ..mcp_server.runtime import current\n"),
    ("library/store.py", "import litsearch.net.http\n"),
    ("graph/chased.py", "from ..render.markup import plural\n"),
    ("runtime/online.py", "from ..search import pipeline\n"),
])
def test_the_layer_check_catches_an_upward_import(monkeypatch, module, source):
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert len(upward_imports(PACKAGE / module)) == 1


def _module_name(path: Path) -> str:
    return ".".join(path.relative_to(PACKAGE.parent).with_suffix("").parts).removesuffix(".__init__")


def import_graph() -> dict[str, set[str]]:
    """Each module and the litsearch modules it imports (lazy and type-only imports too)."""
    known = {_module_name(path) for path in MODULES}
    graph = {}
    for path in MODULES:
        targets = set()
        for _, name in _imports(path):
            while name not in known and "." in name:  # `from .x import y`: module x, or package x
                name = name.rsplit(".", 1)[0]
            if name in known and name != _module_name(path):
                targets.add(name)
        graph[_module_name(path)] = targets
    return graph


def circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every group of modules that import one another, directly or around (Tarjan's algorithm)."""
    order, low, stack, found, counter = {}, {}, [], [], [0]

    def visit(node: str) -> None:
        order[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        for target in sorted(graph[node]):
            if target not in order:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in stack:
                low[node] = min(low[node], order[target])
        if low[node] == order[node]:
            group = []
            while True:
                member = stack.pop()
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in order:
            visit(node)
    return found


def test_no_modules_import_one_another_around_a_circle():
    assert circles(import_graph()) == []


def test_the_circle_check_finds_one():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert circles(graph) == [["a", "b", "c"]]
    assert circles({"a": {"b"}, "b": set()}) == []


def _strings(module: Path) -> list[tuple[int, str]]:
    """Every string constant of ``module`` but its docstrings (prose may name a variable)."""
    tree = ast.parse(module.read_text())
    docstrings = {id(node.body[0].value) for node in ast.walk(tree)
                  if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
                  and node.body and isinstance(node.body[0], ast.Expr)
                  and isinstance(node.body[0].value, ast.Constant)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings]


def _declared_facts() -> dict[Path, list[str]]:
    """Each provider declaration module and the facts it alone may state: base URLs, their
    variables and key variables."""
    import importlib

    facts = {}
    for path in sorted((PACKAGE / "providers").glob("*_declaration.py")):
        module = importlib.import_module(f"litsearch.providers.{path.stem}")
        facts[path] = [fact for service in module.SERVICES
                       for fact in (service.base_url, service.url_variable, service.key and service.key.variable)
                       if fact]
    return facts


def facts_elsewhere(module: Path, facts: dict[Path, list[str]]) -> list[str]:
    found = []
    for declaration, stated in facts.items():
        if module == declaration:
            continue
        for line, text in _strings(module):
            for fact in stated:
                is_url = fact.startswith("http")
                if (text.rstrip("/") == fact) if is_url else re.search(rf"\b{re.escape(fact)}\b", text):
                    found.append(f"line {line}: {fact} (declared in {declaration.name})")
    return found


@pytest.mark.parametrize("module", MODULES, ids=_name)
def test_a_providers_facts_live_in_its_declaration_only(module):
    assert facts_elsewhere(module, _declared_facts()) == []


def test_the_facts_check_catches_a_repeated_base_url_and_key_variable(monkeypatch):
    fake = PACKAGE / "core" / "config.py"
    source = ('"""A docstring may say OPENALEX_API_KEY."""\n'
              'DEFAULT = {"openalex": "https://api.openalex.org"}\n'
              'MESSAGE = f"set NCBI_API_KEY for {10}/s"\n')
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source if self == fake else Path.read_bytes(self).decode())
    assert [entry.split(" (")[0] for entry in facts_elsewhere(fake, _declared_facts())] == \
        ["line 2: https://api.openalex.org", "line 3: NCBI_API_KEY"]


# What the commands share lives in cli/common.py and cli/results.py; dispatch picks the command
# from the table in cli/commands.py, and cli/first_word.py tells a mistyped command from a topic.
SHARED_CLI = {"__init__", "common", "results", "dispatch", "progress", "commands", "first_word", "interrupt",
              "search_flags"}


@pytest.mark.parametrize("module", [m for m in MODULES if m.parent.name == "cli" and m.stem not in SHARED_CLI],
                         ids=_name)
def test_a_command_imports_nothing_from_another_command(module):
    commands = {m.stem for m in MODULES if m.parent.name == "cli"} - SHARED_CLI - {module.stem}
    reaching = [f"line {line}: {name}" for line, name in _imports(module)
                if name.startswith("litsearch.cli.") and name.split(".")[2] in commands]
    assert reaching == []


# A change to the shipped files is a release (tests/test_release.py, docs/releasing.md): checked
# here too, because this file is the one every merge runs.
from test_release import (test_every_copy_of_the_version_is_pyprojects,  # noqa: E402,F401
                          test_the_mcp_fronts_answers_are_the_real_servers,
                          test_the_shipped_files_are_those_of_the_last_release)


# ---------------------------------------------------------------- one checked way to a search

def options_built_by_hand(module: Path) -> list[str]:
    """Every ``SearchOptions(...)`` call outside search/options.py's checked_options."""
    tree = ast.parse(module.read_text())
    allowed = set()
    if module == PACKAGE / "search" / "options.py":
        allowed = {id(node) for function in ast.walk(tree)
                   if isinstance(function, ast.FunctionDef) and function.name == "checked_options"
                   for node in ast.walk(function)}
    return [f"line {node.lineno}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "SearchOptions"
            and id(node) not in allowed]


def test_every_front_end_builds_its_search_through_checked_options():
    found = {_name(module): lines for module in MODULES if (lines := options_built_by_hand(module))}
    assert found == {}


def test_the_checked_options_rule_catches_a_search_built_by_hand(monkeypatch):
    source = "from ..search import options\ndef f(t):\n    return options.SearchOptions(topic=t)\n"
    monkeypatch.setattr(Path, "read_text", lambda self, *a, **k: source)
    assert options_built_by_hand(PACKAGE / "api" / "search.py") == ["line 3"]


def test_no_test_leaves_folders_in_the_system_temp_folder():
    """A folder made outside pytest's tmp_path comes from tests/scratch.py (removed when the test
    process ends): a bare tempfile.mkdtemp left 2,500 folders in /tmp over a few runs."""
    tests = REPO / "tests"
    bare = [f"{path.relative_to(REPO)}:{number}" for path in sorted(tests.rglob("*.py")) if path.name != "scratch.py"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
            if re.search(r"\bmkdtemp\(", line) and "scratch_folder" not in line]
    assert not bare, bare
