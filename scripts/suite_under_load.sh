#!/usr/bin/env bash
# The whole test suite, RUNS times in a row (default 5), while HOGS processes (default 2) keep
# the CPUs busy: a test that reads a file or a state before the process writing it has
# finished shows up here long before it shows up in CI. Each run's log is kept in
# tmp/suite-under-load/; the last line is "N runs, N failed" and the exit code is non-zero
# when any run failed.
#
#   bash scripts/suite_under_load.sh [RUNS] [HOGS]
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
hogs=${2:-2}
export NO_COLOR=1
out=tmp/suite-under-load
mkdir -p "$out"
pids=()
stop_hogs() { ((${#pids[@]})) && kill "${pids[@]}" 2>/dev/null; wait 2>/dev/null; }
trap stop_hogs EXIT
for ((i = 0; i < hogs; i++)); do
  # A busy loop in the shell itself: nothing to install, and it yields only to the scheduler.
  (while :; do :; done) &
  pids+=($!)
done
failed_runs=0
for ((run = 1; run <= runs; run++)); do
  log="$out/run-$run.log"
  start=$SECONDS
  ./node_modules/.bin/deno test -A --parallel tests/ >"$log" 2>&1
  rc=$?
  summary=$(grep -E '^(ok|FAILED) \| ' "$log" | tail -1)
  echo "run $run: exit $rc in $((SECONDS - start)) s: ${summary:-no summary}"
  if ((rc != 0)); then
    failed_runs=$((failed_runs + 1))
    # The failing tests' names, as Deno lists them after "ERRORS".
    sed -n '/^ERRORS/,$p' "$log" | grep -E '=> ' | sed 's/^/  /'
  fi
done
echo "$runs runs, $failed_runs failed"
((failed_runs == 0))
