#!/usr/bin/env bash
# Checks packaging/monitoring/: the alert rules pass `promtool check rules`, every dashboard
# query parses as PromQL, and every metric name either file uses is a family gridftpd really
# exports, so a renamed or misspelled metric cannot leave a silently empty panel or an alert
# that never fires.
#
# Usage: tests/package/test_monitoring.sh [BUILD_DIR]
#   With BUILD_DIR (e.g. build/release), the exported families come from a live scrape of
#   BUILD_DIR/gridftpd (started here on loopback with anonymous access and metrics on, stopped
#   by its PID); without it, from the family() calls in protocol/metrics/metric_cells.cpp.
# Needs promtool and python3 with PyYAML. Exits 1 with a message on any failure.
set -euo pipefail

build_dir=
if [[ $# -ge 1 ]]; then
  # Resolved before the cd below, so a path relative to the caller's directory works.
  build_dir=$(realpath "$1")
fi
cd "$(dirname "$0")/../.."

alerts=packaging/monitoring/gridftpd-alerts.yml
dashboard=packaging/monitoring/gridftpd-dashboard.json
work=$(mktemp -d /tmp/gridftpd-monitoring-XXXXXX)
server_pid=

cleanup() {
  if [[ -n $server_pid ]] && kill -0 "$server_pid" 2> /dev/null; then
    kill "$server_pid"
    wait "$server_pid" 2> /dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT

die() {
  echo "FAIL: $*" >&2
  exit 1
}

command -v promtool > /dev/null || die "promtool not found (Debian: apt-get install prometheus)"

echo "== promtool check rules $alerts"
promtool check rules "$alerts" || die "$alerts does not pass promtool check rules"

# The dashboard's queries as recording rules, so promtool's PromQL parser checks them too;
# Grafana's variables get values Prometheus accepts.
echo "== dashboard queries parse as PromQL"
python3 - "$dashboard" > "$work/dashboard-rules.yml" << 'PY' || die "cannot read $dashboard"
import json, sys
dash = json.load(open(sys.argv[1]))
exprs = [t["expr"] for p in dash["panels"] for t in p.get("targets", []) if t.get("expr")]
if not exprs:
    sys.exit("no PromQL expressions in the dashboard")
print("groups:\n  - name: dashboard\n    rules:")
for i, e in enumerate(exprs):
    e = e.replace("$__rate_interval", "5m").replace("$instance", ".*")
    print(f"      - record: dashboard:query_{i}\n        expr: {json.dumps(e)}")
PY
# The rules file is removed on exit, so promtool's own words are what the failure shows.
promtool check rules "$work/dashboard-rules.yml" > "$work/promtool.out" 2>&1 \
  || die "a dashboard query does not parse as PromQL:
$(cat "$work/promtool.out")"

# The metric names the server exports, one a line (histograms with their _bucket/_sum/_count
# sample names).
if [[ -n $build_dir ]]; then
  echo "== exported families from a live scrape of $build_dir/gridftpd"
  [[ -x $build_dir/gridftpd ]] || die "$build_dir/gridftpd is not an executable"
  mkdir -p "$work/root"
  chmod 755 "$work" "$work/root"
  # Port 0 for both: the server logs the ports it got, so no free port has to be guessed.
  cat > "$work/gridftpd.toml" << TOML
[listen]
control_interface = "127.0.0.1"
port = 0
[anonymous]
enabled = true
root = "$work/root"
account = "nobody"
[metrics]
enabled = true
address = "127.0.0.1"
port = 0
TOML
  # Created first: the poll below may read it before the server's redirection opens it.
  : > "$work/gridftpd.log"
  "$build_dir/gridftpd" -c "$work/gridftpd.toml" > "$work/gridftpd.log" 2>&1 &
  server_pid=$!
  metrics_port=
  for _ in $(seq 50); do
    metrics_port=$(sed -n 's/.*metrics on 127\.0\.0\.1 port \([0-9]*\).*/\1/p' "$work/gridftpd.log")
    [[ -n $metrics_port ]] && break
    kill -0 "$server_pid" 2> /dev/null || break
    sleep 0.2
  done
  [[ -n $metrics_port ]] || die "gridftpd did not report its metrics port; its log:
$(cat "$work/gridftpd.log")"
  curl -fsS "http://127.0.0.1:$metrics_port/metrics" > "$work/scrape.txt" \
    || die "scrape of http://127.0.0.1:$metrics_port/metrics failed"
  kill "$server_pid"
  wait "$server_pid" 2> /dev/null || true
  server_pid=
  # "# TYPE name type" names every family, even one with no samples yet (error replies).
  awk '$1 == "#" && $2 == "TYPE" {
         print $3
         if ($4 == "histogram") { print $3 "_bucket"; print $3 "_sum"; print $3 "_count" }
       }' "$work/scrape.txt" > "$work/exported.txt"
else
  echo "== exported families from protocol/metrics/metric_cells.cpp"
  python3 - protocol/metrics/metric_cells.cpp > "$work/exported.txt" << 'PY'
import re, sys
src = open(sys.argv[1]).read()
# Names given through a string_view constant (the throughput histogram's).
consts = dict(re.findall(r'std::string_view\s+(\w+)\s*=\s*"([^"]+)"', src))
for arg, kind in re.findall(r'family\(out,\s*("[^"]+"|\w+),\s*"(\w+)"', src):
    name = arg.strip('"') if arg.startswith('"') else consts[arg]
    print(name)
    if kind == "histogram":
        for suffix in ("_bucket", "_sum", "_count"):
            print(name + suffix)
PY
fi
grep -q '^gridftpd_' "$work/exported.txt" || die "found no exported gridftpd_ families"
echo "   $(grep -vc '_bucket$\|_sum$\|_count$' "$work/exported.txt") families"

# Every metric name in every expression of both files must be exported. `up` is the series
# Prometheus itself writes per scrape target, so it is allowed too.
echo "== metric names used by the alerts and the dashboard"
python3 - "$alerts" "$dashboard" "$work/exported.txt" << 'PY'
import json, re, sys
import yaml

alerts_path, dashboard_path, exported_path = sys.argv[1:]
exported = set(open(exported_path).read().split()) | {"up"}
keywords = {"and", "or", "unless", "bool", "offset", "inf", "nan"}

def metric_names(expr):
    e = re.sub(r'"(?:[^"\\]|\\.)*"', '""', expr)            # string literals
    e = re.sub(r'\{[^}]*\}', '', e)                          # label matchers
    e = re.sub(r'\[[^\]]*\]', '', e)                         # range selectors
    e = re.sub(r'\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)', '', e)
    e = re.sub(r'\$\{?\w+\}?', '', e)                        # Grafana variables
    e = re.sub(r'(?<![\w:])\d+(\.\d+)?([eE][+-]?\d+)?', '', e)  # numbers
    names = []
    for m in re.finditer(r'[A-Za-z_:][A-Za-z0-9_:]*', e):
        if m.group(0) in keywords or e[m.end():].lstrip().startswith("("):
            continue                                         # keyword or function
        names.append(m.group(0))
    return names

uses = []  # (where, expression)
for group in yaml.safe_load(open(alerts_path))["groups"]:
    for rule in group["rules"]:
        uses.append((f"{alerts_path}: {rule.get('alert') or rule.get('record')}", str(rule["expr"])))
dash = json.load(open(dashboard_path))
for panel in dash["panels"]:
    for target in panel.get("targets", []):
        if target.get("expr"):
            uses.append((f"{dashboard_path}: panel {panel['title']!r}", target["expr"]))
for var in dash.get("templating", {}).get("list", []):
    query = var.get("query")
    query = query.get("query", "") if isinstance(query, dict) else (query or "")
    m = re.match(r'\s*label_values\(\s*([^,)]+)', query)
    if m and "," in query:                                   # label_values(metric, label)
        uses.append((f"{dashboard_path}: variable {var['name']}", m.group(1)))

bad, seen_per_file = [], {alerts_path: set(), dashboard_path: set()}
for where, expr in uses:
    names = metric_names(expr)
    if not names:
        bad.append(f"{where}: no metric name found in {expr!r}")
    for name in names:
        seen_per_file[where.split(":")[0]].add(name)
        if name not in exported:
            bad.append(f"{where}: {name} is not exported by gridftpd")
for path, seen in seen_per_file.items():
    if not any(n.startswith("gridftpd_") for n in seen):
        bad.append(f"{path}: uses no gridftpd_ metric at all")
    print(f"   {path}: {', '.join(sorted(seen))}")
for line in bad:
    print("FAIL:", line, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
echo "PASS: monitoring rules and dashboard use only exported metrics"
