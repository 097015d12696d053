#!/usr/bin/env bash
# Runs the whole suite in COPIES copies at once on this machine, ROUNDS times in a row, to show
# that no test depends on the machine's load nor on another run's ports, folders or processes.
#
#   tests/copies.sh [COPIES [ROUNDS]]        (default: 3 copies, 3 rounds)
#
# Each copy is a clone of this checkout's HEAD in a folder of its own, run with this checkout's
# virtual environment (its tree first on the path) and its own temporary folder (TMPDIR: pytest's
# folders, the stores, Ray's session folders); every server a test starts (S3, Ray, `traj view`)
# asks the system for a free port on 127.0.0.1. The summary line of every run is printed, with
# its wall time; the script fails if any run fails.
set -uo pipefail
copies=${1:-3}
rounds=${2:-3}
here=$(cd "$(dirname "$0")/.." && pwd)
python=${PYTHON:-$here/.venv/bin/python}
work=$(mktemp -d "${TMPDIR:-/tmp}/traj-copies-XXXXXX")
failed=0
for c in $(seq 1 "$copies"); do
  git clone -q "$here" "$work/copy$c"
  mkdir -p "$work/tmp$c"
done
run_copy() {  # run_copy C: the rounds of copy C, one after the other
  local c=$1 r start
  for r in $(seq 1 "$rounds"); do
    start=$(date +%s)
    (cd "$work/copy$c" && TMPDIR="$work/tmp$c" PYTHONPATH="$work/copy$c" "$python" -m pytest -q -p no:cacheprovider \
      > "$work/copy$c-round$r.log" 2>&1)
    local rc=$?
    echo "copy $c round $r: exit $rc in $(( $(date +%s) - start )) s: $(tail -n 1 "$work/copy$c-round$r.log")"
    [ $rc -eq 0 ] || return 1
  done
}
pids=()
for c in $(seq 1 "$copies"); do run_copy "$c" & pids+=($!); done
for p in "${pids[@]}"; do wait "$p" || failed=1; done
echo "logs: $work"
exit $failed
