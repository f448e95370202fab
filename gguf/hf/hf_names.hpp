// Hugging Face names of GGUF tensors (issue 14): one table of the architectures whose GGUF names
// follow the llama-family rules of gguf-py's tensor_mapping.py (the seed's Example 11), both ways,
// and whether llama.cpp's converter permutes their Q/K rows.
//
//   GGUF                      Hugging Face
//   token_embd.S              model.embed_tokens.S
//   output_norm.S             model.norm.S
//   output.S                  lm_head.S
//   blk.N.attn_norm.S         model.layers.N.input_layernorm.S
//   blk.N.attn_q.S            model.layers.N.self_attn.q_proj.S    (permuted for llama)
//   blk.N.attn_k.S            model.layers.N.self_attn.k_proj.S    (permuted for llama)
//   blk.N.attn_v.S            model.layers.N.self_attn.v_proj.S
//   blk.N.attn_output.S       model.layers.N.self_attn.o_proj.S
//   blk.N.ffn_norm.S          model.layers.N.post_attention_layernorm.S
//   blk.N.ffn_gate.S          model.layers.N.mlp.gate_proj.S
//   blk.N.ffn_up.S            model.layers.N.mlp.up_proj.S
//   blk.N.ffn_down.S          model.layers.N.mlp.down_proj.S
//   blk.N.attn_q_norm.S       model.layers.N.self_attn.q_norm.S    (qwen3 only)
//   blk.N.attn_k_norm.S       model.layers.N.self_attn.k_norm.S    (qwen3 only)
// N is a decimal layer number, S a word suffix (weight, bias), both copied unchanged.
//
// Architectures: llama (Mistral models use it too; its converter permutes Q/K for llama.cpp's
// RoPE layout), qwen2 and qwen3 (NEOX RoPE: Q/K rows stay as stored).
#pragma once

#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

namespace gguf::hf {

// Which projection a tensor is, for the Q/K un-permute.
enum class QkRole { none, q, k };

struct Architecture {
  std::string_view name;        // general.architecture: "llama"
  std::string_view model_type;  // transformers' config model_type: "llama"
  std::string_view class_name;  // config "architectures": "LlamaForCausalLM"
  bool permutes_qk;             // llama.cpp's converter permuted attn_q / attn_k rows
  bool has_qk_norm;             // attn_q_norm / attn_k_norm exist (qwen3)
};

// The table entry of general.architecture, or nullptr for an architecture without HF names.
const Architecture* find_architecture(std::string_view name);

// A name that no rule maps; what() is "cannot map tensor NAME".
class NameError : public std::runtime_error {
 public:
  explicit NameError(std::string_view name);
};

struct Mapped {
  std::string name;
  QkRole role = QkRole::none;
};

// GGUF name -> Hugging Face name ("blk.17.ffn_gate.weight" ->
// "model.layers.17.mlp.gate_proj.weight"). Throws NameError.
Mapped to_hf(const Architecture& arch, std::string_view gguf_name);
// The same without an exception (nullopt), for mapping every tensor of a model cheaply.
std::optional<Mapped> find_hf(const Architecture& arch, std::string_view gguf_name);
// Hugging Face name -> GGUF name, the reverse. Throws NameError ("model.rotary_emb.inv_freq").
Mapped to_gguf(const Architecture& arch, std::string_view hf_name);

}  // namespace gguf::hf
