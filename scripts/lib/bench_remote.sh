# scripts/bench remote (sourced by scripts/bench): remote models against curl and
# @huggingface/gguf, every server on 127.0.0.1, side by side in one run.
#   1. The header of a Llama-3-sized vocabulary (7.8 MB) through tests/remote/fault_server.py at
#      50 ms per request: `gguffs summary URL` vs curl of the whole file in one request vs
#      @huggingface/gguf's gguf(URL); requests and sequential round trips of each.
#   2. A 256 MiB tensor read sequentially (dd bs=1M) through the mount, from nginx on loopback vs
#      `curl -r` of the same range, and through the 50 ms server vs curl of it in one request,
#      with the CPU seconds each side spent (on a 2-core machine they bound the rates).
#   3. A second read of that tensor on a new mount with -o cache_dir: requests in nginx's log.
ensure_packages nginx-light curl python3 openssl time
rdata=build/bench-remote
[ -f "$rdata/tensor-256m.gguf" ] || build/tools/make_remote_bench "$rdata"
work=$(mktemp -d /tmp/gguffs-bench-remote-XXXXXX)
pids=()
remote_cleanup() {
  fusermount3 -u "$mnt" 2>/dev/null || true
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$work"
  cleanup
}
trap remote_cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
wait_port() { for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$1/" && return 0; sleep 0.05; done; return 1; }

# The latency server (its log has each request's start and end, for counting round trips).
: >"$work/slow.log"
python3 tests/remote/fault_server.py --root "$rdata" --latency 50 --log "$work/slow.log" \
  >"$work/slow.port" &
pids+=($!)
for _ in $(seq 200); do [ -s "$work/slow.port" ] && break; sleep 0.05; done
wait_port "$(cat "$work/slow.port")"
: >"$work/slow.log"  # without wait_port's request
slow="http://127.0.0.1:$(cat "$work/slow.port")"

# nginx, in the foreground, everything under $work/nginx.
nport=$(free_port)
mkdir -p "$work/nginx"
cat >"$work/nginx/nginx.conf" <<CONF
user root;
worker_processes 2;
error_log $work/nginx/error.log;
events { worker_connections 256; }
http {
  log_format counted '\$request \$status \$body_bytes_sent \$http_range';
  access_log $work/nginx/access.log counted;
  client_body_temp_path $work/nginx/body; proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi; uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  server { listen 127.0.0.1:$nport; root $(realpath "$rdata"); }
}
CONF
nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -g "daemon off; pid $work/nginx/nginx.pid;" &
pids+=($!)
wait_port "$nport"
fast="http://127.0.0.1:$nport"

# Requests and sequential round trips in the latency server's log since line $1: a round trip is
# sequential when it starts after another one ended (the longest such chain).
rounds() {
  tail -n +"$(($1 + 1))" "$work/slow.log" | python3 -c '
import json, sys
r = sorted((json.loads(l) for l in sys.stdin), key=lambda d: d["start"])
depth = []
for i, d in enumerate(r):
    depth.append(1 + max([depth[j] for j in range(i) if r[j]["end"] <= d["start"]] or [0]))
print(len(r), max(depth or [0]))'
}
log_lines() { wc -l <"$1" 2>/dev/null || echo 0; }

echo "## Header of the Llama-3-sized vocabulary through the 50 ms/request server, median of 5"
vocab="$slow/vocab-llama3.gguf"
hf_script=""
if tests/interop/setup_npm.sh build >/dev/null 2>&1; then
  hf_script=build/interop-npm/hf_gguf.mjs
else
  echo "(@huggingface/gguf skipped: tests/interop/setup_npm.sh could not install it)"
fi
measure() { # label command...
  local label=$1 times=() counts=""
  shift
  for _ in 1 2 3 4 5; do
    local before t0
    before=$(log_lines "$work/slow.log")
    t0=$(now_ns)
    "$@" >/dev/null
    times+=("$(ms_since "$t0")")
    counts=$(rounds "$before")
  done
  echo "$label: median $(median "${times[@]}") ms, requests and sequential round trips: $counts"
  last_ms=$(median "${times[@]}")
}
measure "curl whole file, one request" curl -s -o /dev/null "$vocab"
curl_ms=$last_ms
measure "gguffs summary URL" build/gguffs summary "$vocab"
gguffs_ms=$last_ms
echo "gguffs / curl: $(ratio "$gguffs_ms" "$curl_ms")x"
if [ -n "$hf_script" ]; then
  measure "@huggingface/gguf gguf(URL)" node "$hf_script" "$vocab"
  echo "@huggingface/gguf / curl: $(ratio "$last_ms" "$curl_ms")x"
fi

# CPU seconds (user + system) a process has used so far, and nginx's workers together.
cpu_s() { awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($14 + $15) / hz }' "/proc/$1/stat"; }
nginx_cpu_s() {
  local total=0 p
  for p in $(pgrep -f "nginx: worker process"); do total=$(calc "$total + $(cpu_s "$p")"); done
  echo "$total"
}
calc() { awk "BEGIN { printf \"%.2f\", $1 }"; }
# Runs a command under /usr/bin/time; prints its user + system CPU seconds.
cpu_of() {
  /usr/bin/time -o "$work/time" -f "%U %S" "$@" >/dev/null 2>&1
  awk '{ printf "%.2f", $1 + $2 }' "$work/time"
}
echo "## 256 MiB tensor, sequential read (dd bs=1M) through a fresh mount vs curl of the range, 5 rounds"
echo "## CPU seconds: curl + nginx's workers; the reader (dd) + the daemon + nginx's workers"
for server in "$fast" "$slow"; do
  [ "$server" = "$fast" ] && name="nginx" || name="50 ms server"
  ratios=()
  for round in 1 2 3 4 5; do
    build/gguffs "$server/tensor-256m.gguf" "$mnt"
    daemon=$(pgrep -f "build/gguffs $server/tensor-256m.gguf" | head -1)
    info="$mnt/tensors/big.weight/info"
    off=$(field "$info" file_offset)
    size=$(field "$info" bytes)
    n0=$(nginx_cpu_s)
    t0=$(now_ns)
    curl_cpu=$(cpu_of curl -s -r "$off-$((off + size - 1))" -o /dev/null "$server/tensor-256m.gguf")
    c=$(gbps_since "$size" "$t0")
    n1=$(nginx_cpu_s)
    d0=$(cpu_s "$daemon")
    t0=$(now_ns)
    dd_cpu=$(cpu_of dd if="$mnt/tensors/big.weight/data" of=/dev/null bs=1M)
    m=$(gbps_since "$size" "$t0")
    d1=$(cpu_s "$daemon")
    n2=$(nginx_cpu_s)
    fusermount3 -u "$mnt"
    ratios+=("$(ratio "$m" "$c")")
    curl_total=$(calc "$curl_cpu + $n1 - $n0")
    mount_total=$(calc "$dd_cpu + $d1 - $d0 + $n2 - $n1")
    echo "$name round $round: curl -r $c GB/s ($curl_total CPU s), mount $m GB/s ($dd_cpu + $(calc "$d1 - $d0") + $(calc "$n2 - $n1") = $mount_total CPU s) (${ratios[-1]}x)"
  done
  echo "$name: mount / curl median $(median "${ratios[@]}")x (min $(minimum "${ratios[@]}")x)"
done

echo "## Second read with the disk cache (-o cache_dir), requests counted in nginx's access log"
cache="$work/cache"
build/gguffs -o cache_dir="$cache" "$fast/tensor-256m.gguf" "$mnt"
a=$(log_lines "$work/nginx/access.log")
cat "$mnt/tensors/big.weight/data" >/dev/null
sleep 0.2
b=$(log_lines "$work/nginx/access.log")
fusermount3 -u "$mnt"
build/gguffs -o cache_dir="$cache" "$fast/tensor-256m.gguf" "$mnt"
sleep 0.2
c=$(log_lines "$work/nginx/access.log")
cat "$mnt/tensors/big.weight/data" >/dev/null
sleep 0.2
d=$(log_lines "$work/nginx/access.log")
fusermount3 -u "$mnt"
echo "first read: $((b - a)) requests; remount: $((c - b)) request (the first MiB: size and ETag); second read: $((d - c)) requests"
