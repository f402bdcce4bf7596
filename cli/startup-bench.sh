#!/usr/bin/env bash
# A benchmark, not a test: how long the launcher's client commands take from start to exit, warm. Prints figures.
#
#   cli/startup-bench.sh [--runs N]
#
# Each command runs once unmeasured (it may build, or write the class-data archive), then N times (default 10):
#   java -version              the floor: a bare JVM start on this machine right now (the host's load shows here)
#   ./sqloop --help            parse, print the generated help, exit
#   ./sqloop status ID --batch one GET to a running gateway
#   ./sqloop submit FILE       a 10-line batch POSTed to it (--resubmit: a new batch each run)
# The gateway is $SQLOOP_GATEWAY_URL when one answers there, else this starts "./sqloop demo --serve" and stops it
# after. Figures: wall seconds (median, min, max) and CPU seconds (user+sys, median) per command, and the load average
# before and after: on a shared 2-core host, compare against the java -version floor of the same run.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS=10
while [ $# -gt 0 ]; do
  case "$1" in
    --runs) RUNS="$2"; shift 2 ;;
    -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "startup-bench: unknown argument $1" >&2; exit 2 ;;
  esac
done
[ -x /usr/bin/time ] || { echo "startup-bench: needs /usr/bin/time (apt-get install time)" >&2; exit 2; }
SQLOOP="$ROOT/sqloop"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/sqloop-startup-bench.XXXXXX")"
DEMO_PID=""
cleanup() {
  if [ -n "$DEMO_PID" ]; then kill "$DEMO_PID" 2>/dev/null || true; wait "$DEMO_PID" 2>/dev/null || true; fi
  rm -rf "$WORK"
}
trap cleanup EXIT

gateway_answers() { curl -fsS -o /dev/null --max-time 2 "$1/v1/datasources" 2>/dev/null; }

GATEWAY="${SQLOOP_GATEWAY_URL:-}"
if [ -z "$GATEWAY" ] || ! gateway_answers "$GATEWAY"; then
  echo "startup-bench: starting ./sqloop demo --serve for a gateway (its log: $WORK/demo.log)..." >&2
  "$SQLOOP" demo --serve --work-dir "$WORK/demo" >"$WORK/demo.log" 2>&1 &
  DEMO_PID=$!
  for _ in $(seq 900); do
    GATEWAY="$(sed -n 's/^serving: gateway \(http[^ ]*\).*/\1/p' "$WORK/demo.log")"
    [ -n "$GATEWAY" ] && break
    kill -0 "$DEMO_PID" 2>/dev/null || { cat "$WORK/demo.log" >&2; echo "startup-bench: the demo stopped" >&2; exit 1; }
    sleep 1
  done
  [ -n "$GATEWAY" ] || { echo "startup-bench: no gateway after 15 min" >&2; exit 1; }
fi
DATASOURCE="$(curl -fsS "$GATEWAY/v1/datasources" | sed -n 's/.*"name" *: *"\([^"]*\)".*/\1/p' | head -1)"
for i in $(seq 10); do
  printf '{"question": "How many orders are there? (%d)", "datasource": "%s"}\n' "$i" "${DATASOURCE:-demo}"
done > "$WORK/ten.jsonl"
JAVA="${SQLOOP_JAVA_HOME:-${JAVA_HOME:-}}"; JAVA="${JAVA:+$JAVA/bin/}java"

# one command N times: "name median min max cpu-median"
measure() {
  local name="$1"; shift
  "$@" >/dev/null 2>"$WORK/err" || { cat "$WORK/err" >&2; echo "startup-bench: '$name' failed" >&2; exit 1; }
  local walls=() cpus=() i
  for i in $(seq "$RUNS"); do
    /usr/bin/time -f "%e %U %S" -o "$WORK/t" "$@" >"$WORK/out" 2>/dev/null
    read -r w u s < "$WORK/t"
    [ -n "${SETTLE:-}" ] && "$SETTLE"
    walls+=("$w"); cpus+=("$(printf '%.2f' "$(echo "$u + $s" | bc)")")
  done
  local sorted cs
  sorted=($(printf '%s\n' "${walls[@]}" | sort -n)); cs=($(printf '%s\n' "${cpus[@]}" | sort -n))
  printf '%-28s %7s %7s %7s %9s\n' "$name" "${sorted[$((RUNS / 2))]}" "${sorted[0]}" "${sorted[$((RUNS - 1))]}" "${cs[$((RUNS / 2))]}"
}

# Each submitted batch makes the demo's pipeline answer 10 questions on the same two cores: the next run waits until
# that batch is done (not timed), or its start would be measured beside the pipeline's work on the last one.
await_batch() {
  local id i
  id="$(tail -1 "$WORK/out")"
  for i in $(seq 300); do
    curl -fsS "$GATEWAY/v1/batches/$id" 2>/dev/null | grep -q '"done" *: *true' && return 0
    sleep 0.2
  done
}

cd "$WORK"
BATCH="$(SQLOOP_GATEWAY_URL="$GATEWAY" "$SQLOOP" submit ten.jsonl 2>/dev/null | tail -1)"
echo "sqloop startup-bench: $RUNS runs each, warm; gateway $GATEWAY; $(nproc) cores; load before $(cut -d' ' -f1-3 /proc/loadavg)"
echo "commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo '?')$(git -C "$ROOT" diff --quiet 2>/dev/null || echo ' (+ uncommitted changes)'), $("$JAVA" -version 2>&1 | head -1)"
printf '%-28s %7s %7s %7s %9s\n' "command (seconds)" "median" "min" "max" "cpu med"
measure "java -version" "$JAVA" -version
measure "./sqloop --help" "$SQLOOP" --help
export SQLOOP_GATEWAY_URL="$GATEWAY"
measure "./sqloop status ID --batch" "$SQLOOP" status "$BATCH" --batch
SETTLE=await_batch measure "./sqloop submit (10 lines)" "$SQLOOP" submit ten.jsonl --resubmit
echo "load after $(cut -d' ' -f1-3 /proc/loadavg)"
