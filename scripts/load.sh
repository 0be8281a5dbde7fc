#!/usr/bin/env bash
# Load test: GET /datasets/{id}/rule on a generated tree, measured
# against a bare net/http handler writing a body of the same size, then again
# while the tree reloads under load. Loopback only; bounded in time; kills
# what it started. docs/performance.md has the figures and how to read them.
#
#   scripts/load.sh                       # 100 000 sources, ~47 MB of YAML
#   SOURCES=10000 DURATION=10 scripts/load.sh
#   SHAPE=pipelines scripts/load.sh       # 100 000 sources in 1 000 apps, ~48 MB
#
# Knobs (environment): SHAPE (apps: few large apps; pipelines: many small ones
# with globs of every kind and depends_on entries between them,
# treegen.GeneratePipelines), SOURCES (100000), APPS (SOURCES/1000 for apps,
# SOURCES/100 for pipelines), DESCRIPTION (225
# bytes of prose a source: the Python baseline's ~470 bytes a source), DURATION
# seconds per throughput run (8), ROUNDS of bare/governanced pairs (5: the
# ratio reported is the median of the rounds' ratios, each from two runs next to
# each other, so a noisy neighbour moves both; each round first drives the bare
# handler sending governanced's response headers with its server timeouts, for
# attribution only),
# CONNS (32), THREADS (1: the
# machine has two cores and the servers need one), RELOADS (4) of each kind,
# INCREMENTAL_DURATION seconds of load around the incremental ones (one app
# changed, SIGHUP, every owner entry moved: 40), RELOAD_DURATION seconds
# around the full ones (every owner entry edited: 90), PORT (28480),
# LOG_LEVEL of governanced (info, as deployed: the reads measured here log at
# debug; debug writes a line for every one of them to the log file),
# SERVE_FLAGS added to governanced serve's (none: for example
# '--max-kept-rule-bytes 128MiB'),
# WORK directory (a new temporary one, removed at the end unless KEEP=1),
# PROFILE directory (unset: none) for CPU profiles of governanced under steady
# load and during the reloads, taken through --debug-addr:
#   go tool pprof -top $PROFILE/governanced $PROFILE/cpu-steady.pprof
set -euo pipefail
cd "$(dirname "$0")/.."

SHAPE=${SHAPE:-apps}
SOURCES=${SOURCES:-100000}
case $SHAPE in
  apps) APPS=${APPS:-$(( SOURCES / 1000 > 0 ? SOURCES / 1000 : 1 ))} ;;
  pipelines) APPS=${APPS:-$(( SOURCES / 100 > 0 ? SOURCES / 100 : 1 ))} ;;
  *) echo "load.sh: SHAPE is apps or pipelines, not $SHAPE" >&2; exit 1 ;;
esac
DESCRIPTION=${DESCRIPTION:-225}
DURATION=${DURATION:-8}
ROUNDS=${ROUNDS:-5}
CONNS=${CONNS:-32}
THREADS=${THREADS:-1}
RELOADS=${RELOADS:-4}
RELOAD_DURATION=${RELOAD_DURATION:-90}
INCREMENTAL_DURATION=${INCREMENTAL_DURATION:-40}
PORT=${PORT:-28480}
BARE_PORT=$((PORT + 1))
HEADERS_PORT=$((PORT + 3)) # PORT + 2 is the profiler's
LOG_LEVEL=${LOG_LEVEL:-info}
WORK=${WORK:-$(mktemp -d /tmp/governanced-load.XXXXXX)}
HOST=127.0.0.1 # loopback only: never point this at another address

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do wait "$p" 2>/dev/null || true; done
  if [ "${KEEP:-0}" != 1 ]; then rm -rf "$WORK"; fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() { printf '%s\n' "$*"; }
die() { say "load.sh: $*" >&2; exit 1; }

if ! command -v wrk >/dev/null; then
  say "installing wrk"
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk) >/dev/null || die "cannot install wrk"
fi
for port in "$PORT" "$BARE_PORT" "$HEADERS_PORT"; do
  if (exec 3<>"/dev/tcp/$HOST/$port") 2>/dev/null; then die "port $port is taken on $HOST; set PORT"; fi
done

say "== machine"
say "nproc: $(nproc)"
say "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')"
free -h | sed -n '1,2p'
say "go: $(go version)"
say "wrk: $(wrk -v 2>&1 | head -1)"

say "== build"
mkdir -p "$WORK/bin"
CGO_ENABLED=0 go build -trimpath -o "$WORK/bin/" ./cmd/governanced ./cmd/gentree ./cmd/barehttp

say "== tree"
"$WORK/bin/gentree" -out "$WORK" -shape "$SHAPE" -sources "$SOURCES" -apps "$APPS" -description "$DESCRIPTION"
TREE=$WORK/tree
IDS=$WORK/ids.txt
FIRST_APP=$(ls "$TREE/apps" | awk 'NR == 1') # awk reads to the end: head would stop ls early, and pipefail
MIDDLE_APP=$(ls "$TREE/apps" | awk -v n="$APPS" 'NR == int(n / 2) + 1')

# rss PID FIELD: a /proc/PID/status memory line in MiB.
rss() { awk -v f="$2:" '$1 == f { printf "%.0f", $2 / 1024 }' "/proc/$1/status"; }

# wait_ready URL SECONDS: poll until 200, bounded.
wait_ready() {
  local deadline=$((SECONDS + $2))
  until curl -fs -o /dev/null "$1"; do
    [ $SECONDS -lt $deadline ] || return 1
    sleep 0.05
  done
}

say "== cold load: governanced serve --tree (check, index, pre-encode) ${SERVE_FLAGS:-}"
GOV=http://$HOST:$PORT
start=$(date +%s.%N)
debug=()
if [ -n "${PROFILE:-}" ]; then
  mkdir -p "$PROFILE"
  cp "$WORK/bin/governanced" "$PROFILE/governanced" # pprof needs the binary for symbols
  debug=(--debug-addr "$HOST:$((PORT + 2))")
fi
# profile NAME SECONDS: a CPU profile of governanced into $PROFILE, in the background.
profile() {
  if [ -n "${PROFILE:-}" ]; then
    curl -s -o "$PROFILE/$1.pprof" "http://$HOST:$((PORT + 2))/debug/pprof/profile?seconds=$2" &
  fi
}
"$WORK/bin/governanced" serve --tree "$TREE" --owners "$TREE/owners.yaml" --overlay-name deploy \
  --addr "$HOST:$PORT" --log-level "$LOG_LEVEL" --rescan-interval 0 "${debug[@]}" ${SERVE_FLAGS:-} >"$WORK/governanced.log" 2>&1 &
gov=$!
pids+=("$gov")
wait_ready "$GOV/readyz" 300 || die "governanced was not ready within 300 s (log: $WORK/governanced.log)"
ready=$(date +%s.%N)
cpu=$(awk '{ printf "%.2f", ($14 + $15) / 100 }' "/proc/$gov/stat")
say "$(awk -v a="$start" -v b="$ready" 'BEGIN { printf "cold load to ready: %.2f s wall", b - a }'), ${cpu} s CPU (user+sys)"
say "load duration (server's own): $(curl -s "$GOV/status" | grep -o '"duration_ms":[0-9.]*' | head -1 | cut -d: -f2) ms"
say "counts: $(curl -s "$GOV/status" | grep -o '"counts":{[^}]*}')"
yaml_bytes=$(find "$TREE" -name '*.yaml' -exec cat {} + | wc -c)
say "yaml bytes: $yaml_bytes"
cold_peak=$(rss "$gov" VmHWM)
say "COLD peak_rss=${cold_peak}MiB ratio_to_yaml=$(awk -v p="$cold_peak" -v y="$yaml_bytes" 'BEGIN { printf "%.2f", p * 1048576 / y }') (target <= 5.00)"

# One app's base file edited, a literal source appended, then SIGHUP (the
# watcher would too, after its debounce): how long until the new key is
# served as an exact match, reading another dataset meanwhile.
edited=$TREE/apps/$MIDDLE_APP/governance.yaml
cp "$edited" "$WORK/edited.bak"
new_key="datasets.appended.z_${MIDDLE_APP}_edit"
printf '  %s:\n    title: appended\n' "$new_key" >>"$edited"
probe=$(head -n 1 "$IDS")
t0=$(date +%s.%N)
kill -HUP "$gov"
reads=0 failed=0
until curl -fs -o "$WORK/edited.json" "$GOV/datasets/$new_key/rule" && grep -q '"kind":"exact"' "$WORK/edited.json"; do
  code=$(curl -s -o /dev/null -w '%{http_code}' "$GOV/datasets/$probe/rule")
  reads=$((reads + 1))
  [ "$code" = 200 ] || failed=$((failed + 1))
  [ "$(awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { print (b - a > 120) }')" = 0 ] || die "the edited app was not served within 120 s"
done
t1=$(date +%s.%N)
say "EDIT one app (a literal source appended) until served: $(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.3f", b - a }') s (target < 1), reads meanwhile $reads, failed $failed; $(curl -s "$GOV/status" | grep -o '"units_[a-z]*":[0-9]*' | tr '\n' ' ')"
cp "$WORK/edited.bak" "$edited"
kill -HUP "$gov"
sleep 1

# The bare handler's body is the size of a typical rule response.
size=$(head -n 2000 "$IDS" | awk 'NR % 4 == 1' | while read -r id; do
  curl -s -o /dev/null -w '%{size_download}\n' "$GOV/datasets/$id/rule"
done | awk '{ s += $1; n++ } END { printf "%d", s / n }')
say "typical rule body: $size bytes"
"$WORK/bin/barehttp" -addr "$HOST:$BARE_PORT" -size "$size" &
bare=$!
pids+=("$bare")
wait_ready "http://$HOST:$BARE_PORT/" 10 || die "barehttp did not start"
# A second yardstick, for attribution only: the bare handler sending the
# response headers governanced sends on a rule (the revision, ETag,
# Cache-Control, a request id) from a server with governanced's timeouts (their
# deadlines are set on every request), so the report can say how much of the
# gap is what any server answering like governanced pays and how much is
# governanced's handler. The target is the ratio to the plain bare handler
# above.
headers=()
while IFS= read -r line; do
  headers+=(-header "$line")
done < <(curl -s -D - -o /dev/null "$GOV/datasets/$(head -n 1 "$IDS")/rule" | tr -d '\r' |
  grep -iE '^(etag|cache-control|governance-revision|x-request-id):')
[ "${#headers[@]}" -eq 8 ] || die "expected 4 headers of a rule response to copy, got $(( ${#headers[@]} / 2 ))"
"$WORK/bin/barehttp" -addr "$HOST:$HEADERS_PORT" -size "$size" -timeouts "${headers[@]}" &
bare_headers=$!
pids+=("$bare_headers")
wait_ready "http://$HOST:$HEADERS_PORT/" 10 || die "barehttp with headers did not start"

cat >"$WORK/rule.lua" <<'LUA'
-- Picks a dataset name from ids.txt for each request (nine exact names to one
-- that only a glob matches) and prints one machine-readable line at the end.
local ids = {}
for line in io.lines(os.getenv("IDS")) do ids[#ids + 1] = line end
math.randomseed(os.time())
request = function()
  return wrk.format("GET", "/datasets/" .. ids[math.random(#ids)] .. "/rule")
end
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "RESULT rps=%.0f requests=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d non2xx=%d socket_errors=%d\n",
    summary.requests / summary.duration * 1e6, summary.requests,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.status, e.connect + e.read + e.write + e.timeout))
end
LUA

# drive URL SECONDS: one wrk run; prints its RESULT line.
drive() {
  IDS=$IDS timeout $(( $2 + 30 )) wrk -t"$THREADS" -c"$CONNS" -d"$2s" --timeout 5s -s "$WORK/rule.lua" "$1" | grep '^RESULT' || die "wrk failed against $1"
}
field() { sed -n "s/.*[ ]$2=\([0-9.]*\).*/\1/p" <<<"$1"; }

say "== throughput: $ROUNDS rounds of ${DURATION}s, $CONNS connections, $THREADS wrk thread(s)"
drive "$GOV" 3 >/dev/null # warm both: connections, caches, the JIT-free but page-faulting first requests
drive "http://$HOST:$BARE_PORT" 3 >/dev/null
drive "http://$HOST:$HEADERS_PORT" 3 >/dev/null
: >"$WORK/rounds"
for r in $(seq "$ROUNDS"); do
  # The attribution run first, so that the target's pair stays next to each other.
  h=$(drive "http://$HOST:$HEADERS_PORT" "$DURATION")
  b=$(drive "http://$HOST:$BARE_PORT" "$DURATION")
  g=$(drive "$GOV" "$DURATION")
  say "round $r bare+headers+timeouts: $h"
  say "round $r bare:                  $b"
  say "round $r governanced:           $g"
  echo "$(field "$b" rps) $(field "$g" rps) $(field "$g" p99_us) $(field "$h" rps)" >>"$WORK/rounds"
done
kill "$bare" "$bare_headers" 2>/dev/null || true
if [ -n "${PROFILE:-}" ]; then
  # An extra run, outside the measured rounds: profiling costs a little.
  profile cpu-steady $((DURATION - 2))
  drive "$GOV" "$DURATION" >/dev/null
fi
# median: the median of the lines on standard input, by their first number.
median() { sort -g | awk -v n="$ROUNDS" 'NR == int((n + 1) / 2)'; }
# The median round by ratio; the steady p99 is the median of the rounds' p99s.
sort -k1,1g <(awk '{ printf "%.4f %s %s %s\n", $2 / $1, $1, $2, $3 }' "$WORK/rounds") >"$WORK/ratios"
read -r ratio bare_rps gov_rps _ <<<"$(median <"$WORK/ratios")"
steady_p99=$(awk '{ print $3 }' "$WORK/rounds" | median)
say "THROUGHPUT median round: bare=${bare_rps%.*} rps governanced=${gov_rps%.*} rps ratio=$ratio (target >= 0.75); all ratios: $(awk '{ printf "%.2f ", $1 }' "$WORK/ratios")"
say "steady p99 (median of the rounds): ${steady_p99} us"
say "attribution: governanced / bare with governanced's response headers and timeouts, median of the rounds: $(awk '{ printf "%.2f\n", $2 / $4 }' "$WORK/rounds" | median); bare with those headers and timeouts / bare: $(awk '{ printf "%.2f\n", $4 / $1 }' "$WORK/rounds" | median) (not targets)"

# reload_window KIND SECONDS: up to $RELOADS reloads of one kind under
# SECONDS of load, then one RELOAD line. KIND is
#   incremental: what git-sync delivers, one app's file changed; the
#     operator's SIGHUP with nothing changed; a line added above every owner
#     entry: only changed units are rebuilt;
#   full: every owner entry edited in the owners registry, which every unit
#     asks: every unit is checked and rebuilt, the cost of a cold load on one
#     niced thread.
reload_window() {
  local kind=$1 seconds=$2
  say "== reload under load ($kind): up to $RELOADS reloads in ${seconds}s of load"
  sleep 2
  local before_ok after_ok done_reloads=0 load res
  before_ok=$(curl -s "$GOV/metrics" | awk '/^governanced_reloads_total\{result="ok"\}/ { print $2 }')
  IDS=$IDS timeout $(( seconds + 30 )) wrk -t"$THREADS" -c"$CONNS" -d"${seconds}s" --timeout 5s \
    -s "$WORK/rule.lua" "$GOV" >"$WORK/reload-$kind-wrk.out" &
  load=$!
  pids+=("$load")
  profile "cpu-reloads-$kind" $(( seconds - 10 ))
  for i in $(seq "$RELOADS"); do
    kill -0 "$load" 2>/dev/null || break
    sleep 2
    local before deadline
    before=$(curl -s "$GOV/status" | grep -o '"at":"[^"]*"' | head -1)
    if [ "$kind" = full ]; then
      # Every owner's name edited, back and forth: every app names an owner,
      # so every app's answers from the registry change and every unit is
      # checked and built again.
      # (Only the names: an owner's type is schema:Organization.)
      if (( i % 2 )); then
        sed -i 's/^\( *name: .*\)Organisation/\1Organization/' "$TREE/owners.yaml"
      else
        sed -i 's/^\( *name: .*\)Organization/\1Organisation/' "$TREE/owners.yaml"
      fi
    elif (( i % 3 == 1 )); then
      # The watcher debounces and reloads.
      printf '# reload %d under load\n' "$i" >>"$TREE/apps/$FIRST_APP/governance.yaml"
    elif (( i % 3 == 2 )); then
      kill -HUP "$gov"
    else
      # A line above every owner entry moves them all; what they say is the
      # same, so nothing is rebuilt.
      sed -i "1i # reload $i under load" "$TREE/owners.yaml"
    fi
    deadline=$((SECONDS + 60))
    while [ $SECONDS -lt $deadline ] && [ "$(curl -s "$GOV/status" | grep -o '"at":"[^"]*"' | head -1)" = "$before" ]; do
      sleep 0.1
    done
    done_reloads=$((done_reloads + 1))
  done
  wait "$load" || true
  after_ok=$(curl -s "$GOV/metrics" | awk '/^governanced_reloads_total\{result="ok"\}/ { print $2 }')
  res=$(grep '^RESULT' "$WORK/reload-$kind-wrk.out" || die "wrk failed during the $kind reloads")
  say "during $kind reloads: $res"
  say "reload log lines: $(grep -c '"message":"snapshot activated"' "$WORK/governanced.log") activations in all; the last: $(grep '"message":"snapshot activated"' "$WORK/governanced.log" | tail -1 | grep -o '"duration":[0-9.]*\|"units_reused":[0-9]*\|"units_built":[0-9]*\|"units_resolved":[0-9]*' | tr '\n' ' ')"
  awk -v k="$kind" -v p="$(field "$res" p99_us)" -v s="$steady_p99" -v n2="$(field "$res" non2xx)" -v se="$(field "$res" socket_errors)" \
    -v ok="$(( ${after_ok%.*} - ${before_ok%.*} ))" -v tried="$done_reloads" 'BEGIN {
    printf "RELOAD %s reloads=%d/%d failed_requests=%d p99_steady=%dus p99_during=%dus ratio=%.2f (target <= 2.00)\n", k, ok, tried, n2 + se, s, p, p / s }'
}

sleep 2
steady_rss=$(rss "$gov" VmRSS)
echo 5 >"/proc/$gov/clear_refs" 2>/dev/null || say "(cannot reset VmHWM: the peak below includes the cold load)"
reload_window incremental "$INCREMENTAL_DURATION"
reload_window full "$RELOAD_DURATION"
peak_rss=$(rss "$gov" VmHWM)
awk -v rs="$steady_rss" -v pk="$peak_rss" -v y="$yaml_bytes" 'BEGIN {
  printf "MEMORY steady_rss=%dMiB (%.1fx the YAML) peak_rss_during_reloads=%dMiB (%.1fx the YAML, target <= 5) ratio_to_steady=%.2f (target <= 2.00)\n", rs, rs * 1048576 / y, pk, pk * 1048576 / y, pk / rs }'
