// The inverse of llama.cpp's Q/K permute (convert_hf_to_gguf.py, LlamaModel.permute):
//   permute(w, n_head, n_head_kv): n_head = n_head_kv when it is set and differs, then
//   w.reshape(n_head, 2, rows / n_head / 2, ...).swapaxes(1, 2).reshape(w.shape)
// It only moves whole rows (the outermost dimension): within each head of 2 * half rows, the
// stored row h*2*half + j*2 + t holds the Hugging Face row h*2*half + t*half + j. A bias (one
// value per row) moves the same way. q uses head_count, k uses head_count_kv.
#pragma once

#include <cstddef>
#include <cstdint>

namespace gguf::hf {

// True when rows can be split into n_head heads of two equal halves (what permute's reshape
// needs).
bool can_unpermute(uint64_t rows, uint64_t n_head);

// The stored (GGUF) row that holds Hugging Face row hf_row of a tensor of rows rows permuted
// with n_head heads. Requires can_unpermute(rows, n_head) and hf_row < rows.
uint64_t stored_row(uint64_t hf_row, uint64_t rows, uint64_t n_head);

// Reorders rows rows of row_bytes bytes from stored (GGUF) order in src into Hugging Face order
// in dst (not overlapping).
void unpermute_rows(const void* src, void* dst, uint64_t rows, size_t row_bytes, uint64_t n_head);

}  // namespace gguf::hf
