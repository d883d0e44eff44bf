#!/usr/bin/env python3
"""Checks the PromQL of the Grafana dashboard and the alert rules against the gateway's names.

Usage: deploy_exprs.py DASHBOARD_JSON RULES_YML EXPOSITION OUT_RULES_YML

- The dashboard: valid JSON, unique panel ids, every panel with a Prometheus datasource and
  targets that carry an `expr` and a unique `refId`.
- Every dashboard expression is written, with Grafana's variables replaced by values of the
  same type, as a recording rule into OUT_RULES_YML, for `promtool check rules` (the caller
  runs it: promtool's parser is the judge of the PromQL).
- Every metric name in the dashboard's and the rules' expressions (and in the dashboard's
  variable queries) must be a series of EXPOSITION, a real scrape of the gateway (the e2e test
  metrics_endpoint writes it); every label a selector or a `by (...)` names must be a label of
  that metric in the scrape (`job` and `instance`, added by Prometheus, and `le`, `quantile` of
  histograms and summaries, excepted).

Prints what it checked; exits 1 with one line per problem.
"""
import json
import re
import sys

NAME = re.compile(r"\b((?:bgw|process)_[a-z0-9_]+)\b")
SELECTOR = re.compile(r"\b((?:bgw|process)_[a-z0-9_]+)\s*\{([^}]*)\}")
LABEL = re.compile(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)")
BY = re.compile(r"\b(?:by|without)\s*\(([^)]*)\)")
NAME_REGEX = re.compile(r'__name__\s*=~\s*"([^"]+)"')
SCRAPE_LABELS = {"job", "instance", "le", "quantile"}
SUFFIXES = ("_bucket", "_sum", "_count")


def exposition(path):
    """Series name -> label names seen, from a Prometheus text exposition."""
    names = {}
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})?\s", line)
            if not m:
                continue
            labels = set(re.findall(r'([a-zA-Z_][a-zA-Z0-9_]*)="', m.group(3) or ""))
            names.setdefault(m.group(1), set()).update(labels)
    return names


def grafana_to_promql(expr):
    """Grafana's variables replaced by values of their type."""
    for var, value in (("$__rate_interval", "1m"), ("$__interval", "1m"), ("$__range", "1h")):
        expr = expr.replace(var, value)
    return re.sub(r"\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?", ".*", expr)


def rule_exprs(path):
    """The `expr:` of every rule (a plain and a `|` block scalar), by alert/record name."""
    out = []
    lines = open(path, encoding="utf-8").read().splitlines()
    i = 0
    name = "?"
    while i < len(lines):
        line = lines[i]
        m = re.match(r"\s*-?\s*(alert|record):\s*(\S+)", line)
        if m:
            name = m.group(2)
        m = re.match(r"(\s*)expr:\s*(.*)$", line)
        if m:
            indent, rest = len(m.group(1)), m.group(2)
            if rest.strip() in ("|", ">", "|-", ">-"):
                body = []
                i += 1
                while i < len(lines) and (not lines[i].strip() or len(lines[i]) - len(lines[i].lstrip()) > indent):
                    body.append(lines[i].strip())
                    i += 1
                out.append((name, " ".join(body)))
                continue
            out.append((name, rest))
        i += 1
    return out


def check_names(where, expr, series, problems):
    used = set(NAME.findall(expr))
    for alts in NAME_REGEX.findall(expr):
        used.update(alts.split("|"))
    for n in sorted(used):
        if n not in series:
            problems.append(f"{where}: {n} is not in the gateway's scrape")
    base_of = lambda n: next((n[: -len(s)] for s in SUFFIXES if n.endswith(s) and n[: -len(s)] + "_count" in series), n)
    for metric, body in SELECTOR.findall(expr):
        have = series.get(metric, set())
        for label in LABEL.findall(body):
            if label not in SCRAPE_LABELS and label not in have:
                problems.append(f"{where}: {metric} has no label {label!r} in the scrape")
    # Labels grouped by must exist on some metric the expression reads.
    readable = set()
    for n in used:
        readable |= series.get(n, set())
        readable |= series.get(base_of(n) + "_bucket", set())
    for group in BY.findall(expr):
        for label in [l.strip() for l in group.split(",") if l.strip()]:
            if label not in SCRAPE_LABELS and label not in readable:
                problems.append(f"{where}: groups by {label!r}, a label no metric it reads has")
    return used


def main():
    if len(sys.argv) != 5:
        print(__doc__, file=sys.stderr)
        return 2
    dash_path, rules_path, expo_path, out_path = sys.argv[1:]
    series = exposition(expo_path)
    problems = []
    used = set()

    dash = json.load(open(dash_path, encoding="utf-8"))
    ids = set()
    records = []
    panels = 0
    for p in dash.get("panels", []):
        if p.get("id") in ids:
            problems.append(f"panel id {p.get('id')} used twice")
        ids.add(p.get("id"))
        if p.get("type") == "row":
            continue
        panels += 1
        title = p.get("title", "?")
        if (p.get("datasource") or {}).get("type") != "prometheus":
            problems.append(f"panel {title!r}: no Prometheus datasource")
        targets = p.get("targets") or []
        if not targets:
            problems.append(f"panel {title!r}: no targets")
        refs = set()
        for t in targets:
            ref = t.get("refId")
            if not ref or ref in refs:
                problems.append(f"panel {title!r}: refId {ref!r} missing or repeated")
            refs.add(ref)
            expr = t.get("expr")
            if not expr:
                problems.append(f"panel {title!r} {ref}: no expr")
                continue
            used |= check_names(f"dashboard {title!r} {ref}", expr, series, problems)
            slug = re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_")
            records.append((f"dashboard:{slug}:{ref}", grafana_to_promql(expr)))
    for v in dash.get("templating", {}).get("list", []):
        q = v.get("query")
        if isinstance(q, dict):
            q = q.get("query")
        if isinstance(q, str) and v.get("type") == "query":
            used |= check_names(f"variable {v.get('name')}", q, series, problems)

    rules = rule_exprs(rules_path)
    for name, expr in rules:
        used |= check_names(f"rule {name}", expr, series, problems)

    with open(out_path, "w", encoding="utf-8") as f:
        f.write("# Written by scripts/deploy_exprs.py: every expression of the Grafana dashboard as a\n")
        f.write("# recording rule, for `promtool check rules`.\ngroups:\n  - name: dashboard\n    rules:\n")
        for record, expr in records:
            f.write(f"      - record: {record}\n        expr: {json.dumps(expr)}\n")

    print(f"deploy_exprs: dashboard {panels} panels, {len(records)} expressions; rules {len(rules)} expressions; "
          f"{len(used)} metric names, all checked against {len(series)} series names of {expo_path}")
    for p in problems:
        print(f"deploy_exprs: {p}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
