#!/usr/bin/env bash
# FlowServer benchmarks, run by `make bench`: builds what they run (release), then bench.py runs
# every scenario and writes Benchmarks/results/latest.md. See bench.py for the environment
# variables (ROUNDS, DURATION, CONNECTIONS, SCALE).
set -euo pipefail
cd "$(dirname "$0")"
mkdir -p results .build-bench-bin
page=../../shared/notes/bench-page/page.html
if [ ! -f "$page" ]; then  # without shared/, a generated page of the same size
    page=.build-bench-bin/fixed-page.html
    python3 -c 'import sys; body = "<li>FlowServer fixed page</li>" * 67; sys.stdout.write(("<!doctype html><html><body><ul>" + body + "</ul></body></html>")[:2095].ljust(2095))' > "$page"
fi

echo "building the C limit program, the benchmarks, flowserver and the peer (release; the first time takes a while)"
cc -O2 -Wall -o .build-bench-bin/fixed-page-c limit/fixed_page.c $(pkg-config --cflags --libs libmicrohttpd)
# A path dependency's new files are missed by a cached build plan: drop it first. FlowServer's own
# modules are rebuilt from scratch (about half a minute): an incremental release build of the path
# dependency once kept a stale struct layout in a dependent module, and the server crashed.
rm -f .build/release.yaml .build/*/release/description.json
for module in MicroHTTP FlowCore FlowStore MustacheTemplates FlowWeb MoviesDemo FlowStoreSQLite FlowStorePostgres \
    FlowTesting flowserver; do
    rm -rf ".build/release/$module.build" ".build/release/Modules/$module.swiftmodule"
done
# Quiet while it works; on a failure, the end of the build's output says why.
build() {
    local log=.build-bench-bin/build.log
    if ! (cd "$1" && swift build -c release --product "$2") > "$log" 2>&1; then
        echo "building $2 failed; the end of its output ($log):" >&2
        tail -n 40 "$log" >&2
        exit 1
    fi
}
for product in flowserver MicroHTTPFixedPage TemplateBench EngineBench StoreBench SessionMaker PeerData MigrationBench; do
    build . "$product"
done
build Peers HummingbirdPeer

python3 bench.py "$(swift build -c release --show-bin-path)" "$(cd Peers && swift build -c release --show-bin-path)" \
    .build-bench-bin/fixed-page-c "$page"
# Live tabs: pages with 5,000 event streams open, RSS per stream, the time to a waiting stream.
python3 streams.py "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
python3 history.py "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
# Server CPU a page and a step on each store, at 1 and 2 server threads, and PostgreSQL / memory
# (the stores in turn, 5 rounds, medians: a round's ratio spreads over 0.2-0.4 within a run, more
# than issue 42's margins, so three rounds place it no closer than that; Benchmarks/README.md).
ROUNDS="${ROUNDS:-5}" python3 cpu_per_request.py "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
# The same ratios by throughput with PostgreSQL on a core of its own (taskset), and the p99.
python3 pinned_ratio.py "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
# Bounded sessions: a step at the top of a session of 10 and of 1,000 pages, form and API.
python3 step_cost.py "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
# Sessions across a deploy: a read that migrates, and `sessions check` on 100,000 stored sessions.
python3 sessions_check.py "$(swift build -c release --show-bin-path)" "$(cd .. && swift build -c release --show-bin-path)/flowserver" | tee -a results/latest.md
