// Typical models built with gguf::Writer, shared by unit tests, mount tests and benchmarks.
// Each builder returns the Writer, so a test can add to it, take to_bytes() or write_file().
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gguf/errors.hpp"
#include "gguf/model.hpp"
#include "gguf/writer.hpp"

namespace test_support {

// The seed's Example 17 demo file: 3 KV pairs (general.architecture "llama",
// llama.embedding_length 64, general.file_type 7), one Q8_0 tensor token_embd.weight [64, 4]
// of zeros at offset 0. Data at byte 224, file 496 bytes (no padding after the tensor).
gguf::Writer ggufinfo_demo_writer();

// The seed's Example 17 "tiny-Q4_K_M" model: a 4-layer llama (embedding 256, ffn 704, 8 heads,
// 2 KV heads, vocab 151,936), 22 KV pairs, 39 tensors of zeros. The token texts are padded so
// the data section starts at byte 5,931,072 and the file is 61,544,512 bytes.
// Tensor types: token_embd Q4_K, output Q6_K, norms F32, attn_v Q6_K in layers 2-3 and Q4_K in
// 0-1, ffn_down Q8_0 in layers 2-3 and Q5_0 in 0-1, every other matrix Q4_K.
gguf::Writer tiny_q4_k_m_writer();
inline constexpr uint64_t kTinyQ4KMDataOffset = 5'931'072;
inline constexpr uint64_t kTinyQ4KMFileSize = 61'544'512;

// A vocabulary-only file shaped like llama.cpp's ggml-vocab-llama-bpe.gguf (the seed's
// Example 14): 20 KV pairs, 128,256 tokens, 280,147 merges, no tensors, metadata ending at byte
// 7,818,144 (about 7.8 MB). Token texts are synthetic byte-level BPE pieces.
gguf::Writer llama3_vocab_writer();
inline constexpr uint64_t kLlama3VocabTokens = 128'256;
inline constexpr uint64_t kLlama3VocabMerges = 280'147;
inline constexpr uint64_t kLlama3VocabDataOffset = 7'818'144;

// A small llama-flavoured model with known contents, for tree and rendering tests:
//   general.architecture "llama", general.name "small-test-model", llama.block_count 1 (u32),
//   llama.context_length 128 (u32), tokenizer.ggml.tokens ["<s>", "</s>", "hello", "world"],
//   tokenizer.ggml.scores [0, 0, -1.5, -2.5] (f32), tokenizer.ggml.token_type [3, 3, 1, 1] (i32)
// and tensors (offsets packed at alignment 32):
//   token_embd.weight  F32 [4, 2]  = 0, 1, 2, ..., 7
//   blk.0.attn_norm.weight F16 [4] = 1.0, 2.0, -0.5, 0.0  (fp16 bits 3C00 4000 B800 0000)
//   output.weight      Q8_0 [32, 1]: scale 0.5 (fp16 0x3800), quants -16..15, i.e. values
//                      -8.0, -7.5, ..., 7.5
gguf::Writer small_model_writer();

// Deterministic synthetic byte-level BPE vocabulary: the 256 GPT-2 byte tokens, then distinct
// tokens made by merging two earlier tokens (each such merge recorded as "left right"; lengths
// around 8 bytes, at most max_token_bytes), extra merges up to n_merges, and the given special
// tokens at the end (n_tokens in total).
struct SyntheticVocab {
  std::vector<std::string> tokens;
  std::vector<std::string> merges;
  std::vector<int32_t> token_types;  // 1 normal, 3 control (specials), 6 byte tokens
};
SyntheticVocab synthetic_vocab(uint64_t n_tokens, uint64_t n_merges,
                               const std::vector<std::string>& specials, uint32_t max_token_bytes);

// Parses bytes held in memory under the given name (the name FormatError messages carry).
gguf::ModelPtr parse_bytes(const std::string& bytes, const std::string& name = "test.gguf");
// The FormatError that parsing these bytes throws, or nullopt when they parse.
std::optional<gguf::FormatError> parse_error(const std::string& bytes,
                                             const std::string& name = "test.gguf");
// True when one of the lines contains every one of the fragments.
bool has_line_with(const std::vector<std::string>& lines,
                   const std::vector<std::string_view>& fragments);

}  // namespace test_support
