#!/usr/bin/env bash
# listserver vs nginx on the same published files, same headers, loopback only.
#   scripts/bench/serve.sh            (env: ROUNDS=3 DURATION=5 CONNS="1 64 512" WRK_CPU=1
#                                      LISTSERVER_BIN=path to bench a prebuilt binary instead of building)
# Baseline mode: today's listserver against another build of it instead of nginx, alternating in
# the same run over one published set (the baseline serves a byte-for-byte copy of the set and state
# today's build published, so neither can rewrite the other's files):
#   BASELINE=390061d scripts/bench/serve.sh          (builds that revision in a temporary worktree)
#   BASELINE_BIN=path/to/listserver scripts/bench/serve.sh
# 1. builds listserver in release, 2. publishes the bundled 2025-10 snapshot with `listserver serve`
# (cold start), restarts it warm so RSS reflects serving only, 3. starts nginx (2 workers,
# gzip_static, scripts/bench/nginx-serve.conf.template) over the same public dir, 4. runs wrk
# pinned to one CPU with taskset, alternating listserver/nginx ROUNDS times per cell, for:
# manifest 200 (Accept-Encoding: gzip), manifest 304 (If-None-Match), the largest gzip chunk,
# and a 404. Prints median req/s and p99 per cell, the listserver/nginx ratio, and listserver RSS.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
ROUNDS="${ROUNDS:-3}"
DURATION="${DURATION:-5}"
CONNS="${CONNS:-1 64 512}"
WRK_CPU="${WRK_CPU:-1}"
SCRATCH="${SCRATCH:-$ROOT/.build-http}"
for tool in wrk taskset curl; do
  command -v "$tool" >/dev/null || { echo "$0: $tool not found (apt-get install -y nginx wrk util-linux curl)" >&2; exit 1; }
done

if [[ -n "${LISTSERVER_BIN:-}" ]]; then
  BIN="$LISTSERVER_BIN"
else
  echo "== building listserver (release)"
  # Retried: other engineers may be editing sources while this compiles.
  for attempt in 1 2 3 4; do
    if swift build -c release --static-swift-stdlib --product listserver --scratch-path "$SCRATCH" --package-path "$ROOT" >"/tmp/listserver-bench-build.log" 2>&1; then break; fi
    [[ $attempt == 4 ]] && { tail -20 /tmp/listserver-bench-build.log >&2; exit 1; }
    sleep 15
  done
  BIN="$SCRATCH/release/listserver"
fi
if [[ -z "${BASELINE_BIN:-}" && -n "${BASELINE:-}" ]]; then
  echo "== building listserver at $BASELINE (release)"
  base_tree="$(mktemp -d /tmp/listserver-bench-base.XXXXXX)"
  git -C "$ROOT" worktree add --detach "$base_tree/src" "$BASELINE" >/dev/null
  swift build -c release --static-swift-stdlib --product listserver --scratch-path "$SCRATCH-baseline" --package-path "$base_tree/src" \
    >"/tmp/listserver-bench-base-build.log" 2>&1 || { tail -20 /tmp/listserver-bench-base-build.log >&2; exit 1; }
  git -C "$ROOT" worktree remove --force "$base_tree/src" >/dev/null 2>&1 || true
  rm -rf "$base_tree"
  BASELINE_BIN="$SCRATCH-baseline/release/listserver"
fi
OTHER="nginx"
[[ -n "${BASELINE_BIN:-}" ]] && OTHER="baseline"
[[ $OTHER == nginx ]] && { command -v nginx >/dev/null || { echo "$0: nginx not found (apt-get install -y nginx)" >&2; exit 1; }; }

work="$(mktemp -d /tmp/listserver-bench-serve.XXXXXX)"
chmod 755 "$work"
ls_pid=""
nginx_pid=""
base_pid=""
cleanup() {
  [[ -n "$ls_pid" ]] && kill "$ls_pid" 2>/dev/null || true
  [[ -n "$nginx_pid" ]] && kill "$nginx_pid" 2>/dev/null || true
  [[ -n "$base_pid" ]] && kill "$base_pid" 2>/dev/null || true
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

free_port() { "${PYTHON:-python3}" -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
LS_PORT="$(free_port)"
NGINX_PORT="$(free_port)"
cat > "$work/config.json" <<JSON
{"publicDir": "public", "stateDir": "state",
 "listen": {"address": "127.0.0.1", "port": $LS_PORT},
 "upstreams": [
  {"id": "easylist", "url": "http://127.0.0.1:9/easylist.txt", "snapshot": "$ROOT/snapshot/easylist.txt"},
  {"id": "easyprivacy", "url": "http://127.0.0.1:9/easyprivacy.txt", "snapshot": "$ROOT/snapshot/easyprivacy.txt"}],
 "refresh": {"intervalSeconds": 86400, "attempts": 1},
 "publish": {"verifyWithWebKit": "off"}}
JSON

wait_healthy() { # port log
  for _ in $(seq 1 300); do
    if [[ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$1/healthz")" == 200 ]]; then return 0; fi
    sleep 0.2
  done
  echo "$0: listserver on port $1 did not become healthy; log:" >&2
  tail -20 "$2" >&2
  exit 1
}
start_listserver() {
  "$BIN" serve --config "$work/config.json" >"$work/listserver.out" 2>"$work/listserver.err" &
  ls_pid=$!
  wait_healthy "$LS_PORT" "$work/listserver.err"
}
echo "== publishing the bundled snapshot (cold start)"
start_listserver
kill -TERM "$ls_pid"; wait "$ls_pid" || true
echo "== restarting listserver warm (serves the published set from disk)"
start_listserver

if [[ $OTHER == nginx ]]; then
  sed -e "s|__ROOT__|$work/public|g" -e "s|__PORT__|$NGINX_PORT|g" -e "s|__WORK__|$work|g" \
    "$ROOT/scripts/bench/nginx-serve.conf.template" > "$work/nginx.conf"
  nginx -c "$work/nginx.conf" -p "$work" &
  nginx_pid=$!
  for _ in $(seq 1 50); do
    curl -s -o /dev/null "http://127.0.0.1:$NGINX_PORT/manifest.json" && break
    sleep 0.1
  done
else
  echo "== starting the baseline listserver over a copy of the same published set and state"
  cp -a "$work/public" "$work/base-public"
  cp -a "$work/state" "$work/base-state"
  sed -e "s|\"publicDir\": \"public\"|\"publicDir\": \"base-public\"|" -e "s|\"stateDir\": \"state\"|\"stateDir\": \"base-state\"|" \
    -e "s|\"port\": $LS_PORT|\"port\": $NGINX_PORT|" "$work/config.json" > "$work/base-config.json"
  "$BASELINE_BIN" serve --config "$work/base-config.json" >"$work/base.out" 2>"$work/base.err" &
  base_pid=$!
  wait_healthy "$NGINX_PORT" "$work/base.err"
fi

# The largest published gzip chunk.
chunk_gz="$(ls -S "$work/public/"*.json.gz | head -1)"
chunk="$(basename "${chunk_gz%.gz}")"
echo "chunk: $chunk ($(stat -c %s "$chunk_gz") bytes gzip, $(stat -c %s "$work/public/$chunk") identity)"
# listserver derives the manifest's gzip representation in memory; give nginx the very same bytes
# as a gzip_static sibling so both send the same representation.
if [[ $OTHER == nginx && ! -f "$work/public/manifest.json.gz" ]]; then
  curl -s -H 'Accept-Encoding: gzip' -o "$work/public/manifest.json.gz" "http://127.0.0.1:$LS_PORT/manifest.json"
fi
echo "manifest: $(stat -c %s "$work/public/manifest.json") bytes identity, $(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$LS_PORT/manifest.json" | wc -c) gzip"
etag_of() { curl -s -D - -o /dev/null -H 'Accept-Encoding: gzip' "$1" | tr -d '\r' | sed -n 's/^[Ee][Tt][Aa][Gg]: //p'; }
LS_ETAG="$(etag_of "http://127.0.0.1:$LS_PORT/manifest.json")"
NG_ETAG="$(etag_of "http://127.0.0.1:$NGINX_PORT/manifest.json")"

# Sanity: same bytes from both.
for path in manifest.json "$chunk"; do
  a="$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$LS_PORT/$path" | sha256sum)"
  b="$(curl -s -H 'Accept-Encoding: gzip' "http://127.0.0.1:$NGINX_PORT/$path" | sha256sum)"
  [[ "$a" == "$b" ]] || { echo "$0: $path differs between listserver and $OTHER" >&2; exit 1; }
done

rss_max=0
sample_rss() {
  local kb
  kb="$(awk '/^VmRSS/ {print $2}' "/proc/$ls_pid/status" 2>/dev/null || echo 0)"
  (( kb > rss_max )) && rss_max=$kb
  true
}
run_wrk() { # server port conns path extra-header...
  local port="$1" conns="$2" path="$3"; shift 3
  local args=()
  for header in "$@"; do args+=(-H "$header"); done
  local threads=1
  taskset -c "$WRK_CPU" wrk -t"$threads" -c"$conns" -d"${DURATION}s" --timeout 5s -s "$ROOT/scripts/bench/wrk-report.lua" \
    "${args[@]}" "http://127.0.0.1:$port/$path" 2>&1 | sed -n 's/^RESULT //p'
}
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
field() { tr ' ' '\n' | sed -n "s/^$1=//p"; }

printf '\n%-14s %5s | %12s %9s | %12s %9s | %7s\n' scenario conns "listserver/s" "p99 ms" "$OTHER/s" "p99 ms" ratio
for scenario in manifest-gzip manifest-304 chunk-gzip not-found; do
  for conns in $CONNS; do
    ls_rps=(); ls_p99=(); ng_rps=(); ng_p99=()
    for _ in $(seq 1 "$ROUNDS"); do
      for server in listserver "$OTHER"; do
        if [[ $server == listserver ]]; then port=$LS_PORT; etag=$LS_ETAG; else port=$NGINX_PORT; etag=$NG_ETAG; fi
        case $scenario in
          manifest-gzip) result="$(run_wrk "$port" "$conns" manifest.json 'Accept-Encoding: gzip')" ;;
          manifest-304) result="$(run_wrk "$port" "$conns" manifest.json 'Accept-Encoding: gzip' "If-None-Match: $etag")" ;;
          chunk-gzip) result="$(run_wrk "$port" "$conns" "$chunk" 'Accept-Encoding: gzip')" ;;
          not-found) result="$(run_wrk "$port" "$conns" missing-file.json 'Accept-Encoding: gzip')" ;;
        esac
        [[ $server == listserver ]] && sample_rss
        errors="$(echo "$result" | field errors)"
        if [[ -n "$errors" && "$errors" != 0 ]]; then echo "  ($server $scenario c=$conns: $errors socket errors)" >&2; fi
        if [[ $server == listserver ]]; then
          ls_rps+=("$(echo "$result" | field rps)"); ls_p99+=("$(echo "$result" | field p99_ms)")
        else
          ng_rps+=("$(echo "$result" | field rps)"); ng_p99+=("$(echo "$result" | field p99_ms)")
        fi
      done
    done
    a="$(printf '%s\n' "${ls_rps[@]}" | median)"; ap="$(printf '%s\n' "${ls_p99[@]}" | median)"
    b="$(printf '%s\n' "${ng_rps[@]}" | median)"; bp="$(printf '%s\n' "${ng_p99[@]}" | median)"
    ratio="$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }')"
    printf '%-14s %5s | %12.0f %9.2f | %12.0f %9.2f | %7s\n' "$scenario" "$conns" "$a" "$ap" "$b" "$bp" "$ratio"
  done
done
echo
echo "listserver RSS: max sampled after each run $((rss_max / 1024)) MB; peak (VmHWM) $(awk '/^VmHWM/ {print int($2/1024)}' "/proc/$ls_pid/status") MB"
[[ -n "$base_pid" ]] && echo "baseline RSS: peak (VmHWM) $(awk '/^VmHWM/ {print int($2/1024)}' "/proc/$base_pid/status") MB"
echo "(median of $ROUNDS alternating ${DURATION}s runs per cell; wrk -t1 pinned to CPU $WRK_CPU; $([[ $OTHER == nginx ]] && echo 'nginx 2 workers' || echo "baseline $BASELINE_BIN"); listserver $(grep -c processor /proc/cpuinfo | awk '{print ($1>4?4:$1)}') event loops)"
