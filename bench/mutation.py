"""Mutation check of the tests on the modules that guard data (issue 19): each mutant is one
small change to the source (a comparison, a boolean, a number, a string, a call, a return, a
statement), and the module's own test files must fail on it.

    .venv/bin/python bench/mutation.py                 # every target in bench/mutation_targets.py
    .venv/bin/python bench/mutation.py identifiers     # one target (names as in that file)
    .venv/bin/python bench/mutation.py --list filters  # the mutants only, nothing run

Why a runner of its own rather than mutmut: mutmut 3 mutates only inside functions, and the
constants that guard data here live at module level (the Crossref title threshold of 90, the
year tolerance, regular expressions), and it maps tests by tracing the whole suite first.
This runner mutates the module's syntax tree (module level included), compiles the mutant
from the tree, and runs the target's chosen test files in a forked child that imports the
mutant in place of the real module, with pytest and the third-party libraries already loaded
in the parent, so a mutant costs its tests' time plus about half a second.

A mutant on a line that the target's tests never execute is counted as surviving without a
run ("not covered"). A mutant is killed when its tests fail, error or time out. Mutants shown
to be equivalent (no behaviour can tell them apart) are listed, with a one-line reason each,
in bench/mutation_targets.py's EQUIVALENT and left out of the rate.
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib.abc
import importlib.util
import json
import os
import signal
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(Path(__file__).resolve().parent))

from mutation_targets import EQUIVALENT, TARGETS  # noqa: E402

# ------------------------------------------------------------------------- the mutants

_COMPARE_SWAP = {ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt, ast.Eq: ast.NotEq,
                 ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In, ast.Is: ast.IsNot, ast.IsNot: ast.Is}
_BINOP_SWAP = {ast.Add: ast.Sub, ast.Sub: ast.Add, ast.Mult: ast.Div, ast.Div: ast.Mult, ast.FloorDiv: ast.Div,
               ast.Mod: ast.FloorDiv, ast.BitOr: ast.BitAnd, ast.BitAnd: ast.BitOr, ast.Pow: ast.Mult,
               ast.LShift: ast.RShift, ast.RShift: ast.LShift}
_CALL_SWAP = {"any": "all", "all": "any", "min": "max", "max": "min"}
_SYMBOL = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=", ast.In: "in",
           ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not", ast.Add: "+", ast.Sub: "-", ast.Mult: "*",
           ast.Div: "/", ast.FloorDiv: "//", ast.Mod: "%", ast.BitOr: "|", ast.BitAnd: "&", ast.Pow: "**",
           ast.LShift: "<<", ast.RShift: ">>", ast.And: "and", ast.Or: "or"}


@dataclass
class Mutant:
    number: int
    qualname: str       # the function (or <module>) it is in
    line: int
    description: str    # "< -> <=", "90 -> 91", "delete call os.replace(...)"
    source_line: str
    path: tuple = field(repr=False)  # where the node is: a chain of (field, index) from the tree's root
    kind: str = field(repr=False, default="")
    payload: object = field(repr=False, default=None)
    occurrence: int = 1
    statement_line: int = 0  # a multi-line statement reports only some of its lines as executed

    @property
    def key(self) -> str:
        """Stable across edits elsewhere in the file: function, change, and the line's text."""
        suffix = f" #{self.occurrence}" if self.occurrence > 1 else ""
        return f"{self.qualname} | {self.description}{suffix} | {self.source_line}"


class _Collector(ast.NodeVisitor):
    """Walks the tree and records every place a mutation applies, with the path to the node."""

    def __init__(self, source_lines: list[str], only: tuple[str, ...] | None):
        self.lines = source_lines
        self.only = only
        self.found: list[Mutant] = []
        self.scope: list[str] = []
        self.constant: str | None = None  # the module-level name being assigned, if any
        self.statements: list[int] = []  # first lines of the enclosing statements
        self.path: list[tuple[str, int | None]] = []

    # --- traversal keeping the path and the enclosing function's name
    def visit(self, node):
        if not isinstance(node, ast.stmt):
            return super().visit(node)
        self.statements.append(node.lineno)
        try:
            return super().visit(node)
        finally:
            self.statements.pop()

    def generic_visit(self, node):
        for name, value in ast.iter_fields(node):
            if name in ("annotation", "returns", "type_comment", "decorator_list"):
                continue
            if isinstance(value, list):
                for index, item in enumerate(value):
                    if isinstance(item, ast.AST):
                        if index == 0 and name == "body" and _is_docstring(item):
                            continue
                        self.path.append((name, index))
                        self.visit(item)
                        self.path.pop()
            elif isinstance(value, ast.AST):
                self.path.append((name, None))
                self.visit(value)
                self.path.pop()

    def _scoped(self, node):
        self.scope.append(node.name)
        self.generic_visit(node)
        self.scope.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def visit_If(self, node):
        # `if TYPE_CHECKING:` imports only help a type checker
        if isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            return
        self.generic_visit(node)

    def visit_JoinedStr(self, node):
        # f-strings are messages: their literal parts are left alone, their expressions mutated
        for index, value in enumerate(node.values):
            if isinstance(value, ast.FormattedValue):
                self.path.append(("values", index))
                self.path.append(("value", None))
                self.visit(value.value)
                self.path.pop()
                self.path.pop()

    def visit_Import(self, node):
        return

    visit_ImportFrom = visit_Import

    # --- the mutations
    def _add(self, node, description: str, kind: str, payload=None):
        qualname = ".".join(self.scope) or self.constant or "<module>"
        if self.only is not None and not any(qualname == name or qualname.startswith(name + ".")
                                             for name in self.only):
            return
        line = getattr(node, "lineno", 0)
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else ""
        self.found.append(Mutant(len(self.found), qualname, line, description, text, tuple(self.path), kind,
                                 payload, statement_line=self.statements[-1] if self.statements else line))

    def visit_Compare(self, node):
        for index, op in enumerate(node.ops):
            swap = _COMPARE_SWAP.get(type(op))
            if swap:
                self._add(node, f"{_SYMBOL[type(op)]} -> {_SYMBOL[swap]}", "compare", (index, swap))
        self.generic_visit(node)

    def visit_BoolOp(self, node):
        other = ast.Or if isinstance(node.op, ast.And) else ast.And
        self._add(node, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[other]}", "boolop", other)
        self.generic_visit(node)

    def visit_UnaryOp(self, node):
        if isinstance(node.op, ast.Not):
            self._add(node, "drop not", "unary")
        elif isinstance(node.op, ast.USub) and not isinstance(node.operand, ast.Constant):
            self._add(node, "drop unary -", "unary")
        self.generic_visit(node)

    def visit_BinOp(self, node):
        swap = _BINOP_SWAP.get(type(node.op))
        if swap:
            self._add(node, f"{_SYMBOL[type(node.op)]} -> {_SYMBOL[swap]}", "binop", swap)
        self.generic_visit(node)

    def visit_AugAssign(self, node):
        swap = _BINOP_SWAP.get(type(node.op))
        if swap:
            self._add(node, f"{_SYMBOL[type(node.op)]}= -> {_SYMBOL[swap]}=", "binop", swap)
        self.generic_visit(node)

    def visit_Constant(self, node):
        value = node.value
        if isinstance(value, bool):
            self._add(node, f"{value} -> {not value}", "constant", not value)
        elif isinstance(value, int):
            self._add(node, f"{value} -> {value + 1}", "constant", value + 1)
            self._add(node, f"{value} -> {value - 1}", "constant", value - 1)
        elif isinstance(value, float):
            step = 0.1 * max(1.0, abs(value))
            self._add(node, f"{value:g} -> {value + step:g}", "constant", value + step)
            self._add(node, f"{value:g} -> {value - step:g}", "constant", value - step)
        elif isinstance(value, str):
            shown = value if len(value) <= 30 else value[:27] + "..."
            self._add(node, f"{shown!r} -> 'XX..XX'", "constant", f"XX{value}XX")

    def visit_Call(self, node):
        if isinstance(node.func, ast.Name) and node.func.id in _CALL_SWAP:
            self._add(node, f"{node.func.id}() -> {_CALL_SWAP[node.func.id]}()", "call", _CALL_SWAP[node.func.id])
        self.generic_visit(node)

    def visit_Return(self, node):
        if node.value is not None and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            self._add(node, "return ... -> return None", "return")
        self.generic_visit(node)

    def visit_Expr(self, node):
        if isinstance(node.value, ast.Call):
            self._add(node, f"delete call {ast.unparse(node.value.func)}(...)", "delete")
        self.generic_visit(node)

    def visit_Assign(self, node):
        if self.scope and not (isinstance(node.value, ast.Constant) and node.value.value is None):
            self._add(node, "assign ... -> assign None", "assign_none")
        self._visit_assignment(node, node.targets[0])

    def visit_AnnAssign(self, node):
        self._visit_assignment(node, node.target)

    def _visit_assignment(self, node, target):
        """A module-level constant's mutants are named after it (``TITLE_MATCH_THRESHOLD``)."""
        if self.scope or not isinstance(target, ast.Name):
            self.generic_visit(node)
            return
        self.constant = target.id
        self.generic_visit(node)
        self.constant = None

    def visit_Break(self, node):
        self._add(node, "break -> continue", "loopjump", ast.Continue)

    def visit_Continue(self, node):
        self._add(node, "continue -> break", "loopjump", ast.Break)


def _is_docstring(node) -> bool:
    return isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)


def collect(path: Path, only: tuple[str, ...] | None) -> list[Mutant]:
    source = path.read_text(encoding="utf-8")
    collector = _Collector(source.splitlines(), only)
    collector.visit(ast.parse(source))
    seen: dict[str, int] = {}
    for mutant in collector.found:  # the same change twice on one line: the second is "#2"
        seen[mutant.key] = seen.get(mutant.key, 0) + 1
        if seen[mutant.key] > 1:
            mutant.occurrence = seen[mutant.key]
    return collector.found


def _node_at(tree, path):
    parent, node = None, tree
    for name, index in path:
        parent = node
        node = getattr(node, name) if index is None else getattr(node, name)[index]
    return parent, node


def _replace(parent, path_step, new):
    name, index = path_step
    if index is None:
        setattr(parent, name, new)
    else:
        getattr(parent, name)[index] = new


def mutated_code(path: Path, mutant: Mutant):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parent, node = _node_at(tree, mutant.path)
    kind, payload = mutant.kind, mutant.payload
    if kind == "compare":
        index, swap = payload
        node.ops[index] = swap()
    elif kind == "boolop":
        node.op = payload()
    elif kind == "unary":
        _replace(parent, mutant.path[-1], node.operand)
    elif kind == "binop":
        node.op = payload()
    elif kind == "constant":
        node.value = payload
    elif kind == "call":
        node.func = ast.Name(id=payload, ctx=ast.Load())
    elif kind == "return":
        node.value = None
    elif kind == "delete":
        _replace(parent, mutant.path[-1], ast.Pass())
    elif kind == "assign_none":
        node.value = ast.Constant(value=None)
    elif kind == "loopjump":
        _replace(parent, mutant.path[-1], payload())
    else:
        raise ValueError(kind)
    _copy_locations(tree)
    ast.fix_missing_locations(tree)
    return compile(tree, str(path), "exec")


def _copy_locations(tree):
    """New nodes take the line of their parent, so tracebacks and coverage still point somewhere."""
    for parent in ast.walk(tree):
        for child in ast.iter_child_nodes(parent):
            if not hasattr(child, "lineno") and hasattr(parent, "lineno"):
                ast.copy_location(child, parent)


# ------------------------------------------------------------------------- running them

class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated code for one module name; every other import goes the usual way."""

    def __init__(self, name: str, path: Path, code):
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        exec(self.code, module.__dict__)


def _pytest_args(tests: list[str]) -> list[str]:
    return [*tests, "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist",
            "-m", "not realtime", "--no-header", "-o", "addopts="]


def _coverage_tracer(filename: str, lines: set[int]):
    def local(frame, event, arg):
        if event == "line":
            lines.add(frame.f_lineno)
        return local

    def tracer(frame, event, arg):
        if frame.f_code.co_filename == filename:
            lines.add(frame.f_lineno)
            return local
        return None
    return tracer


def _child(target, code, coverage_file: str | None) -> int:
    """In the forked child: route the module to the mutant (or the original), run the tests."""
    os.setpgid(0, 0)
    devnull = os.open(os.devnull, os.O_WRONLY)
    if not os.environ.get("MUTATION_SHOW_OUTPUT"):
        os.dup2(devnull, 1)
        os.dup2(devnull, 2)
    path = REPO / target["file"]
    if code is not None:
        sys.meta_path.insert(0, _MutantFinder(target["module"], path, code))
    covered: set[int] = set()
    if coverage_file:
        tracer = _coverage_tracer(str(path), covered)
        sys.settrace(tracer)
        threading.settrace(tracer)
    import pytest
    os.chdir(REPO)
    code = pytest.main(_pytest_args(target["tests"]))
    if coverage_file:
        sys.settrace(None)
        Path(coverage_file).write_text(json.dumps(sorted(covered)))
    return int(code)


def _start(target, code, coverage_file=None) -> int:
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        status = 70
        try:
            status = _child(target, code, coverage_file)
        finally:
            os._exit(status)
    return pid


def _stop(pid: int) -> None:
    for kill in (lambda: os.killpg(pid, signal.SIGKILL), lambda: os.kill(pid, signal.SIGKILL)):
        try:
            kill()
        except ProcessLookupError:
            pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        pass


def _wait(pid: int, timeout: float) -> int | None:
    """The child's exit status, or None after ``timeout`` seconds (then it is stopped)."""
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(status)
        if time.monotonic() > deadline:
            _stop(pid)
            return None
        time.sleep(0.02)


def _preload():
    """Libraries the tests import, loaded once here so each forked child starts warm. Nothing
    from litsearch: the child must import the mutant, not a copy loaded in the parent."""
    for name in ("pytest", "_pytest.python", "_pytest.assertion.rewrite", "httpx", "rapidfuzz", "jinja2",
                 "hypothesis", "bibtexparser", "rispy", "jsonschema", "defusedxml.ElementTree", "feedparser",
                 "pydot", "yaml", "vcr", "pypdf", "Stemmer", "sqlite3", "email.utils", "xml.etree.ElementTree"):
        try:
            __import__(name)
        except Exception:  # noqa: BLE001 - a missing optional library only costs start-up time
            pass
    assert not any(name.startswith("litsearch") for name in sys.modules), "litsearch imported in the parent"


def run_target(name: str, target, jobs: int, verbose: bool) -> dict:
    path = REPO / target["file"]
    mutants = collect(path, target.get("only"))
    equivalent = EQUIVALENT.get(name, {})
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as handle:
        coverage_file = handle.name
    started = time.monotonic()
    baseline = _wait(_start(target, None, coverage_file), 1800)
    baseline_seconds = time.monotonic() - started
    if baseline != 0:
        raise SystemExit(f"{name}: the tests fail on the real code (exit {baseline}); fix them first")
    covered = set(json.loads(Path(coverage_file).read_text()))
    os.unlink(coverage_file)
    timeout = max(10.0, baseline_seconds * 3 + 5)

    results: dict[int, str] = {}
    queue = []
    for mutant in mutants:
        if mutant.key in equivalent:
            results[mutant.number] = "equivalent"
        elif mutant.line not in covered and mutant.statement_line not in covered:
            results[mutant.number] = "not covered"
        else:
            queue.append(mutant)
    running: dict[int, tuple[Mutant, float]] = {}
    while queue or running:
        while queue and len(running) < jobs:
            mutant = queue.pop(0)
            try:
                code = mutated_code(path, mutant)
            except (SyntaxError, ValueError, TypeError):
                results[mutant.number] = "invalid"
                continue
            running[_start(target, code)] = (mutant, time.monotonic())
        for pid, (mutant, since) in list(running.items()):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                code = os.waitstatus_to_exitcode(status)
                results[mutant.number] = "survived" if code == 0 else ("killed" if code in (1, 2, 3) else
                                                                        f"killed (exit {code})")
                del running[pid]
            elif time.monotonic() - since > timeout:
                _stop(pid)
                results[mutant.number] = "killed (timeout)"
                del running[pid]
            if verbose and pid not in running:
                print(f"  {results[mutant.number]:<16} line {mutant.line:<4} {mutant.description}", flush=True)
        time.sleep(0.02)

    counted = [m for m in mutants if results[m.number] not in ("equivalent", "invalid")]
    killed = [m for m in counted if results[m.number].startswith("killed")]
    survivors = [m for m in counted if not results[m.number].startswith("killed")]
    stale = sorted(set(equivalent) - {m.key for m in mutants})
    return {"target": name, "file": target["file"], "mutants": len(mutants), "counted": len(counted),
            "killed": len(killed), "equivalent": sum(results[m.number] == "equivalent" for m in mutants),
            "invalid": sum(results[m.number] == "invalid" for m in mutants),
            "survived": [{"status": results[m.number], "line": m.line, "key": m.key} for m in survivors],
            "stale_equivalents": stale, "seconds": round(time.monotonic() - started, 1),
            "baseline_seconds": round(baseline_seconds, 1)}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("targets", nargs="*", help=f"target names (default: all): {', '.join(TARGETS)}")
    parser.add_argument("--jobs", "-j", type=int, default=2, help="mutants run at once (default 2)")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument("--verbose", "-v", action="store_true", help="print each mutant's outcome")
    parser.add_argument("--json", help="also write the results to this file")
    args = parser.parse_args(argv)
    names = args.targets or list(TARGETS)
    unknown = [name for name in names if name not in TARGETS]
    if unknown:
        parser.error(f"unknown target(s) {', '.join(unknown)}; known: {', '.join(TARGETS)}")
    if args.list:
        for name in names:
            target = TARGETS[name]
            for mutant in collect(REPO / target["file"], target.get("only")):
                print(f"{name}: line {mutant.line}: {mutant.key}")
        return 0
    _preload()
    os.environ.setdefault("LITSEARCH_SHARED_DIR", str(REPO.parent / "shared"))
    reports = []
    for name in names:
        print(f"{name}: {TARGETS[name]['file']} ...", flush=True)
        report = run_target(name, TARGETS[name], args.jobs, args.verbose)
        reports.append(report)
        rate = report["killed"] / report["counted"] if report["counted"] else 1.0
        print(f"{name}: {report['killed']}/{report['counted']} killed ({rate:.1%}), "
              f"{report['equivalent']} equivalent left out, {report['seconds']} s", flush=True)
        for survivor in report["survived"]:
            print(f"    {survivor['status']:<12} line {survivor['line']:<4} {survivor['key']}")
        for key in report["stale_equivalents"]:
            print(f"    stale EQUIVALENT entry (no such mutant now): {key}")
    print()
    print(f"{'target':<14} {'mutants':>7} {'equiv.':>6} {'killed':>6} {'survived':>8} {'rate':>7}")
    for report in reports:
        rate = report["killed"] / report["counted"] if report["counted"] else 1.0
        print(f"{report['target']:<14} {report['counted']:>7} {report['equivalent']:>6} {report['killed']:>6} "
              f"{len(report['survived']):>8} {rate:>7.1%}")
    if args.json:
        Path(args.json).write_text(json.dumps(reports, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
