#!/usr/bin/env python3
"""Cut a lit-search release, or check that one is not overdue (docs/releasing.md).

    python3 .ci/release.py patch            # 0.2.0 -> 0.2.1 (also: minor, major, or 0.3.0)
    python3 .ci/release.py check            # exit 1, naming what is wrong, if a release is due
    python3 .ci/release.py again            # the same version recorded anew, if never published

Claude Code keeps an installed plugin by its version: a change shipped under an old version
never reaches the users who have it. So the version has one source, ``pyproject.toml``, and
every other copy follows it (the package's ``__version__``, the plugin's and the marketplace's
manifests, the skill's metadata). ``release.json`` records, with the version, a digest of the
files a user gets (the package, the skill, the plugin's manifests and MCP declaration, the
helper scripts); ``check`` fails when they changed since, so a change cannot land unreleased.
Standard library only.
"""

from __future__ import annotations

import hashlib
import json
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RECORD = "release.json"
# What an installed plugin or a pip install runs; docs, tests and benchmarks are not shipped.
SHIPPED = ("src", "templates", "scripts", ".claude", ".claude-plugin", ".mcp.json", "pyproject.toml",
           "requirements.lock")
NEVER = ("__pycache__", ".pyc", ".egg-info")
VERSION = re.compile(r"^(\d+)\.(\d+)\.(\d+)$")

# Every copy of the version: (file, the pattern whose group 1 is the version there).
COPIES = (
    ("pyproject.toml", r'(?m)^version = "([^"]+)"'),
    ("src/litsearch/__init__.py", r'(?m)^__version__ = "([^"]+)"'),
    (".claude/skills/lit-search/SKILL.md", r'(?m)^  version: "([^"]+)"'),
)
JSON_COPIES = ((".claude-plugin/plugin.json", ("version",)),
               (".claude-plugin/marketplace.json", ("metadata", "version")),
               (".claude-plugin/marketplace.json", ("plugins", 0, "version")))


def version(root: Path = ROOT) -> str:
    return re.search(COPIES[0][1], (root / COPIES[0][0]).read_text(encoding="utf-8")).group(1)


def copies(root: Path = ROOT) -> dict[str, str | None]:
    """Where each copy of the version is -> what it says there (None: not found)."""
    found: dict[str, str | None] = {}
    for name, pattern in COPIES:
        match = re.search(pattern, (root / name).read_text(encoding="utf-8"))
        found[name] = match.group(1) if match else None
    for name, path in JSON_COPIES:
        value = json.loads((root / name).read_text(encoding="utf-8"))
        for step in path:
            value = value[step] if isinstance(value, (dict, list)) else None
        found[f"{name} {'.'.join(map(str, path))}"] = value
    return found


def shipped_files(root: Path = ROOT) -> list[str]:
    """The shipped files, as a clone has them (git's list, new files included), else on disk."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", "--", *SHIPPED],
                            cwd=root, capture_output=True)
    if listed.returncode == 0:
        names = [name for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0") if name]
    else:  # an unpacked archive: everything under the shipped paths
        names = [str(path.relative_to(root).as_posix()) for top in SHIPPED for path in
                 ([root / top] if (root / top).is_file() else sorted((root / top).rglob("*"))) if path.is_file()]
    return sorted({name for name in names if (root / name).is_file() and not any(part in name for part in NEVER)})


def digest(root: Path = ROOT) -> str:
    """One sha256 over every shipped file's path and content (line endings as in git)."""
    total = hashlib.sha256()
    for name in shipped_files(root):
        content = (root / name).read_bytes().replace(b"\r\n", b"\n")
        total.update(f"{name}\0{hashlib.sha256(content).hexdigest()}\n".encode())
    return total.hexdigest()


def recorded(root: Path = ROOT) -> dict:
    try:
        return json.loads((root / RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def problems(root: Path = ROOT) -> list[str]:
    """What makes the checkout not a release; [] when it is one."""
    current, found = version(root), []
    for where, value in copies(root).items():
        if value != current:
            found.append(f"{where} says {value!r}, pyproject.toml {current!r}: run `python3 .ci/release.py {current}`")
    record = recorded(root)
    if record.get("version") != current or record.get("shipped_files_sha256") != digest(root):
        changed = changed_since_release(root)
        what = f" ({', '.join(changed[:8])}{', …' if len(changed) > 8 else ''})" if changed else ""
        found.append(f"the shipped files changed since lit-search {record.get('version', '?')} was released{what}; "
                     "Claude Code keeps an installed plugin by version, so its users would never get them. "
                     "Cut a release: `python3 .ci/release.py patch` (docs/releasing.md)")
    return found


def changed_since_release(root: Path = ROOT) -> list[str]:
    """The shipped files that differ from the commit that last wrote release.json (git only)."""
    def git(*args: str) -> list[str]:
        run = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)
        return run.stdout.split() if run.returncode == 0 else []

    base = git("log", "-1", "--format=%H", "--", RECORD)
    if not base:
        return []
    changed = set(git("diff", "--name-only", base[0], "--", *SHIPPED))
    changed |= set(git("ls-files", "--others", "--exclude-standard", "--", *SHIPPED))
    return sorted(name for name in changed if not any(part in name for part in NEVER))


def next_version(current: str, asked: str) -> str:
    match = VERSION.match(current)
    if asked in ("major", "minor", "patch"):
        if not match:
            raise ValueError(f"the current version {current!r} is not MAJOR.MINOR.PATCH; name the new one")
        major, minor, patch = map(int, match.groups())
        return {"major": f"{major + 1}.0.0", "minor": f"{major}.{minor + 1}.0", "patch": f"{major}.{minor}.{patch + 1}"}[
            asked]
    if not VERSION.match(asked):
        raise ValueError(f"{asked!r} is not a version (MAJOR.MINOR.PATCH) nor major, minor or patch")
    if match and tuple(map(int, VERSION.match(asked).groups())) < tuple(map(int, match.groups())):
        raise ValueError(f"{asked} is older than the current {current}")
    return asked


def write_version(root: Path, new: str) -> None:
    """Every copy says ``new``; each file replaced whole."""
    for name, pattern in COPIES:
        path = root / name
        text = path.read_text(encoding="utf-8")
        match = re.search(pattern, text)
        if match is None:
            raise ValueError(f"{name}: no version found (pattern {pattern})")
        _replace(path, text[:match.start(1)] + new + text[match.end(1):])
    for name in sorted({name for name, _ in JSON_COPIES}):
        # Each manifest's only "version" keys are the copies: replaced in place, the rest of
        # the file (its layout too) unchanged; copies() then reads them back.
        path = root / name
        _replace(path, re.sub(r'("version"\s*:\s*)"[^"]*"', lambda m: f'{m.group(1)}"{new}"',
                              path.read_text(encoding="utf-8")))
    wrong = {where: value for where, value in copies(root).items() if value != new}
    if wrong:
        raise ValueError(f"these copies did not take the new version: {wrong}")


def _replace(path: Path, text: str) -> None:
    temporary = path.with_name(path.name + ".release")
    temporary.write_text(text, encoding="utf-8")
    temporary.replace(path)


def release(root: Path, asked: str) -> str:
    current = version(root)
    new = current if asked == "again" else next_version(current, asked)
    if new == current and asked != "again" and recorded(root).get("version") == current:
        raise ValueError(f"{current} is already recorded; a release needs a new version (patch, minor, major), "
                         f"or `again` if {current} was never published")
    where = published(root, current) if asked == "again" else None
    if where:
        raise ValueError(f"{current} is published ({where}): its users would never get this; cut a new version "
                         "(patch, minor, major)")
    write_version(root, new)
    _replace(root / RECORD, json.dumps({"version": new, "shipped_files_sha256": digest(root),
                                        "shipped_files": len(shipped_files(root))}, indent=2) + "\n")
    return new


def published(root: Path, current: str) -> str | None:
    """Where ``current`` was published, if it was: its tag (lit-search--vX.Y.Z, as `claude plugin
    tag` names it), or a main branch holding a commit whose release.json records it."""
    def git(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run(["git", *args], cwd=root, capture_output=True, text=True)

    if git("rev-parse", "--verify", "--quiet", f"refs/tags/lit-search--v{current}").returncode == 0:
        return f"tag lit-search--v{current}"
    branches = [ref for ref in ("main", "master", "origin/main", "origin/master")
                if git("rev-parse", "--verify", "--quiet", ref).returncode == 0]
    for commit in git("log", "-50", "--format=%H", "--", RECORD).stdout.split():
        try:
            if json.loads(git("show", f"{commit}:{RECORD}").stdout).get("version") != current:
                continue
        except ValueError:
            continue
        for branch in branches:
            if git("merge-base", "--is-ancestor", commit, branch).returncode == 0:
                return f"on {branch}"
    return None


def main(argv: list[str]) -> int:
    if len(argv) != 1 or argv[0] in ("-h", "--help"):
        print(__doc__.split("\n\n")[1])
        return 0 if argv and argv[0] in ("-h", "--help") else 2
    if argv[0] == "check":
        found = problems(ROOT)
        for line in found:
            print(f"release.py: {line}", file=sys.stderr)
        return 1 if found else 0
    try:
        new = release(ROOT, argv[0])
    except ValueError as error:
        print(f"release.py: {error}", file=sys.stderr)
        return 2
    print(f"lit-search {new}: every copy of the version and {RECORD} written; commit them with the change "
          "(then `claude plugin tag .` tags the release)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
