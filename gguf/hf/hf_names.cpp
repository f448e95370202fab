#include "gguf/hf/hf_names.hpp"

#include <array>
#include <optional>

namespace gguf::hf {

namespace {

constexpr std::array<Architecture, 3> kArchitectures = {{
    {"llama", "llama", "LlamaForCausalLM", true, false},
    {"qwen2", "qwen2", "Qwen2ForCausalLM", false, false},
    {"qwen3", "qwen3", "Qwen3ForCausalLM", false, true},
}};

// "{N}" stands for the layer number; every name ends with ".S", S a word suffix.
struct Rule {
  std::string_view gguf;
  std::string_view hf;
  QkRole role = QkRole::none;
  bool qk_norm = false;  // only for architectures with has_qk_norm
};

constexpr std::array<Rule, 14> kRules = {{
    {"token_embd", "model.embed_tokens"},
    {"output_norm", "model.norm"},
    {"output", "lm_head"},
    {"blk.{N}.attn_norm", "model.layers.{N}.input_layernorm"},
    {"blk.{N}.attn_q", "model.layers.{N}.self_attn.q_proj", QkRole::q},
    {"blk.{N}.attn_k", "model.layers.{N}.self_attn.k_proj", QkRole::k},
    {"blk.{N}.attn_v", "model.layers.{N}.self_attn.v_proj"},
    {"blk.{N}.attn_output", "model.layers.{N}.self_attn.o_proj"},
    {"blk.{N}.ffn_norm", "model.layers.{N}.post_attention_layernorm"},
    {"blk.{N}.ffn_gate", "model.layers.{N}.mlp.gate_proj"},
    {"blk.{N}.ffn_up", "model.layers.{N}.mlp.up_proj"},
    {"blk.{N}.ffn_down", "model.layers.{N}.mlp.down_proj"},
    {"blk.{N}.attn_q_norm", "model.layers.{N}.self_attn.q_norm", QkRole::none, true},
    {"blk.{N}.attn_k_norm", "model.layers.{N}.self_attn.k_norm", QkRole::none, true},
}};

constexpr std::string_view kLayer = "{N}";

bool is_word_char(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
}

struct Match {
  std::string_view layer;   // the digits standing for {N} (empty when the pattern has none)
  std::string_view suffix;  // the word after the last '.'
};

// name == pattern (with {N} = one or more digits) + "." + word, like the seed's regexes.
std::optional<Match> match(std::string_view pattern, std::string_view name) {
  Match m;
  const size_t at = pattern.find(kLayer);
  if (at != std::string_view::npos) {
    if (name.substr(0, at) != pattern.substr(0, at)) return std::nullopt;
    size_t digits = at;
    while (digits < name.size() && name[digits] >= '0' && name[digits] <= '9') ++digits;
    if (digits == at) return std::nullopt;
    m.layer = name.substr(at, digits - at);
    name = name.substr(digits);
    pattern = pattern.substr(at + kLayer.size());
  }
  if (name.size() < pattern.size() + 2 || name.substr(0, pattern.size()) != pattern ||
      name[pattern.size()] != '.')
    return std::nullopt;
  m.suffix = name.substr(pattern.size() + 1);
  for (const char c : m.suffix)
    if (!is_word_char(c)) return std::nullopt;
  return m;
}

std::string fill(std::string_view pattern, const Match& m) {
  std::string out;
  const size_t at = pattern.find(kLayer);
  if (at == std::string_view::npos) {
    out = pattern;
  } else {
    out = pattern.substr(0, at);
    out += m.layer;
    out += pattern.substr(at + kLayer.size());
  }
  out += '.';
  out += m.suffix;
  return out;
}

std::optional<Mapped> map_name(const Architecture& arch, std::string_view name, bool to_hf_side) {
  for (const Rule& rule : kRules) {
    if (rule.qk_norm && !arch.has_qk_norm) continue;
    const std::string_view from = to_hf_side ? rule.gguf : rule.hf;
    const std::string_view to = to_hf_side ? rule.hf : rule.gguf;
    if (const auto m = match(from, name)) return Mapped{fill(to, *m), rule.role};
  }
  return std::nullopt;
}

}  // namespace

const Architecture* find_architecture(std::string_view name) {
  for (const Architecture& a : kArchitectures)
    if (a.name == name) return &a;
  return nullptr;
}

NameError::NameError(std::string_view name)
    : std::runtime_error("cannot map tensor " + std::string(name)) {}

std::optional<Mapped> find_hf(const Architecture& arch, std::string_view gguf_name) {
  return map_name(arch, gguf_name, true);
}

Mapped to_hf(const Architecture& arch, std::string_view gguf_name) {
  auto mapped = map_name(arch, gguf_name, true);
  if (!mapped) throw NameError(gguf_name);
  return std::move(*mapped);
}

Mapped to_gguf(const Architecture& arch, std::string_view hf_name) {
  auto mapped = map_name(arch, hf_name, false);
  if (!mapped) throw NameError(hf_name);
  return std::move(*mapped);
}

}  // namespace gguf::hf
