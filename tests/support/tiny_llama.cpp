#include "tests/support/tiny_llama.hpp"

#include <bit>
#include <cmath>
#include <random>
#include <stdexcept>

#include "gguf/parser.hpp"
#include "tests/support/split_builders.hpp"

namespace test_support {
namespace {

using gguf::OwnedValue;

void put16(std::string& out, size_t at, uint16_t v) {
  out[at] = static_cast<char>(v & 0xFF);
  out[at + 1] = static_cast<char>(v >> 8);
}

// Random weights of the given type with about this standard deviation (mean near zero), so
// activations stay in a sane range through both layers.
class WeightMaker {
 public:
  explicit WeightMaker(uint32_t seed) : rng_(seed) {}

  std::string f32(uint64_t n, float mean, float stddev) {
    std::normal_distribution<float> dist(mean, stddev);
    std::string out(n * 4, '\0');
    for (uint64_t i = 0; i < n; ++i) {
      const uint32_t bits = std::bit_cast<uint32_t>(dist(rng_));
      for (int b = 0; b < 4; ++b) out[i * 4 + b] = static_cast<char>(bits >> (8 * b));
    }
    return out;
  }

  std::string f16(uint64_t n, float stddev) {
    std::normal_distribution<float> dist(0.0f, stddev);
    std::string out(n * 2, '\0');
    for (uint64_t i = 0; i < n; ++i) put16(out, i * 2, fp16_bits(dist(rng_)));
    return out;
  }

  // Q8_0 blocks (fp16 d, 32 int8): values d * q with q uniform in [-127, 127].
  std::string q8_0(uint64_t n, float stddev) {
    std::string out(n / 32 * 34, '\0');
    const float d = stddev / 73.3f;  // the standard deviation of q is about 73.3
    for (uint64_t b = 0; b < n / 32; ++b) {
      put16(out, b * 34, fp16_bits(d));
      for (int i = 0; i < 32; ++i) out[b * 34 + 2 + i] = static_cast<char>(int(rng_() % 255) - 127);
    }
    return out;
  }

  // Q4_K super-blocks (fp16 d, fp16 dmin, 12 bytes of 6-bit scales and mins, 128 bytes of
  // nibbles): value = d * sc * q - dmin * m. dmin is set so that the mean is near zero.
  std::string q4_k(uint64_t n, float stddev) {
    std::string out(n / 256 * 144, '\0');
    const float d = stddev / 31.5f / 4.6f;  // sc about 31.5 on average, q's deviation about 4.6
    for (uint64_t b = 0; b < n / 256; ++b) {
      const size_t at = b * 144;
      put16(out, at, fp16_bits(d));
      put16(out, at + 2, fp16_bits(d * 7.5f));  // m about sc on average, q's mean 7.5
      for (int i = 4; i < 144; ++i) out[at + i] = static_cast<char>(rng_() & 0xFF);
    }
    return out;
  }

 private:
  std::mt19937 rng_;
};

}  // namespace

uint16_t fp16_bits(float v) {
  const uint32_t x = std::bit_cast<uint32_t>(v);
  const uint32_t sign = (x >> 16) & 0x8000;
  const float a = std::fabs(v);
  if (!(a <= 65504.0f)) throw std::invalid_argument("fp16_bits: value out of the fp16 range");
  if (a < 6.103515625e-05f) {  // subnormal in fp16: a multiple of 2^-24, rounded to even
    return static_cast<uint16_t>(sign | static_cast<uint32_t>(std::nearbyint(a * 16777216.0f)));
  }
  const uint32_t ax = x & 0x7FFFFFFF;
  uint32_t exponent = (ax >> 23) - 127 + 15;
  uint32_t mantissa = ax & 0x7FFFFF;
  uint32_t half = (exponent << 10) | (mantissa >> 13);
  const uint32_t rest = mantissa & 0x1FFF;
  if (rest > 0x1000 || (rest == 0x1000 && (half & 1))) ++half;  // may carry into the exponent
  return static_cast<uint16_t>(sign | half);
}

TinyLlamaTensor& TinyLlama::tensor(const std::string& name) {
  for (auto& t : tensors) {
    if (t.name == name) return t;
  }
  throw std::out_of_range("tiny llama has no tensor " + name);
}

gguf::Writer TinyLlama::writer() const {
  gguf::Writer w;
  for (const auto& [key, value] : metadata) w.add(key, value);
  for (const auto& t : tensors) w.add_tensor(t.name, t.ne, t.type_id, t.bytes);
  return w;
}

void TinyLlama::write(const std::filesystem::path& path) const {
  writer().write_file(path);
}

std::vector<std::filesystem::path> TinyLlama::write_split(const std::filesystem::path& dir,
                                                          const std::string& prefix,
                                                          uint16_t count) const {
  std::vector<std::filesystem::path> paths;
  const size_t per_shard = (tensors.size() + count - 1) / count;
  for (uint16_t no = 0; no < count; ++no) {
    gguf::Writer w;
    if (no == 0) {
      for (const auto& [key, value] : metadata) w.add(key, value);
    }
    w.add("split.no", OwnedValue::u16(no));
    w.add("split.count", OwnedValue::u16(count));
    w.add("split.tensors.count", OwnedValue::i32(static_cast<int32_t>(tensors.size())));
    for (size_t i = no * per_shard; i < std::min(tensors.size(), (no + 1) * per_shard); ++i) {
      w.add_tensor(tensors[i].name, tensors[i].ne, tensors[i].type_id, tensors[i].bytes);
    }
    paths.push_back(shard_file(dir, prefix, no, count));
    w.write_file(paths.back());
  }
  return paths;
}

TinyLlama make_tiny_llama(const std::filesystem::path& vocab_path, TinyLlamaTypes types) {
  auto vocab = gguf::parse_file(vocab_path.string());
  const uint64_t n_vocab = vocab->find("tokenizer.ggml.tokens")->value.array.count;
  constexpr uint32_t E = TinyLlama::kEmbd, F = TinyLlama::kFf;
  constexpr uint32_t kv = E / TinyLlama::kHeads * TinyLlama::kHeadsKv;

  TinyLlama m;
  auto add = [&](std::string key, OwnedValue v) { m.metadata.emplace_back(std::move(key), v); };
  add("general.architecture", OwnedValue::string("llama"));
  add("general.name", OwnedValue::string("gguffs tiny llama"));
  add("general.file_type", OwnedValue::u32(types == TinyLlamaTypes::mixed ? 7 : 1));
  add("general.quantization_version", OwnedValue::u32(2));
  add("llama.context_length", OwnedValue::u32(512));
  add("llama.embedding_length", OwnedValue::u32(E));
  add("llama.block_count", OwnedValue::u32(TinyLlama::kLayers));
  add("llama.feed_forward_length", OwnedValue::u32(F));
  add("llama.attention.head_count", OwnedValue::u32(TinyLlama::kHeads));
  add("llama.attention.head_count_kv", OwnedValue::u32(TinyLlama::kHeadsKv));
  add("llama.rope.freq_base", OwnedValue::f32(10000.0f));
  add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
  add("llama.vocab_size", OwnedValue::u32(static_cast<uint32_t>(n_vocab)));
  for (const char* key : {"tokenizer.ggml.model", "tokenizer.ggml.pre", "tokenizer.ggml.tokens",
                          "tokenizer.ggml.token_type", "tokenizer.ggml.merges",
                          "tokenizer.ggml.bos_token_id", "tokenizer.ggml.eos_token_id"}) {
    const gguf::MetadataEntry* kvp = vocab->find(key);
    if (kvp == nullptr) throw std::runtime_error(vocab_path.string() + " has no " + key);
    add(key, OwnedValue::copy_of(kvp->value));
  }
  add("tokenizer.chat_template",
      OwnedValue::string("{% for message in messages %}<|{{ message['role'] }}|>\n"
                         "{{ message['content'] }}<|end|>\n{% endfor %}"
                         "{% if add_generation_prompt %}<|assistant|>\n{% endif %}"));

  using namespace gguf::type_id;
  WeightMaker make(20261130);
  const bool mixed = types == TinyLlamaTypes::mixed;
  // A matrix of the given shape in type t (F16 when float_only).
  auto matrix = [&](std::string name, uint64_t cols, uint64_t rows, uint32_t t, float stddev) {
    if (!mixed) t = F16;
    const uint64_t n = cols * rows;
    std::string bytes = t == Q4_K   ? make.q4_k(n, stddev)
                        : t == Q8_0 ? make.q8_0(n, stddev)
                                    : make.f16(n, stddev);
    m.tensors.push_back({std::move(name), {cols, rows}, t, std::move(bytes)});
  };
  auto norm = [&](std::string name) {
    m.tensors.push_back({std::move(name), {E}, F32, make.f32(E, 1.0f, 0.1f)});
  };
  matrix("token_embd.weight", E, n_vocab, Q8_0, 0.5f);
  for (uint32_t l = 0; l < TinyLlama::kLayers; ++l) {
    const std::string p = "blk." + std::to_string(l) + ".";
    norm(p + "attn_norm.weight");
    matrix(p + "attn_q.weight", E, E, Q4_K, 0.08f);
    matrix(p + "attn_k.weight", E, kv, Q8_0, 0.08f);
    matrix(p + "attn_v.weight", E, kv, F16, 0.08f);
    matrix(p + "attn_output.weight", E, E, Q4_K, 0.06f);
    norm(p + "ffn_norm.weight");
    matrix(p + "ffn_gate.weight", E, F, Q4_K, 0.06f);
    matrix(p + "ffn_up.weight", E, F, Q8_0, 0.06f);
    matrix(p + "ffn_down.weight", F, E, F16, 0.04f);
  }
  norm("output_norm.weight");
  matrix("output.weight", E, n_vocab, Q4_K, 0.08f);
  return m;
}

}  // namespace test_support
