#!/usr/bin/env python3
"""A real Prometheus scrapes a real gateway: the dashboard's queries and the alert rules work on
the series the gateway exports, not only on names.

Starts Debian's `prometheus` server (scrape and rule evaluation every second, the rule file of
deploy/prometheus), runs the demo (simulator + gateway + demo strategy, DEMO_ARGS) with its
metrics endpoint on a free port, then, through Prometheus's HTTP API:
- every rule evaluated without error (`/api/v1/rules`: health "ok");
- no alert pending or firing during the clean run, and BgwTargetDown pending once the demo
  (and its gateway) has ended;
- every dashboard expression evaluated (Grafana's `$__rate_interval` as 5s) at the run's last
  scrape: no error, and the panels listed in MUST_HAVE_DATA returned series, among them the
  p50/p99/p99.9 of every gateway leg from histogram_quantile over the `_bucket` series;
- the histogram's p99 of strategy_to_exchange over the whole run agrees with the gateway's own
  HDR whole-run p99 (`bgw_leg_latency_run_seconds`) within one bucket (the buckets are at most
  5/3 apart).

Usage: prometheus_live.py DEMO_BINARY [DEMO_ARGS...]   Prints what it saw; exits 1 on a failure.
"""
import json
import math
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.parse
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RULES = os.path.join(ROOT, "deploy/prometheus/bitget-gateway.rules.yml")
DASHBOARD = os.path.join(ROOT, "deploy/grafana/bitget-gateway.json")
MUST_HAVE_DATA = re.compile(r"^(Ready|Exchange link|Sessions|Orders closed|ExecutionReports|Trade ops|Tracker|Heatmap|p50 / p99 / p99\.9|Journal|Strategy connections|File descriptors|CPU and memory)")


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def api(port, path, **params):
    url = f"http://127.0.0.1:{port}{path}"
    if params:
        url += "?" + urllib.parse.urlencode(params)
    with urllib.request.urlopen(url, timeout=10) as r:
        body = json.load(r)
    if body.get("status") != "success":
        raise RuntimeError(f"{path} {params}: {body}")
    return body["data"]


def grafana_to_promql(expr):
    expr = expr.replace("$__rate_interval", "5s").replace("$__interval", "1s")
    return re.sub(r"\$\{?[a-zA-Z_][a-zA-Z0-9_]*\}?", ".*", expr)


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    demo = sys.argv[1]
    demo_args = sys.argv[2:] or ["--orders", "20000", "--relay", "0"]
    prom = shutil.which("prometheus")
    if not prom:
        print("prometheus_live: the prometheus server is missing (Debian package prometheus)", file=sys.stderr)
        return 1
    work = tempfile.mkdtemp(prefix="bgw-prom-")
    gw_port, prom_port = free_port(), free_port()
    with open(os.path.join(work, "prometheus.yml"), "w") as f:
        f.write(f"""global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - {RULES}
scrape_configs:
  - job_name: bitget-gateway
    static_configs:
      - targets: ["127.0.0.1:{gw_port}"]
""")
    log = open(os.path.join(work, "prometheus.log"), "w")
    server = subprocess.Popen(
        [prom, f"--config.file={work}/prometheus.yml", f"--storage.tsdb.path={work}/data",
         f"--web.listen-address=127.0.0.1:{prom_port}"],
        stdout=log, stderr=subprocess.STDOUT)
    failures = []
    try:
        for _ in range(100):
            try:
                api(prom_port, "/api/v1/status/buildinfo")
                break
            except Exception:
                time.sleep(0.1)
        else:
            raise RuntimeError("prometheus did not start (see " + log.name + ")")
        t0 = time.time()
        run = subprocess.run([demo, *demo_args, "--metrics", f"127.0.0.1:{gw_port}"],
                             capture_output=True, text=True)
        t1 = time.time()
        if run.returncode != 0:
            print(run.stdout[-3000:], run.stderr[-3000:], sep="\n")
            raise RuntimeError(f"demo exited {run.returncode}")
        time.sleep(2)  # the last rule evaluation
        # The last scrape of the run (a range selector: once the demo is gone, the failed scrape
        # marks every series stale and an instant query at the end finds nothing).
        last = api(prom_port, "/api/v1/query", query='bgw_ready{job="bitget-gateway"}[1h]', time=f"{t1 + 1:.3f}")
        if not last["result"]:
            raise RuntimeError("no scrape of the gateway stored")
        samples = last["result"][0]["values"]
        at, n_scrapes = float(samples[-1][0]), len(samples)
        print(f"prometheus_live: demo ran {t1 - t0:.1f} s, {n_scrapes} scrapes, last at {at - t0:.1f} s")

        rules = api(prom_port, "/api/v1/rules")
        n_rules = 0
        for g in rules["groups"]:
            for r in g["rules"]:
                n_rules += 1
                if r.get("health") != "ok":
                    failures.append(f"rule {r['name']}: health {r.get('health')} {r.get('lastError', '')}")
                if r.get("type") != "alerting":
                    continue
                states = sorted(a["state"] for a in r.get("alerts", []))
                if r["name"] == "BgwTargetDown":
                    # The demo has ended: its target is gone, and the rule sees it at once.
                    if states != ["pending"]:
                        failures.append(f"BgwTargetDown is {states or 'inactive'} after the gateway stopped (want pending)")
                elif states:
                    failures.append(f"alert {r['name']} is {states} during a clean demo")
        print(f"prometheus_live: {n_rules} rules evaluated, health ok; after the demo ended BgwTargetDown "
              "is pending (the gateway is gone) and no other alert is pending or firing")

        dash = json.load(open(DASHBOARD))
        n_expr = 0
        for p in dash["panels"]:
            for t in p.get("targets", []):
                q = grafana_to_promql(t["expr"])
                n_expr += 1
                try:
                    res = api(prom_port, "/api/v1/query", query=q, time=f"{at:.3f}")["result"]
                except Exception as e:  # noqa: BLE001 (reported)
                    failures.append(f"panel {p['title']!r} {t['refId']}: {e}")
                    continue
                values = [float(s["value"][1]) for s in res]
                finite = [v for v in values if not math.isnan(v)]
                if MUST_HAVE_DATA.match(p["title"]) and not finite and not p["title"].startswith("p50 / p99 / p99.9: first_push"):
                    failures.append(f"panel {p['title']!r} {t['refId']}: no data ({q})")
                if p["title"].startswith("p50 / p99 / p99.9: strategy_to_exchange"):
                    print(f"prometheus_live:   {p['title']} {t['legendFormat']}: "
                          + ", ".join(f"{v * 1e6:.1f} us" for v in finite))
        print(f"prometheus_live: {n_expr} dashboard expressions evaluated at the last scrape")

        # Histogram p99 over the whole run against the gateway's HDR whole-run p99.
        window = f"{int(at - t0) + 5}s"
        h = api(prom_port, "/api/v1/query", time=f"{at:.3f}", query=(
            'histogram_quantile(0.99, sum by (le) (increase(bgw_leg_latency_seconds_bucket'
            f'{{job="bitget-gateway", leg="strategy_to_exchange"}}[{window}])))'))["result"]
        r = api(prom_port, "/api/v1/query", time=f"{at:.3f}",
                query='bgw_leg_latency_run_seconds{job="bitget-gateway", leg="strategy_to_exchange", quantile="0.99"}')["result"]
        if not h or not r:
            failures.append("no whole-run p99 to compare")
        else:
            hp, rp = float(h[0]["value"][1]), float(r[0]["value"][1])
            print(f"prometheus_live: strategy_to_exchange p99 over the run: histogram_quantile {hp * 1e6:.1f} us, "
                  f"HDR {rp * 1e6:.1f} us (ratio {hp / rp:.2f})")
            if not (rp / (5 / 3) <= hp <= rp * (5 / 3)):
                failures.append(f"histogram p99 {hp} not within a bucket of the HDR p99 {rp}")
    except Exception as e:  # noqa: BLE001 (reported)
        failures.append(str(e))
    finally:
        server.send_signal(signal.SIGTERM)
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
    for f in failures:
        print(f"prometheus_live: FAIL {f}", file=sys.stderr)
    if failures:
        print(f"prometheus_live: the server's log is in {work}/prometheus.log", file=sys.stderr)
        return 1
    shutil.rmtree(work, ignore_errors=True)
    print("prometheus_live: PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
