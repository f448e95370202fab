# scripts/bench edit (sourced by scripts/bench): editing tokenizer.chat_template of a model with a
# Llama-3-sized vocabulary through a --edit mount, side by side with rewriting the file (cp).
#   - ms from the start of the write until model.gguf's header shows the new template (median of 5)
#   - bytes the daemon read and wrote during those edits (its /proc/PID/io: requests and the
#     header replies; tensor bytes would show here) against the tensor data a rewrite copies
#   - model.gguf read rate (dd, cold page cache of the mount) before and after an edit
#   - cp of the model file, and gguffs export, in the same run
echo "## Edit: tokenizer.chat_template of a Llama-3-sized vocabulary model with 512 MiB of tensors"
model="$data/edit-bench.gguf"
[ -f "$model" ] || build/tools/make_edit_bench "$model"
size=$(stat -c %s "$model")
cat "$model" >/dev/null
header=$(build/gguffs cat "$model" summary.txt | head -1 | sed 's/.*data at byte \([0-9]*\).*/\1/')
echo "file bytes $size, header bytes $header"
daemon_pid() { ps -eo pid,args | awk -v m="$mnt" '$2 ~ /gguffs$/ && $NF == m { print $1 }'; }
io() { awk '/^rchar|^wchar/ { s += $2 } END { print s }' "/proc/$1/io"; }
before_ratios=()
for round in 1 2 3; do
  build/gguffs --edit "$model" "$mnt" 2>/dev/null
  pid=$(daemon_pid)
  before=$(rate "$mnt/model.gguf" 0 "$size")
  io0=$(io "$pid")
  times=()
  for i in 1 2 3 4 5; do
    marker="template-$round-$i-$RANDOM"
    t0=$(now_ns)
    printf '{%% for m in messages %%}%s{{ m.content }}{%% endfor %%}' "$marker" \
      >"$mnt/metadata/tokenizer.chat_template"
    # grep -c reads all of its input: with -q it would stop at the match, head would die of
    # SIGPIPE, and under pipefail the loop would read the header again for nothing.
    until head -c $((header + 4096)) "$mnt/model.gguf" | grep -ac "$marker" >/dev/null; do :; done
    times+=("$(ms_since "$t0")")
  done
  moved=$(( $(io "$pid") - io0 ))
  after=$(rate "$mnt/model.gguf" 0 "$size")
  before_ratios+=("$(ratio "$after" "$before")")
  echo "round $round: edit visible in model.gguf ms ${times[*]} (median $(median "${times[@]}"))"
  echo "  daemon I/O during the 5 edits $moved bytes (tensor data $((size - header)) bytes)"
  echo "  model.gguf read (cold mount cache) before the edits $before GB/s, after $after GB/s (${before_ratios[-1]}x)"
  fusermount3 -u "$mnt"
done
echo "model.gguf read after an edit: median $(median "${before_ratios[@]}")x of before (min $(minimum "${before_ratios[@]}")x)"
copy="$data/edit-bench-copy.gguf"
out="$data/edit-bench-export.gguf"
build/gguffs --edit -o "overlay=$data/edit-bench-overlay.gguf" "$model" "$mnt" 2>/dev/null
printf 'exported template' >"$mnt/metadata/tokenizer.chat_template"
fusermount3 -u "$mnt"
for i in 1 2 3; do
  t0=$(now_ns)
  build/gguffs export "$model" --overlay "$data/edit-bench-overlay.gguf" "$out"
  echo "gguffs export (copy_file_range): $(ms_since "$t0") ms"
  rm -f "$out"
  t0=$(now_ns)
  cp "$model" "$copy"
  cp_ms=$(ms_since "$t0")
  rm -f "$copy"
  echo "cp of the model file (what gguf_new_metadata.py must at least write): $cp_ms ms"
done
rm -f "$data/edit-bench-overlay.gguf"
