# scripts/bench health (sourced by scripts/bench): `gguffs check --data` on a 1.16 GB llama of
# Q4_K, Q6_K and F32 tensors, page cache warm, against `cat FILE > /dev/null` and against
# llama.cpp's own check (load time with checkTensors minus without); `gguffs diff` of two such
# files differing in one byte of one tensor, and of two identical ones, against cmp.
echo "## Health: check --data and diff on a 1.16 GB Q4_K/Q6_K/F32 llama (page cache warm)"
[ -f "$data/health-b.gguf" ] || build/tools/make_health_bench tests/data/gpt2-vocab.gguf "$data"
a="$data/health-a.gguf"
b="$data/health-b.gguf"
bytes=$(stat -c %s "$a")
echo "file bytes $bytes, $(nproc) cores, load average $(cut -d' ' -f1 /proc/loadavg)"
cat "$a" "$b" >/dev/null
# Median wall seconds of RUNS runs of a command (stdout discarded, exit status ignored).
median_seconds() { # runs command...
  local runs=$1
  shift
  local times=()
  for _ in $(seq "$runs"); do
    local t0
    t0=$(now_ns)
    "$@" >/dev/null || true
    times+=("$(echo "scale=4; ($(now_ns) - $t0) / 1000000000" | bc)")
  done
  median "${times[@]}"
}
gb() { echo "scale=2; $bytes / $1 / 1000000000" | bc | sed 's/^\./0./'; }
# Alternating rounds, so drift in the machine's load hits both sides alike.
check_s=() cat_s=()
for _ in 1 2 3 4 5; do
  check_s+=("$(median_seconds 1 build/gguffs check --data "$a")")
  cat_s+=("$(median_seconds 1 cat "$a")")
done
c=$(median "${check_s[@]}")
k=$(median "${cat_s[@]}")
echo "gguffs check --data: ${c} s ($(gb "$c") GB/s); cat > /dev/null: ${k} s ($(gb "$k") GB/s); ratio $(ratio "$k" "$c")x cat (median of 5)"

if bash tests/interop/setup_npm.sh build >/dev/null 2>&1; then
  load=$(cd build/interop-npm && node load_time.mjs "$(realpath "../../$a")" 5)
  with=$(echo "$load" | jq '.with | sort | .[length/2|floor]')
  without=$(echo "$load" | jq '.without | sort | .[length/2|floor]')
  diff_ms=$(echo "scale=1; $with - $without" | bc)
  echo "llama.cpp load: checkTensors ${with} ms, without ${without} ms (median of 5): its check ${diff_ms} ms ($(echo "scale=2; $bytes / ($diff_ms * 1000000)" | bc | sed 's/^\./0./') GB/s); gguffs $(ratio "$diff_ms" "$(echo "$c * 1000" | bc)")x its rate"
else
  echo "llama.cpp load: skipped (node-llama-cpp unavailable: tests/interop/setup_npm.sh)"
fi

d=$(median_seconds 5 build/gguffs diff "$a" "$b")
m=$(median_seconds 5 cmp "$a" "$b")
echo "gguffs diff (one byte of one tensor differs): ${d} s; cmp: ${m} s (stops at the first difference, byte 583549313); ratio $(ratio "$m" "$d")x cmp"
# A copy, not the same path: cmp answers at once for one file named twice.
same="$data/health-a-copy.gguf"
[ -f "$same" ] || cp "$a" "$same"
cat "$same" >/dev/null
d=$(median_seconds 5 build/gguffs diff "$a" "$same")
m=$(median_seconds 5 cmp "$a" "$same")
echo "gguffs diff (identical, reads both files whole): ${d} s; cmp: ${m} s; ratio $(ratio "$m" "$d")x cmp"
