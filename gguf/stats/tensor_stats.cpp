#include "gguf/stats/tensor_stats.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include <fmt/format.h>

#include "gguf/decode/decode.hpp"
#include "gguf/decoded_view.hpp"
#include "gguf/errors.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

constexpr uint64_t kPieceBytes = 1 << 20;

// Calls body(bytes, n_blocks, first_block) for each run of whole blocks of the tensor.
void for_each_piece(const Model& model, const TensorInfo& tensor, uint32_t block_bytes,
                    const std::function<void(const uint8_t*, uint64_t, uint64_t)>& body) {
  const uint64_t blocks = tensor.bytes / block_bytes;
  const uint64_t per_piece = std::max<uint64_t>(1, kPieceBytes / block_bytes);
  std::vector<uint8_t> buffer(static_cast<size_t>(std::min(blocks, per_piece) * block_bytes));
  for (uint64_t b = 0; b < blocks; b += per_piece) {
    const uint64_t n = std::min(per_piece, blocks - b);
    const uint64_t at = tensor.file_offset + b * block_bytes;
    if (model.source->read_at(at, buffer.data(), n * block_bytes) != n * block_bytes)
      throw FormatError(FormatError::Kind::io, model.name(), at,
                        "the file ends inside the tensor's data");
    body(buffer.data(), n, b);
  }
}

// Shortest forms that read back to the same float32 / float64.
std::string number(float v) {
  return fmt::format("{}", v);
}
std::string number(double v) {
  return fmt::format("{}", v);
}

}  // namespace

TensorStats compute_tensor_stats(const Model& model, const TensorInfo& tensor) {
  TensorStats s;
  s.elements = tensor.elements;
  const auto type = tensor_type(tensor.type_id);
  const bool usable = type && tensor.type_known && type->block_bytes != 0;
  const DecodedView view = decoded_view(model, tensor);
  s.decoded = view.available;
  s.not_decoded = view.reason;
  s.checked = usable && !model.big_endian;
  if (!usable) {
    s.checked = true;
    s.verdict = judge(tensor.type_id, tensor.bytes, BlockScan{});
    return s;
  }
  const uint32_t block_bytes = type->block_bytes;
  const uint32_t block_size = type->block_size;
  std::vector<float> values;
  auto decode = [&](const uint8_t* bytes, uint64_t n) {
    values.resize(static_cast<size_t>(n * block_size));
    if (model.big_endian)
      decode_blocks_big_endian(tensor.type_id, bytes, n, values.data());
    else
      decode_blocks(tensor.type_id, bytes, n, values.data());
  };

  // Pass 1: the verdict, the counts, min, max and the sum.
  BlockScan scan;
  double sum = 0;
  float min = INFINITY, max = -INFINITY;
  for_each_piece(model, tensor, block_bytes, [&](const uint8_t* bytes, uint64_t n, uint64_t first) {
    if (s.checked) scan.merge(scan_blocks(tensor.type_id, bytes, n, first));
    if (!s.decoded) return;
    decode(bytes, n);
    for (const float v : values) {
      if (std::isnan(v)) {
        ++s.nan;
      } else if (std::isinf(v)) {
        ++s.inf;
      } else {
        ++s.finite;
        if (v == 0.0f) ++s.zeros;
        min = std::min(min, v);
        max = std::max(max, v);
        sum += v;
      }
    }
  });
  if (s.checked) s.verdict = judge(tensor.type_id, tensor.bytes, scan);
  if (!s.decoded || s.finite == 0) return s;
  s.min = min;
  s.max = max;
  s.absmax = std::max(std::fabs(min), std::fabs(max));
  s.mean = sum / static_cast<double>(s.finite);

  // Pass 2: the histogram, and the spread around the mean (two passes keep std exact enough for
  // values far from zero).
  const double width = static_cast<double>(max) - static_cast<double>(min);
  double squares = 0;
  for_each_piece(model, tensor, block_bytes, [&](const uint8_t* bytes, uint64_t n, uint64_t) {
    decode(bytes, n);
    for (const float v : values) {
      if (!std::isfinite(v)) continue;
      const double d = static_cast<double>(v) - s.mean;
      squares += d * d;
      size_t bin = 0;
      if (width > 0)
        bin = std::min<size_t>(
            15,
            static_cast<size_t>((static_cast<double>(v) - static_cast<double>(min)) / width * 16));
      ++s.histogram[bin];
    }
  });
  s.std = std::sqrt(squares / static_cast<double>(s.finite));
  return s;
}

std::string render_tensor_stats(const TensorStats& s) {
  std::string out;
  auto line = std::back_inserter(out);
  fmt::format_to(line, "elements: {}\n", s.elements);
  if (s.decoded) {
    const bool any = s.finite != 0;
    fmt::format_to(line, "nan: {}\ninf: {}\nzeros: {}\n", s.nan, s.inf, s.zeros);
    fmt::format_to(line, "min: {}\nmax: {}\nmean: {}\nstd: {}\nabsmax: {}\n",
                   any ? number(s.min) : "nan", any ? number(s.max) : "nan",
                   any ? number(s.mean) : "nan", any ? number(s.std) : "nan",
                   any ? number(s.absmax) : "nan");
  } else {
    fmt::format_to(line, "values: not decoded ({})\n", s.not_decoded);
  }
  if (!s.checked)
    out += "invalid: not checked (big-endian file)\n";
  else if (s.verdict.valid())
    out += "invalid: no\n";
  else
    fmt::format_to(line, "invalid: {}\n", s.verdict.message);
  if (s.decoded) fmt::format_to(line, "histogram: {}\n", fmt::join(s.histogram, " "));
  return out;
}

}  // namespace gguf
