#!/usr/bin/env python3
"""Writes deploy/grafana/bitget-gateway.json (the dashboard): panels, queries and layout are
decided here, so a change is one line and the layout stays on the grid. Usage:
`python3 deploy/grafana/dashboard.py deploy/grafana/bitget-gateway.json`. The check
(scripts/prometheus-check.sh) fails when the JSON differs from what this writes."""
import json
DS = {"type": "prometheus", "uid": "${datasource}"}
SEL = 'job="bitget-gateway", instance=~"$instance"'
panels = []
pid = [0]
y = [0]

def nid():
    pid[0] += 1
    return pid[0]

def row(title):
    panels.append({"type": "row", "title": title, "id": nid(), "collapsed": False,
                   "gridPos": {"h": 1, "w": 24, "x": 0, "y": y[0]}, "panels": []})
    y[0] += 1

def target(expr, legend, ref, fmt=None):
    t = {"datasource": DS, "expr": expr, "legendFormat": legend, "refId": ref, "range": True}
    if fmt:
        t["format"] = fmt
    return t

def panel(kind, title, desc, targets, x, w, h=8, unit=None, extra=None):
    p = {"type": kind, "title": title, "description": desc, "id": nid(), "datasource": DS,
         "gridPos": {"h": h, "w": w, "x": x, "y": y[0]},
         "targets": [target(*t) if isinstance(t, tuple) else t for t in targets],
         "fieldConfig": {"defaults": {}, "overrides": []}, "options": {}}
    if unit:
        p["fieldConfig"]["defaults"]["unit"] = unit
    if extra:
        for k, v in extra.items():
            p[k] = v
    panels.append(p)
    return p

def line(h=8):
    y[0] += h

R = "[$__rate_interval]"

row("Overview")
panel("stat", "Ready", "1 when /readyz answers 200 (exchange links up and reconciled, journal restored, sessions accepted).",
      [(f'bgw_ready{{{SEL}}}', "{{instance}}", "A")], 0, 4, h=6,
      extra={"options": {"colorMode": "background", "reduceOptions": {"calcs": ["lastNotNull"]}},
             "fieldConfig": {"defaults": {"mappings": [{"type": "value", "options": {"0": {"text": "NOT READY", "color": "red"}, "1": {"text": "READY", "color": "green"}}}]}, "overrides": []}})
panel("state-timeline", "Exchange link", "Per account: 1 while the subscribed private WebSocket is logged in and reconciled.",
      [(f'bgw_exchange_link_up{{{SEL}}}', "{{account}}", "A")], 4, 8, h=6,
      extra={"fieldConfig": {"defaults": {"mappings": [{"type": "value", "options": {"0": {"text": "down", "color": "red"}, "1": {"text": "up", "color": "green"}}}]}, "overrides": []}})
panel("timeseries", "Sessions", "Configured strategy sessions, established or not.",
      [(f'sum by (state) (bgw_sessions{{{SEL}}})', "{{state}}", "A")], 12, 4, h=6)
panel("stat", "Unknown outcomes unresolved", "Orders whose request outcome is unknown and not yet resolved from the exchange's state (alert: BgwUnknownOutcomesUnresolved).",
      [(f'sum(bgw_unknown_outcomes_unresolved{{{SEL}}})', "unresolved", "A")], 16, 4, h=6)
panel("stat", "Journal lag", "Session journal bytes encoded but not yet stored (alert: BgwJournalLag).",
      [(f'sum(bgw_journal_pending_bytes{{{SEL}}})', "pending", "A")], 20, 4, h=6, unit="bytes")
line(6)

row("Orders and reports")
panel("timeseries", "Orders closed by final OrdStatus", "Orders that ended, per second, by final OrdStatus.",
      [(f'sum by (state) (rate(bgw_orders_total{{{SEL}}}{R}))', "{{state}}", "A")], 0, 8, unit="ops")
panel("timeseries", "ExecutionReports by ExecType", "ExecutionReports written to strategy sessions per second (drop copies and retransmissions left out).",
      [(f'sum by (exec_type) (rate(bgw_execution_reports_total{{{SEL}}}{R}))', "{{exec_type}}", "A")], 8, 8, unit="ops")
panel("timeseries", "Rejects by message and reason", "Refusals written to strategies per second (alert: BgwRejectRateHigh).",
      [(f'sum by (message, reason) (rate(bgw_rejects_total{{{SEL}}}{R})) > 0', "{{message}} {{reason}}", "A")], 16, 8, unit="ops")
line()
panel("timeseries", "Trade ops to the exchange by op", "Private WebSocket trade ops written per second, by op.",
      [(f'sum by (op) (rate(bgw_exchange_trade_ops_total{{{SEL}}}{R}))', "{{op}}", "A")], 0, 8, unit="ops")
panel("timeseries", "Unknown outcomes", "Requests whose outcome became unknown, and their resolutions, per second.",
      [(f'sum(rate(bgw_unknown_outcomes_total{{{SEL}}}{R}))', "became unknown", "A"),
       (f'sum by (result) (rate(bgw_unknown_outcome_resolutions_total{{{SEL}}}{R}))', "resolved {{result}}", "B")], 8, 8, unit="ops")
panel("timeseries", "Tracker", "Orders in the tracker's live table by state, and tombstones of evicted ones.",
      [(f'sum by (state) (bgw_tracker_orders{{{SEL}}})', "{{state}}", "A"),
       (f'sum(bgw_tracker_tombstones{{{SEL}}})', "tombstones", "B")], 16, 8)
line()

row("Latency (from the gateway's HDR histograms)")
legs = [("strategy_to_exchange", "Strategy frame read → exchange frame written"),
        ("exchange_reply", "Exchange frame written → trade reply read"),
        ("first_push", "Exchange frame written → first order push read"),
        ("push_to_report", "Push read → ExecutionReport written")]
x = 0
for leg, what in legs:
    panel("heatmap", f"Heatmap: {leg}", f"{what}: samples per bucket per second (buckets 1 µs to 1 s).",
          [(f'sum by (le) (rate(bgw_leg_latency_seconds_bucket{{{SEL}, leg="{leg}"}}{R}))', "{{le}}", "A", "heatmap")],
          x, 6, unit="s",
          extra={"options": {"calculate": False, "yAxis": {"unit": "s"}, "cellGap": 1, "color": {"mode": "scheme", "scheme": "Oranges"}}})
    x += 6
line()
x = 0
for leg, what in legs:
    panel("timeseries", f"p50 / p99 / p99.9: {leg}", f"{what}, quantiles over each rate window (alerts: BgwLatencyP99High, BgwExchangeReplyP99High).",
          [(f'histogram_quantile({q}, sum by (le) (rate(bgw_leg_latency_seconds_bucket{{{SEL}, leg="{leg}"}}{R})))', f"p{lab}", ref)
           for q, lab, ref in [("0.5", "50", "A"), ("0.99", "99", "B"), ("0.999", "99.9", "C")]],
          x, 6, unit="s")
    x += 6
line()

row("Exchange link and rate budget")
panel("timeseries", "Rate-budget tokens", "Sends left in each limited bucket's current window, and the bucket's limit.",
      [(f'min by (account, bucket) (bgw_rate_budget_tokens{{{SEL}}})', "{{account}} {{bucket}} left", "A"),
       (f'max by (account, bucket) (bgw_rate_budget_limit{{{SEL}}})', "{{account}} {{bucket}} limit", "B")], 0, 8)
panel("timeseries", "Exchange reconnects and failures", "Reconnects completed and connect attempts failed, per hour (alert: BgwExchangeReconnectsFrequent).",
      [(f'sum by (account) (increase(bgw_exchange_reconnects_total{{{SEL}}}[1h]))', "{{account}} reconnects", "A"),
       (f'sum by (account) (increase(bgw_exchange_connect_failures_total{{{SEL}}}[1h]))', "{{account}} failed attempts", "B")], 8, 8)
panel("state-timeline", "Link state", "The state each account's subscribed link is in.",
      [(f'bgw_exchange_link_state{{{SEL}}} == 1', "{{account}} {{state}}", "A")], 16, 8)
line()

row("Journal, connections, process")
panel("timeseries", "Journal", "Bytes written to the journal stores per second, and bytes pending (the lag).",
      [(f'sum(rate(bgw_journal_written_bytes_total{{{SEL}}}{R}))', "written/s", "A"),
       (f'sum(bgw_journal_pending_bytes{{{SEL}}})', "pending", "B")], 0, 6, unit="bytes")
panel("timeseries", "Strategy connections", "Open strategy connections against max_connections, and refusals per second (alert: BgwStrategyConnectionsNearLimit).",
      [(f'sum(bgw_strategy_connections{{{SEL}}})', "open", "A"),
       (f'sum(bgw_strategy_connections_limit{{{SEL}}})', "limit", "B"),
       (f'sum(rate(bgw_strategy_connections_refused_total{{{SEL}}}{R}))', "refused/s", "C")], 6, 6)
panel("timeseries", "File descriptors", "Open descriptors against the limit (alert: BgwFileDescriptorsNearLimit).",
      [(f'process_open_fds{{{SEL}}}', "open", "A"), (f'process_max_fds{{{SEL}}}', "limit", "B")], 12, 6)
panel("timeseries", "CPU and memory", "CPU seconds per second and resident memory.",
      [(f'rate(process_cpu_seconds_total{{{SEL}}}{R})', "cpu", "A"),
       (f'process_resident_memory_bytes{{{SEL}}} / 1048576', "resident MiB", "B")], 18, 6)
line()

row("Operator")
panel("state-timeline", "Kill switch", "1 while the kill switch of the scope (an account, or global) is on: new orders refused (alert: BgwKillSwitchActive).",
      [(f'bgw_kill_switch_active{{{SEL}}}', "{{scope}}", "A")], 0, 8, h=6,
      extra={"fieldConfig": {"defaults": {"mappings": [{"type": "value", "options": {"0": {"text": "off", "color": "green"}, "1": {"text": "ON", "color": "red"}}}]}, "overrides": []}})
panel("stat", "Sessions draining", "Sessions whose new orders the operator refuses (drain), open ones finishing.",
      [(f'sum(bgw_sessions_draining{{{SEL}}})', "draining", "A")], 8, 4, h=6)
panel("timeseries", "Control actions", "Control-surface requests per hour, by action and result (alert: BgwControlRequestsRefused).",
      [(f'sum by (action, result) (increase(bgw_control_actions_total{{{SEL}}}[1h])) > 0', "{{action}} {{result}}", "A")], 12, 12, h=6)
line(6)

dash = {
    "title": "Bitget gateway",
    "uid": "bitget-gateway",
    "description": "Orders, reports, rejects, per-leg latency (heatmaps and p50/p99/p99.9 from the histograms), exchange link, rate budget, journal and sessions of the bitget gateway. Checked by scripts/prometheus-check.sh.",
    "tags": ["bitget", "gateway", "trading"],
    "timezone": "utc",
    "editable": True,
    "graphTooltip": 1,
    "refresh": "10s",
    "schemaVersion": 39,
    "version": 1,
    "time": {"from": "now-1h", "to": "now"},
    "templating": {"list": [
        {"name": "datasource", "label": "Prometheus", "type": "datasource", "query": "prometheus", "current": {}, "hide": 0},
        {"name": "instance", "label": "Gateway", "type": "query", "datasource": DS,
         "query": {"query": 'label_values(bgw_ready{job="bitget-gateway"}, instance)', "refId": "instance"},
         "definition": 'label_values(bgw_ready{job="bitget-gateway"}, instance)',
         "includeAll": True, "multi": True, "refresh": 2, "current": {}, "hide": 0},
    ]},
    "annotations": {"list": []},
    "links": [],
    "panels": panels,
}
import sys
json.dump(dash, open(sys.argv[1], "w"), indent=2, ensure_ascii=False)
open(sys.argv[1], "a").write("\n")
