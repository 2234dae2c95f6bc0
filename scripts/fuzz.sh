#!/usr/bin/env bash
# Coverage-guided fuzzing of the parsers (Fuzz/, libFuzzer): builds the harnesses with
# AddressSanitizer and coverage into .build-fuzz, replays every crash input kept in
# Fuzz/Regressions/<harness>/, then fuzzes each harness for SECONDS from its corpus
# (Fuzz/Corpus/<harness>/), and prints executions per second and edges covered.
#   scripts/fuzz.sh SECONDS          (make test: 20 s each; new inputs go to a temporary folder)
#   scripts/fuzz.sh SECONDS --merge  (make fuzz: what adds coverage, and runs within 1 s, is merged
#                                     into Fuzz/Corpus)
# A crash, a leak or an input slower than 10 s (mustache: 30 s) fails the run; its input is kept in
# Fuzz/artifacts/ to add to Fuzz/Regressions/<harness>/ once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
merge=${2:-}
harnesses=(request-target forms cookies media-types wire-step json mustache)

# libFuzzer without its main: flowfuzz's own main picks the harness and runs libFuzzer's driver
# (SwiftPM links an executable's main under another name, which libFuzzer's main would clash with).
toolchain=$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")
runtime=$(find "$toolchain/lib/clang" -name "libclang_rt.fuzzer_no_main-$(uname -m).a" | head -1)
[ -n "$runtime" ] || { echo "error: libFuzzer (libclang_rt.fuzzer_no_main) not found under $toolchain/lib/clang" >&2; exit 1; }
FLOWSERVER_FUZZ=1 swift build --scratch-path .build-fuzz --product flowfuzz \
    -Xswiftc -sanitize=address -Xswiftc -sanitize-coverage=edge,inline-8bit-counters,pc-table,trace-cmp \
    -Xlinker "$runtime" -Xlinker -lstdc++ 2>&1 | grep -v "Cannot export local symbol" || true
binary=.build-fuzz/debug/flowfuzz
[ -x "$binary" ] || { echo "error: flowfuzz did not build" >&2; exit 1; }
export SWIFT_BACKTRACE=enable=no  # Swift's backtracer and AddressSanitizer do not mix

mkdir -p Fuzz/artifacts
status=0
printf '%-15s %12s %10s %8s\n' harness executions exec/s edges
for harness in "${harnesses[@]}"; do
    export FUZZ_HARNESS=$harness
    if compgen -G "Fuzz/Regressions/$harness/*" >/dev/null; then
        if ! "$binary" Fuzz/Regressions/$harness/* >"Fuzz/artifacts/$harness-regressions.log" 2>&1; then
            echo "$harness: a kept crash input fails again (Fuzz/artifacts/$harness-regressions.log)"; status=1; continue
        fi
    fi
    work=$(mktemp -d)
    log=Fuzz/artifacts/$harness.log
    # A template that includes itself once per list item runs until the renderer's bounds on its
    # work and output end it: in this build, up to 9 s on a slow host (a 4 KB template whose every
    # name is searched a hundred contexts deep; 52 ms in the release build). So a mustache input
    # may take 30 s before it counts as a hang.
    timeout=10
    [ "$harness" = mustache ] && timeout=30
    if ! "$binary" -max_total_time="$seconds" -timeout=$timeout -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
        -artifact_prefix="Fuzz/artifacts/$harness-" "$work" "Fuzz/Corpus/$harness" >"$log" 2>&1; then
        echo "$harness: FOUND A FAILURE — the input is in Fuzz/artifacts/, the report in $log:"
        grep -E "ERROR|Fatal error|Precondition failed|failed:|timeout" "$log" | head -5
        status=1
    fi
    executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log")
    speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log")
    edges=$(grep -oE 'cov: [0-9]+' "$log" | tail -1 | cut -d' ' -f2)
    printf '%-15s %12s %10s %8s\n' "$harness" "${executions:-?}" "${speed:-?}" "${edges:-?}"
    if [ "$merge" = "--merge" ]; then
        # An input slower than 1 s stays out: make test replays the whole corpus within its 20 s
        # (a template that includes itself, say, runs to the renderer's budget in seconds here).
        "$binary" -merge=1 -timeout=1 -artifact_prefix="Fuzz/artifacts/$harness-merge-" \
            "Fuzz/Corpus/$harness" "$work" >"Fuzz/artifacts/$harness-merge.log" 2>&1
    fi
    rm -rf "$work"
done
exit $status
