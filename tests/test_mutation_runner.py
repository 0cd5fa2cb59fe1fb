"""bench/mutation.py, the mutation check's runner, on a small module: which mutants it makes
(module-level constants included, docstrings, annotations and f-string text left alone), that
each compiles to the changed behaviour, and that every listed equivalent mutant still exists."""

from __future__ import annotations

import importlib.util
import sys

import pytest
from conftest import REPO


@pytest.fixture(scope="module")
def runner():
    sys.path.insert(0, str(REPO / "bench"))
    try:
        spec = importlib.util.spec_from_file_location("mutation_runner", REPO / "bench" / "mutation.py")
        module = importlib.util.module_from_spec(spec)
        sys.modules["mutation_runner"] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        yield module
    finally:
        sys.modules.pop("mutation_runner", None)
        sys.path.remove(str(REPO / "bench"))


SOURCE = '''"""A module docstring."""
from __future__ import annotations

THRESHOLD = 90


def verified(similarity: float, years: list[int]) -> bool:
    """A docstring."""
    message = f"similarity {similarity} below"
    return similarity >= THRESHOLD and any(year > 2000 for year in years)
'''


def test_the_mutants_of_a_small_module(runner, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SOURCE, encoding="utf-8")
    keys = [m.key for m in runner.collect(path, None)]
    assert keys == [
        "THRESHOLD | 90 -> 91 | THRESHOLD = 90",
        "THRESHOLD | 90 -> 89 | THRESHOLD = 90",
        'verified | assign ... -> assign None | message = f"similarity {similarity} below"',
        "verified | return ... -> return None | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | and -> or | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | >= -> > | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | any() -> all() | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | > -> >= | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | 2000 -> 2001 | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
        "verified | 2000 -> 1999 | return similarity >= THRESHOLD and any(year > 2000 for year in years)",
    ]
    only = [m.key for m in runner.collect(path, ("THRESHOLD",))]
    assert only == keys[:2]


def test_each_mutant_compiles_to_its_change(runner, tmp_path):
    path = tmp_path / "small.py"
    path.write_text(SOURCE, encoding="utf-8")
    outcomes = {}
    for mutant in runner.collect(path, None):
        namespace: dict = {}
        exec(runner.mutated_code(path, mutant), namespace)
        outcomes[mutant.description] = (namespace["verified"](90, [2000, 2001]), namespace["verified"](95, [2000]))
    assert (outcomes["90 -> 91"], outcomes["90 -> 89"]) == ((False, False), (True, False))
    assert outcomes[">= -> >"] == (False, False)
    assert outcomes["any() -> all()"] == (False, False)
    assert outcomes["> -> >="] == (True, True)
    assert outcomes["and -> or"] == (True, True)
    assert outcomes["return ... -> return None"] == (None, None)


def test_every_equivalent_mutant_listed_still_exists(runner):
    for name, keys in runner.EQUIVALENT.items():
        target = runner.TARGETS[name]
        present = {m.key for m in runner.collect(REPO / target["file"], target.get("only"))}
        assert set(keys) <= present, f"{name}: stale entries {sorted(set(keys) - present)}"
        assert all(reason.strip() for reason in keys.values())


def test_every_target_names_test_files_that_exist(runner):
    for target in runner.TARGETS.values():
        assert (REPO / target["file"]).is_file()
        for test in target["tests"]:
            assert (REPO / test.split("::")[0]).is_file(), test
