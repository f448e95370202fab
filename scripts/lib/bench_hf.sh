# scripts/bench hf (sourced by scripts/bench, which provides $data, $mnt and the rate helpers):
# hf/model.safetensors against its peers, each file a first read on a fresh mount of its own,
# alternating which goes first, 8 rounds; and how long a mount takes to be ready now that it has
# an hf/ directory.
[ -f "$data/hf-q4_k.gguf" ] || build/tools/make_hf_bench "$data"
f16_model="$data/hf-f16.gguf"
q4k_model="$data/hf-q4_k.gguf"
cat "$f16_model" "$q4k_model" >/dev/null # the model files in the host's page cache
warm_up "$f16_model"
warm_up "$q4k_model"
# GB/s of one cat of the given files.
hf_cat_rate() {
  local t0 bytes
  bytes=$(stat -c %s "$@" | paste -sd+ | bc)
  t0=$(now_ns)
  cat "$@" >/dev/null
  gbps_since "$bytes" "$t0"
}

# GB/s of one cat of the given paths (relative to the mount) on a fresh mount of the model.
fresh_rate() { # model paths...
  local model=$1 files=() p
  shift
  build/gguffs "$model" "$mnt"
  for p in "$@"; do files+=("$mnt"/$p); done
  hf_cat_rate "${files[@]}"
  fusermount3 -u "$mnt"
}
# Each file is read on a mount of its own: the second 0.9 GB read on one mount ran at a fifth of
# the first now and then on this VM, whichever file it was (0.45-0.68 GB/s against 2-3).
echo "## hf: F16 llama (2 layers of TinyLlama-1.1B's shape, 440 MB): hf/model.safetensors vs model.gguf"
echo "## (Q/K rows un-permuted per read; everything else spliced), each a first read on a fresh mount"
ratios=()
for order in gguf-first st-first gguf-first st-first gguf-first st-first gguf-first st-first; do
  if [ "$order" = gguf-first ]; then
    g=$(fresh_rate "$f16_model" model.gguf)
    s=$(fresh_rate "$f16_model" hf/model.safetensors)
  else
    s=$(fresh_rate "$f16_model" hf/model.safetensors)
    g=$(fresh_rate "$f16_model" model.gguf)
  fi
  ratios+=("$(ratio "$s" "$g")")
  echo "$order: model.gguf $g GB/s, model.safetensors $s GB/s (${ratios[-1]}x)"
done
echo "F16 safetensors: median $(median "${ratios[@]}")x of model.gguf (min $(minimum "${ratios[@]}")x)"

echo "## hf: Q4_K llama (125 MB, 880 MB as float32): hf/model.safetensors (F32) vs tensors/*/data.f32"
ratios=()
for order in f32-first st-first f32-first st-first f32-first st-first f32-first st-first; do
  if [ "$order" = f32-first ]; then
    f=$(fresh_rate "$q4k_model" 'tensors/*/data.f32')
    s=$(fresh_rate "$q4k_model" hf/model.safetensors)
  else
    s=$(fresh_rate "$q4k_model" hf/model.safetensors)
    f=$(fresh_rate "$q4k_model" 'tensors/*/data.f32')
  fi
  ratios+=("$(ratio "$s" "$f")")
  echo "$order: data.f32 files $f GB/s, model.safetensors $s GB/s (${ratios[-1]}x)"
done
echo "Q4_K safetensors: median $(median "${ratios[@]}")x of data.f32 (min $(minimum "${ratios[@]}")x)"

echo "## hf: mount ready (command start to summary.txt readable), the time -v reports for building"
echo "## the tree (hf/ included), then the first hf/ listing and safetensors header read; median of 5"
for model in "$f16_model" "$data/many-tensors.gguf" "$data/vocab-llama3.gguf"; do
  ready=()
  tree=()
  for i in 1 2 3 4 5; do
    t0=$(now_ns)
    build/gguffs "$model" "$mnt"
    cat "$mnt/summary.txt" >/dev/null
    ready+=("$(ms_since "$t0")")
    t0=$(now_ns)
    ls -l "$mnt/hf" >/dev/null
    head -c 8 "$mnt/hf/model.safetensors" >/dev/null
    hf_ms=$(ms_since "$t0")
    fusermount3 -u "$mnt"
    tree+=("$(build/gguffs ls -v "$model" hf 2>&1 >/dev/null | sed -n 's/.*built the tree in \([0-9.]*\) ms.*/\1/p')")
  done
  echo "$(basename "$model"): ready median $(median "${ready[@]}") ms (max $(printf '%s\n' "${ready[@]}" | sort -g | tail -1) ms), tree built in $(median "${tree[@]}") ms; hf/ first listing + header $hf_ms ms"
done
