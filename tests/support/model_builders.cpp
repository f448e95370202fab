#include "tests/support/model_builders.hpp"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <stdexcept>
#include <unordered_set>

#include "gguf/parser.hpp"
#include "gguf/source/source.hpp"

namespace test_support {

using gguf::OwnedValue;
using gguf::Writer;
namespace type_id = gguf::type_id;

namespace {

std::string utf8(uint32_t cp) {
  std::string s;
  if (cp < 0x80) {
    s += static_cast<char>(cp);
  } else if (cp < 0x800) {
    s += static_cast<char>(0xC0 | (cp >> 6));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    s += static_cast<char>(0xE0 | (cp >> 12));
    s += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    s += static_cast<char>(0x80 | (cp & 0x3F));
  }
  return s;
}

// GPT-2's byte tokens in vocabulary order: the printable bytes stand for themselves, the others
// become U+0100 + n in byte order (so the space is "Ġ" and the newline "Ċ").
std::vector<std::string> byte_tokens() {
  std::vector<std::string> printable, others;
  uint32_t n = 0;
  for (uint32_t b = 0; b < 256; ++b) {
    bool self = (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174);
    if (self) {
      printable.push_back(utf8(b));
    } else {
      others.push_back(utf8(256 + n++));
    }
  }
  printable.insert(printable.end(), others.begin(), others.end());
  return printable;
}

// A small deterministic generator (splitmix64), so every run builds the same files.
struct Random {
  uint64_t state;
  uint64_t next() {
    uint64_t z = (state += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  uint64_t below(uint64_t n) { return next() % n; }
};

// Lengthens ordinary tokens (after the byte tokens, before the specials) by one byte each, round
// robin, until `extra` bytes have been added: the way to hit an exact metadata size.
void pad_tokens(SyntheticVocab& v, size_t n_specials, uint64_t extra) {
  size_t first = 256, last = v.tokens.size() - n_specials;
  if (last <= first) throw std::logic_error("pad_tokens: no ordinary tokens");
  for (uint64_t i = 0; i < extra; ++i) v.tokens[first + i % (last - first)] += '_';
}

template <typename Build>
Writer build_with_metadata_size(SyntheticVocab vocab, size_t n_specials, uint64_t target,
                                Build build) {
  uint64_t natural = build(vocab).infos_end();
  if (natural > target) {
    throw std::logic_error("synthetic vocabulary is " + std::to_string(natural - target) +
                           " bytes too large for the target layout");
  }
  pad_tokens(vocab, n_specials, target - natural);
  Writer w = build(vocab);
  if (w.infos_end() != target) throw std::logic_error("padding the vocabulary missed the target");
  return w;
}

std::vector<std::string> llama3_specials() {
  std::vector<std::string> s = {"<|begin_of_text|>", "<|end_of_text|>"};
  for (int i = 0; i < 254; ++i) {
    if (i == 4) s.push_back("<|start_header_id|>");
    if (i == 5) s.push_back("<|end_header_id|>");
    if (i == 7) s.push_back("<|eot_id|>");
    if (s.size() < 256) s.push_back("<|reserved_special_token_" + std::to_string(i) + "|>");
  }
  s.resize(256);
  return s;
}

std::vector<std::string> qwen2_specials() {
  std::vector<std::string> s = {"<|endoftext|>", "<|im_start|>", "<|im_end|>"};
  for (int i = 0; s.size() < 293; ++i) s.push_back("<|extra_" + std::to_string(i) + "|>");
  return s;
}

const char* kChatMlTemplate =
    "{% for message in messages %}{% if loop.first and messages[0]['role'] != 'system' %}"
    "{{ '<|im_start|>system\nYou are a helpful assistant.<|im_end|>\n' }}{% endif %}"
    "{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}"
    "{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}";

std::string le16(uint16_t v) {
  return {static_cast<char>(v & 0xFF), static_cast<char>(v >> 8)};
}

}  // namespace

SyntheticVocab synthetic_vocab(uint64_t n_tokens, uint64_t n_merges,
                               const std::vector<std::string>& specials, uint32_t max_token_bytes) {
  if (n_tokens < 256 + specials.size()) throw std::invalid_argument("synthetic_vocab: too few");
  if (max_token_bytes < 2) throw std::invalid_argument("synthetic_vocab: tokens too short");
  SyntheticVocab v;
  v.tokens = byte_tokens();
  v.tokens.reserve(n_tokens);
  v.merges.reserve(n_merges);
  v.token_types.assign(256, 6);
  std::unordered_set<std::string> seen(v.tokens.begin(), v.tokens.end());
  seen.reserve(n_tokens * 2);
  // Token ids by byte length, so a pair of a chosen total length is found without searching.
  std::vector<std::vector<uint32_t>> by_length(max_token_bytes + 1);
  auto index = [&](uint32_t id) {
    if (v.tokens[id].size() <= max_token_bytes) by_length[v.tokens[id].size()].push_back(id);
  };
  for (uint32_t id = 0; id < v.tokens.size(); ++id) index(id);
  Random rng{0x6767756673ULL};
  // A pair of existing tokens whose lengths add up to a bell-shaped length (mean about 8 bytes,
  // like real BPE vocabularies), or nullopt when no token has one of the two lengths yet.
  auto pick_pair = [&]() -> std::optional<std::pair<uint32_t, uint32_t>> {
    uint32_t total = 1 + static_cast<uint32_t>(std::popcount(rng.next() & 0x3FFF));
    total = std::clamp<uint32_t>(total, 2, max_token_bytes);
    uint32_t left = 1 + static_cast<uint32_t>(rng.below(total - 1));
    const auto& a = by_length[left];
    const auto& b = by_length[total - left];
    if (a.empty() || b.empty()) return std::nullopt;
    return std::pair{a[rng.below(a.size())], b[rng.below(b.size())]};
  };
  uint64_t n_ordinary = n_tokens - specials.size();
  while (v.tokens.size() < n_ordinary) {
    auto pair = pick_pair();
    if (!pair) continue;
    const std::string& a = v.tokens[pair->first];
    const std::string& b = v.tokens[pair->second];
    std::string t = a + b;
    if (!seen.insert(t).second) continue;
    if (v.merges.size() < n_merges) v.merges.push_back(a + " " + b);
    v.tokens.push_back(std::move(t));
    v.token_types.push_back(1);
    index(static_cast<uint32_t>(v.tokens.size() - 1));
  }
  // Real vocabularies (tiktoken conversions) list more merges than tokens.
  while (v.merges.size() < n_merges) {
    auto pair = pick_pair();
    if (pair) v.merges.push_back(v.tokens[pair->first] + " " + v.tokens[pair->second]);
  }
  for (const auto& s : specials) {
    v.tokens.push_back(s);
    v.token_types.push_back(3);
  }
  return v;
}

Writer ggufinfo_demo_writer() {
  Writer w(Writer::Options{.pad_end = false});
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add("llama.embedding_length", OwnedValue::u32(64));
  w.add("general.file_type", OwnedValue::u32(7));
  w.add_zero_tensor("token_embd.weight", {64, 4}, type_id::Q8_0);
  return w;
}

Writer tiny_q4_k_m_writer() {
  auto specials = qwen2_specials();
  SyntheticVocab vocab = synthetic_vocab(151'936, 151'387, specials, 16);
  auto build = [](const SyntheticVocab& v) {
    Writer w;
    w.add("general.architecture", OwnedValue::string("llama"));
    w.add("general.name", OwnedValue::string("tiny-random-llama"));
    w.add("llama.block_count", OwnedValue::u32(4));
    w.add("llama.context_length", OwnedValue::u32(4096));
    w.add("llama.embedding_length", OwnedValue::u32(256));
    w.add("llama.feed_forward_length", OwnedValue::u32(704));
    w.add("llama.attention.head_count", OwnedValue::u32(8));
    w.add("llama.attention.head_count_kv", OwnedValue::u32(2));
    w.add("llama.rope.freq_base", OwnedValue::f32(500000.0f));
    w.add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
    w.add("general.file_type", OwnedValue::u32(15));
    w.add("llama.vocab_size", OwnedValue::u32(151'936));
    w.add("llama.rope.dimension_count", OwnedValue::u32(32));
    w.add("tokenizer.ggml.model", OwnedValue::string("gpt2"));
    w.add("tokenizer.ggml.pre", OwnedValue::string("qwen2"));
    w.add("tokenizer.ggml.tokens", OwnedValue::string_array(v.tokens));
    w.add("tokenizer.ggml.token_type", OwnedValue::i32_array(v.token_types));
    w.add("tokenizer.ggml.merges", OwnedValue::string_array(v.merges));
    w.add("tokenizer.ggml.bos_token_id", OwnedValue::u32(151'643));
    w.add("tokenizer.ggml.eos_token_id", OwnedValue::u32(151'645));
    w.add("tokenizer.chat_template", OwnedValue::string(kChatMlTemplate));
    w.add("general.quantization_version", OwnedValue::u32(2));

    w.add_zero_tensor("token_embd.weight", {256, 151'936}, type_id::Q4_K);
    for (int i = 0; i < 4; ++i) {
      std::string p = "blk." + std::to_string(i) + ".";
      bool more_bits = i >= 2;  // llama.cpp's use_more_bits() picks layers 2 and 3 of 4
      w.add_zero_tensor(p + "attn_norm.weight", {256}, type_id::F32);
      w.add_zero_tensor(p + "attn_q.weight", {256, 256}, type_id::Q4_K);
      w.add_zero_tensor(p + "attn_k.weight", {256, 64}, type_id::Q4_K);
      w.add_zero_tensor(p + "attn_v.weight", {256, 64}, more_bits ? type_id::Q6_K : type_id::Q4_K);
      w.add_zero_tensor(p + "attn_output.weight", {256, 256}, type_id::Q4_K);
      w.add_zero_tensor(p + "ffn_norm.weight", {256}, type_id::F32);
      w.add_zero_tensor(p + "ffn_gate.weight", {256, 704}, type_id::Q4_K);
      w.add_zero_tensor(p + "ffn_up.weight", {256, 704}, type_id::Q4_K);
      // 704 is not a multiple of 256: the k-quants fall back to Q5_0 / Q8_0.
      w.add_zero_tensor(p + "ffn_down.weight", {704, 256},
                        more_bits ? type_id::Q8_0 : type_id::Q5_0);
    }
    w.add_zero_tensor("output_norm.weight", {256}, type_id::F32);
    w.add_zero_tensor("output.weight", {256, 151'936}, type_id::Q6_K);
    return w;
  };
  return build_with_metadata_size(std::move(vocab), specials.size(), kTinyQ4KMDataOffset, build);
}

Writer llama3_vocab_writer() {
  auto specials = llama3_specials();
  SyntheticVocab vocab = synthetic_vocab(kLlama3VocabTokens, kLlama3VocabMerges, specials, 16);
  auto build = [](const SyntheticVocab& v) {
    Writer w;
    w.add("general.architecture", OwnedValue::string("llama"));
    w.add("general.name", OwnedValue::string("llama-bpe"));
    w.add("llama.block_count", OwnedValue::u32(32));
    w.add("llama.context_length", OwnedValue::u32(8192));
    w.add("llama.embedding_length", OwnedValue::u32(4096));
    w.add("llama.feed_forward_length", OwnedValue::u32(14336));
    w.add("llama.attention.head_count", OwnedValue::u32(32));
    w.add("llama.attention.head_count_kv", OwnedValue::u32(8));
    w.add("llama.rope.freq_base", OwnedValue::f32(500000.0f));
    w.add("llama.attention.layer_norm_rms_epsilon", OwnedValue::f32(1e-5f));
    w.add("general.file_type", OwnedValue::u32(1));
    w.add("llama.vocab_size", OwnedValue::u32(128'256));
    w.add("llama.rope.dimension_count", OwnedValue::u32(128));
    w.add("tokenizer.ggml.model", OwnedValue::string("gpt2"));
    w.add("tokenizer.ggml.pre", OwnedValue::string("llama-bpe"));
    w.add("tokenizer.ggml.tokens", OwnedValue::string_array(v.tokens));
    w.add("tokenizer.ggml.token_type", OwnedValue::i32_array(v.token_types));
    w.add("tokenizer.ggml.merges", OwnedValue::string_array(v.merges));
    w.add("tokenizer.ggml.bos_token_id", OwnedValue::u32(128'000));
    w.add("tokenizer.ggml.eos_token_id", OwnedValue::u32(128'001));
    return w;
  };
  return build_with_metadata_size(std::move(vocab), specials.size(), kLlama3VocabDataOffset, build);
}

Writer small_model_writer() {
  Writer w;
  w.add("general.architecture", OwnedValue::string("llama"));
  w.add("general.name", OwnedValue::string("small-test-model"));
  w.add("llama.block_count", OwnedValue::u32(1));
  w.add("llama.context_length", OwnedValue::u32(128));
  w.add("tokenizer.ggml.tokens", OwnedValue::string_array({"<s>", "</s>", "hello", "world"}));
  w.add("tokenizer.ggml.scores", OwnedValue::f32_array({0.0f, 0.0f, -1.5f, -2.5f}));
  w.add("tokenizer.ggml.token_type", OwnedValue::i32_array({3, 3, 1, 1}));

  std::string embd(8 * 4, '\0');
  for (int i = 0; i < 8; ++i) {
    float f = static_cast<float>(i);
    std::memcpy(embd.data() + 4 * i, &f, 4);  // little-endian host (x86-64)
  }
  w.add_tensor("token_embd.weight", {4, 2}, type_id::F32, embd);
  w.add_tensor("blk.0.attn_norm.weight", {4}, type_id::F16,
               le16(0x3C00) + le16(0x4000) + le16(0xB800) + le16(0x0000));
  std::string q8 = le16(0x3800);
  for (int q = -16; q < 16; ++q) q8 += static_cast<char>(static_cast<int8_t>(q));
  w.add_tensor("output.weight", {32, 1}, type_id::Q8_0, q8);
  return w;
}

gguf::ModelPtr parse_bytes(const std::string& bytes, const std::string& name) {
  return gguf::parse(gguf::memory_source(bytes, name));
}

std::optional<gguf::FormatError> parse_error(const std::string& bytes, const std::string& name) {
  try {
    parse_bytes(bytes, name);
  } catch (const gguf::FormatError& e) {
    return e;
  }
  return std::nullopt;
}

bool has_line_with(const std::vector<std::string>& lines,
                   const std::vector<std::string_view>& fragments) {
  for (const auto& line : lines) {
    bool all = true;
    for (auto f : fragments) all = all && line.find(f) != std::string::npos;
    if (all) return true;
  }
  return false;
}

}  // namespace test_support
