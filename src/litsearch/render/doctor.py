"""`lit-search doctor`'s report, as Markdown that reads well in a terminal too."""

from __future__ import annotations

from typing import Any

from .markup import markdown_text


def doctor_markdown(report: dict[str, Any]) -> str:
    folder = report["data_folder"]
    lines = [
        f"## lit-search {report['version']}",
        "",
        f"- Python {report['python']} ({_code(report['executable'])})",
        f"- data folder ({folder.get('variable', 'LITSEARCH_CACHE_DIR')}): {_code(folder['path'])}"
        + (f" ({_size(folder['bytes'])}; database {_size(folder['database_bytes'])})" if folder["exists"]
           else " (not created yet)"),
        f"- response cache: {_cache_words(folder)}",
        *([f"- **database cannot be used:** {folder['database_problem']}"]
          if folder.get("database_problem") else []),
        f"- shared state ({report.get('shared_state', {}).get('variable', 'LITSEARCH_SHARED_STATE')}): "
        + _shared_state_words(report.get("shared_state") or {}),
        f"- contact email (LITSEARCH_EMAIL): {'set' if report['contact_email_set'] else 'not set'}",
        "- proxy: " + ("; ".join(f"{name} {_code(value)}" for name, value in report.get("proxies", {}).items())
                       or "none (direct connections)"),
    ]
    lines += [f"- **cannot be used:** {problem} (left out below)" for problem in report.get("environment_problems", [])]
    lines += [
        "",
        "### Providers",
    ]
    for entry in report["providers"]:
        key = ""
        if entry["key_variable"]:
            key = f"; {entry['key_variable']} {'set' if entry['key_set'] else 'not set'}"
        url_variable = f" ({entry['base_url_variable']})" if entry.get("base_url_variable") else ""
        lines += ["", f"**{entry['label']}** ({entry['name']}): {_code(entry['base_url'])}{url_variable}{key}",
                  f"- limits: {entry['limits']}",
                  f"- searched: {_choice_words(entry.get('auto_choice'))}; can: "
                  + ", ".join(name.replace("_", " ") for name in entry.get("capabilities", [])),
                  f"- lit-search keeps: {entry['pace']}"]
        if entry.get("budget"):
            lines.append(f"- today's allowance: {entry['budget']['words']}")
        for missing in entry["missing"]:
            lines.append(f"- without {missing['variable']}: {missing['costs']}")
        check = entry.get("check")
        if check is not None:
            lines.append(f"- check: {_check_words(check)}")
    if report.get("semantic"):
        lines += semantic_lines(report["semantic"])
    needed = sorted({m["variable"] for entry in report["providers"] if not entry["optional"]
                     for m in entry["missing"]})
    optional = sorted({m["variable"] for entry in report["providers"] for m in entry["missing"]} - set(needed))
    lines += ["", "### What to set", ""]
    if needed:
        lines.append("Not set: " + ", ".join(needed) + ". Set them in your shell profile (`export NAME=value`); "
                     "lit-search never prints or stores their values.")
    else:
        lines.append("Every key and the contact email the default search uses are set.")
    if optional:
        lines.append("Optional, for --providers ...,web: " + ", ".join(optional) + ".")
    return "\n".join(lines) + "\n"


def semantic_lines(state: dict[str, Any]) -> list[str]:
    """The optional re-ranker: ready or why not, where its model is, what it costs."""
    model, cost = state["model"], state["cost"]
    lines = ["", "### Semantic re-ranker (optional)", ""]
    if state["ready"]:
        lines.append(f"- ready: `--rerank semantic` is the default; model {markdown_text(model['name'])} "
                     f"({model['origin']}) in {_code(model['folder'])}")
    else:
        lines.append(f"- not ready: {markdown_text(state['problem'].replace('`', ''))}; searches keep the lexical order")
        lines.append("- install: `lit-search doctor --install semantic` (the libraries, then the model: "
                     f"{model['download_bytes'] / 1e6:.0f} MB, once), or point {model['variable']} at a folder "
                     "holding an ONNX sentence encoder and its tokenizer.json")
    lines.append(f"- cost: the top {cost['candidates']} papers of each search embedded ({cost['max_tokens']} tokens "
                 f"each), about {cost['cpu_seconds_per_search']:g} CPU s more per search and "
                 f"{cost['peak_memory_mb']} MB at peak (measured); the extra adds about "
                 f"{cost['extra_install_mb']} MB; time budget {cost['budget_variable']}, threads "
                 f"{cost['threads_variable']}")
    return lines


def _shared_state_words(shared: dict[str, Any]) -> str:
    """The lab's Redis in a line: where, reachable and how fast, what --check found."""
    if not shared.get("set"):
        return "not set (pace, budgets and the cache are this machine's; docs/lab.md)"
    where = _code(shared.get("url", ""))
    if not shared.get("reachable"):
        return (f"{where}, **unreachable** ({markdown_text(str(shared.get('error') or 'no answer'))}): searches "
                f"go on with this machine's pace and cache")
    words = f"{where}, reachable ({shared.get('latency_ms')} ms)"
    if shared.get("checked"):
        words += (f"; {markdown_text(str(shared.get('server', 'Redis')))} ran the pace script"
                  + ("; a write was read back" if shared.get("writes") else "; **a write was not read back**")
                  + f"; lab cache {_size(shared.get('cache_bytes') or 0)}")
    return words


CHOICE_WORDS = {"always": "by every search (--providers auto)", "biomedical": "for biomedical topics (--providers auto)",
                "technical": "for computing, maths and physics topics (--providers auto)",
                "on_request": "only when named in --providers"}


def _choice_words(choice: str | None) -> str:
    return CHOICE_WORDS.get(choice or "", "never (asked for lookups only)")


def _code(text: str) -> str:
    """A path or URL of this installation, shown whole (not defanged) as inline code."""
    return "`" + str(text).replace("`", "'").replace("\n", " ") + "`"


def _check_words(check: dict[str, Any]) -> str:
    if not check["checked"]:
        return check.get("skipped") or "not checked"
    if not check["reachable"]:
        return f"not reachable: {markdown_text(check['error'])}"
    words = f"reachable, HTTP {check['status']}"
    if check["latency_ms"] is not None:
        words += f" in {check['latency_ms']} ms"
    if check["error"]:
        words += f": {markdown_text(check['error'])}"
    if check["limits"]:
        words += "; " + ", ".join(f"{name}: {markdown_text(value)}" for name, value in check["limits"].items())
    return words


def _size(count: int) -> str:
    for unit in ("bytes", "KB", "MB", "GB"):
        if count < 1024 or unit == "GB":
            return f"{count:,} {unit}" if unit == "bytes" else f"{count:.1f} {unit}"
        count /= 1024
    return f"{count:.1f} GB"


def _cache_words(folder: dict[str, Any]) -> str:
    # Megabytes of 1,000,000 bytes, as LITSEARCH_CACHE_MAX_MB counts them.
    cap = f"cap of {folder['cache_max_bytes'] / 1e6:,.0f} MB (LITSEARCH_CACHE_MAX_MB)"
    used = folder.get("cache_bytes")
    return f"{used / 1e6:,.1f} MB used of the {cap}" if used is not None else \
        f"size unknown (database unreadable); {cap}"
