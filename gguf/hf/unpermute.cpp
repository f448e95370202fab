#include "gguf/hf/unpermute.hpp"

#include <cstring>

namespace gguf::hf {

bool can_unpermute(uint64_t rows, uint64_t n_head) {
  return n_head != 0 && rows % n_head == 0 && (rows / n_head) % 2 == 0;
}

uint64_t stored_row(uint64_t hf_row, uint64_t rows, uint64_t n_head) {
  const uint64_t head_rows = rows / n_head;  // 2 * half
  const uint64_t half = head_rows / 2;
  const uint64_t head = hf_row / head_rows;
  const uint64_t within = hf_row % head_rows;  // t * half + j
  const uint64_t t = within / half;
  const uint64_t j = within % half;
  return head * head_rows + j * 2 + t;
}

void unpermute_rows(const void* src, void* dst, uint64_t rows, size_t row_bytes, uint64_t n_head) {
  const auto* from = static_cast<const uint8_t*>(src);
  auto* to = static_cast<uint8_t*>(dst);
  for (uint64_t r = 0; r < rows; ++r)
    std::memcpy(to + r * row_bytes, from + stored_row(r, rows, n_head) * row_bytes, row_bytes);
}

}  // namespace gguf::hf
