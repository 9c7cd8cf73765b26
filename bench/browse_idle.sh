#!/bin/bash
# Idle is idle: `reader browse swapi/people` on a 10,000-row collection (bench server:
# `--people-pages 1000 --people-films 0`), in tmux at 80×24, left alone once the table is shown;
# the CPU time the process used over SECONDS (utime + stime from /proc/PID/stat), as a share
# of one core.
#
#   bench/browse_idle.sh READER BENCH_SERVER [SECONDS]
#
# READER is the built `reader`; BENCH_SERVER the built ReaderBenchServer. Everything it starts
# is stopped at the end; the cache and config are in a folder of their own, removed then.
set -euo pipefail
reader=$1 server=$2 seconds=${3:-30}
work=$(mktemp -d)
socket="$work/tmux"
server_pid=
cleanup() {
    tmux -S "$socket" kill-server 2>/dev/null || true
    [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

"$server" --people-pages 1000 --people-films 0 > "$work/port" &
server_pid=$!
for _ in $(seq 100); do [ -s "$work/port" ] && break; sleep 0.1; done
port=$(head -1 "$work/port")

tmux -S "$socket" -f /dev/null new-session -d -x 80 -y 24 \
    "exec env HOME=$work XDG_CONFIG_HOME=$work/config READER_CACHE_PATH=$work/cache.sqlite \
     READER_SWAPI_URL=http://127.0.0.1:$port/api TERM=screen $reader browse swapi/people"
pid=$(tmux -S "$socket" display -p '#{pane_pid}')

# The whole collection read (1,000 pages) and drawn: the bottom line counts it.
for _ in $(seq 3000); do
    tmux -S "$socket" capture-pane -p | grep -q 'swapi/people · 10000 people' && break
    sleep 0.1
done
tmux -S "$socket" capture-pane -p | grep -q 'swapi/people · 10000 people' || { echo "the table never came" >&2; exit 1; }
sleep 2

ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hertz=$(getconf CLK_TCK)
before=$(ticks)
start=$(date +%s.%N)
sleep "$seconds"
after=$(ticks)
end=$(date +%s.%N)
awk -v used="$((after - before))" -v hz="$hertz" -v from="$start" -v to="$end" 'BEGIN {
    wall = to - from; cpu = used / hz
    printf "{\"cpu_seconds\": %.2f, \"wall_seconds\": %.1f, \"percent_of_a_core\": %.2f}\n", cpu, wall, 100 * cpu / wall
}'
