#!/usr/bin/env bash
# FlowServer benchmarks, run by `make bench`. Servers of the same scenario are measured
# alternately, in several rounds, so their ratio is taken close in time on this noisy machine;
# each figure is the median of the rounds, with the spread (min–max).
#
# Environment: ROUNDS (default 3), DURATION (wrk seconds, default 10), CONNECTIONS (default 64).
set -euo pipefail
cd "$(dirname "$0")"
ROUNDS=${ROUNDS:-3}
DURATION=${DURATION:-10}
CONNECTIONS=${CONNECTIONS:-64}
results=results
mkdir -p "$results" .build-bench-bin
page=../../shared/notes/bench-page/page.html
if [ ! -f "$page" ]; then  # without shared/, a generated page of the same size
    page=.build-bench-bin/fixed-page.html
    python3 -c 'import sys; body = "<li>FlowServer fixed page</li>" * 67; sys.stdout.write(("<!doctype html><html><body><ul>" + body + "</ul></body></html>")[:2095].ljust(2095))' > "$page"
fi

echo "building the C limit program and the Swift benchmarks (release)"
cc -O2 -Wall -o .build-bench-bin/fixed-page-c limit/fixed_page.c $(pkg-config --cflags --libs libmicrohttpd)
# A path dependency's new files are missed by a cached build plan: drop it first.
rm -f .build/release.yaml .build/*/release/description.json
swift build -c release --product MicroHTTPFixedPage >/dev/null
swift build -c release --product TemplateBench >/dev/null
swift build -c release --product EngineBench >/dev/null
bin=$(swift build -c release --show-bin-path)

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# measure NAME COMMAND...: starts the server on a free port, runs wrk, prints "req/s p50 p99".
measure() {
    shift  # the name is for the reader
    local port; port=$(free_port)
    "$@" "$port" >/dev/null 2>&1 &
    local pid=$!
    for _ in $(seq 50); do (exec 3<>/dev/tcp/127.0.0.1/$port) 2>/dev/null && break; sleep 0.1; done
    wrk -t2 -c"$CONNECTIONS" -d1s "http://127.0.0.1:$port/" >/dev/null 2>&1 || true   # warm-up
    local output; output=$(wrk -t2 -c"$CONNECTIONS" -d"${DURATION}s" --latency "http://127.0.0.1:$port/")
    kill "$pid"; wait "$pid" 2>/dev/null || true
    local rps p50 p99
    rps=$(awk '/Requests\/sec/ {print $2}' <<<"$output")
    p50=$(awk '$1 == "50%" {print $2}' <<<"$output")
    p99=$(awk '$1 == "99%" {print $2}' <<<"$output")
    local errors; errors=$(awk '/Non-2xx|Socket errors/' <<<"$output")
    [ -n "$errors" ] && echo "  warning: $errors" >&2
    echo "$rps $p50 $p99"
}

c_server() { exec .build-bench-bin/fixed-page-c "$1" "$page" 2; }
swift_server() { exec "$bin/MicroHTTPFixedPage" "$1" "$page" 2; }

declare -a c_rps swift_rps c_lat swift_lat
for round in $(seq "$ROUNDS"); do
    read -r rps p50 p99 < <(measure c c_server); c_rps+=("$rps"); c_lat+=("$p50/$p99")
    echo "round $round: C limit          $rps req/s (p50 $p50, p99 $p99)"
    read -r rps p50 p99 < <(measure swift swift_server); swift_rps+=("$rps"); swift_lat+=("$p50/$p99")
    echo "round $round: MicroHTTP (Swift) $rps req/s (p50 $p50, p99 $p99)"
done

python3 - "$results/http.md" "${c_rps[*]}" "${swift_rps[*]}" "${c_lat[*]}" "${swift_lat[*]}" "$CONNECTIONS" "$DURATION" <<'PY'
import statistics, sys
out, c, s, cl, sl, conns, duration = sys.argv[1:]
c = [float(x) for x in c.split()]; s = [float(x) for x in s.split()]
ratios = [b / a for a, b in zip(c, s)]
def row(name, values, lat):
    return f"| {name} | {statistics.median(values):,.0f} | {min(values):,.0f}–{max(values):,.0f} | {lat.split()[len(values)//2]} |"
lines = [
    f"Fixed 2 KB page, wrk -t2 -c{conns} -d{duration}s on 127.0.0.1, {len(c)} alternating rounds (median, spread).",
    "",
    "| scenario | req/s (median) | spread | p50/p99 (median round) |",
    "| --- | --- | --- | --- |",
    row("1. C + libmicrohttpd (limit)", c, cl),
    row("2. MicroHTTP (Swift)", s, sl),
    "",
    f"Ratio 2/1 per round: {', '.join(f'{r:.2f}' for r in ratios)}; median **{statistics.median(ratios):.2f}** (target ≥ 0.85).",
]
open(out, "w").write("\n".join(lines) + "\n")
print("\n".join(lines))
PY

echo
if [ -d ../../shared/notes/bench-page ]; then
    "$bin/TemplateBench" ../../shared/notes/bench-page | tee "$results/templates.md"
else
    echo "shared/notes/bench-page is missing: template benchmark skipped" | tee "$results/templates.md"
fi
echo
"$bin/EngineBench" | tee "$results/engine.md"
cat "$results/http.md" <(echo) "$results/templates.md" <(echo) "$results/engine.md" > "$results/latest.md"
echo
echo "written to Benchmarks/results/latest.md"
