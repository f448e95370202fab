#include "gguf/validate/validate.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <cmath>

#include <fmt/format.h>

#include "gguf/decode/decode_internal.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

namespace ids = gguf::type_id;
using decode::load_u16;
using decode::load_u32;
using decode::load_u64;

// ggml's isinf_fp16 / isnan_fp16: the bit patterns, not a conversion.
DataProblem fp16_problem(uint16_t h) {
  if ((h & 0x7C00u) != 0x7C00u) return DataProblem::none;
  return (h & 0x03FFu) != 0 ? DataProblem::nan_value : DataProblem::inf_value;
}

DataProblem f32_problem(uint32_t w) {
  if ((w & 0x7F800000u) != 0x7F800000u) return DataProblem::none;
  return (w & 0x007FFFFFu) != 0 ? DataProblem::nan_value : DataProblem::inf_value;
}

// ggml passes each double to validate_float(float): a finite double beyond the float range
// becomes inf there, so 1e300 is "found inf value". 0x1.ffffffp127 is the halfway point between
// FLT_MAX and 2^128, which rounds (to even) up to inf.
DataProblem f64_problem(uint64_t bits) {
  const double d = std::bit_cast<double>(bits);
  if (std::isnan(d)) return DataProblem::nan_value;
  if (std::fabs(d) >= 0x1.ffffffp127) return DataProblem::inf_value;
  return DataProblem::none;
}

void record(BlockScan& s, uint64_t block, DataProblem p) {
  ++s.bad_blocks;
  if (block < s.first_bad) {
    s.first_bad = block;
    s.problem = p;
  }
}

// Runs check on each block; check returns the block's problem (none for most).
template <class Check>
void scan_each(const uint8_t* data, uint64_t n, uint32_t stride, uint64_t first, BlockScan& s,
               Check check) {
  for (uint64_t i = 0; i < n; ++i) {
    const DataProblem p = check(data + i * stride);
    if (p != DataProblem::none) [[unlikely]]
      record(s, first + i, p);
  }
}

// Plain float arrays: a branch-free pass that vectorizes finds whether any element has an
// all-ones exponent; only then are the elements looked at one by one.
template <class Word>
bool any_all_ones_exponent(const uint8_t* data, uint64_t n, Word exponent_mask) {
  Word hits = 0;
  for (uint64_t i = 0; i < n; ++i) {
    Word w;
    __builtin_memcpy(&w, data + i * sizeof(Word), sizeof(Word));
    hits |= static_cast<Word>((w & exponent_mask) == exponent_mask);
  }
  return hits != 0;
}

bool bytes_all_zero(const uint8_t* data, uint64_t size) {
  uint64_t acc = 0;
  uint64_t i = 0;
  for (; i + 8 <= size; i += 8) {
    uint64_t w;
    __builtin_memcpy(&w, data + i, 8);
    acc |= w;
  }
  for (; i < size; ++i) acc |= data[i];
  return acc == 0;
}

void scan_bf16(const uint8_t* data, uint64_t n, uint64_t first, BlockScan& s) {
  if (!any_all_ones_exponent<uint16_t>(data, n, 0x7F80u)) return;
  for (uint64_t i = 0; i < n; ++i) {
    const uint16_t m = load_u16(data + 2 * i) & 0x7FFFu;
    if (m > 0x7F80u) {
      ++s.bf16_nans;
      s.first_bf16_nan = std::min(s.first_bf16_nan, first + i);
    } else if (m == 0x7F80u) {
      ++s.bf16_infs;
      s.first_bf16_inf = std::min(s.first_bf16_inf, first + i);
    }
  }
}

// The fp16 d of each block at byte d_at (ggml's VALIDATE_ROW_DATA_D_F16_IMPL).
void scan_d(const uint8_t* data, uint64_t n, uint32_t stride, uint32_t d_at, uint64_t first,
            BlockScan& s) {
  scan_each(data, n, stride, first, s,
            [d_at](const uint8_t* b) { return fp16_problem(load_u16(b + d_at)); });
}

// d, then m or dmin (VALIDATE_ROW_DATA_DM_F16_IMPL): d's problem wins within a block.
void scan_dm(const uint8_t* data, uint64_t n, uint32_t stride, uint32_t d_at, uint32_t m_at,
             uint64_t first, BlockScan& s) {
  scan_each(data, n, stride, first, s, [d_at, m_at](const uint8_t* b) {
    const DataProblem d = fp16_problem(load_u16(b + d_at));
    return d != DataProblem::none ? d : fp16_problem(load_u16(b + m_at));
  });
}

// IQ1_M has no d field: its fp16 scale is the top nibbles of the four u16 scales at byte 48.
uint16_t iq1m_scale(const uint8_t* b) {
  const uint16_t s0 = load_u16(b + 48), s1 = load_u16(b + 50), s2 = load_u16(b + 52),
                 s3 = load_u16(b + 54);
  return static_cast<uint16_t>((s0 >> 12) | ((s1 >> 8) & 0x00F0u) | ((s2 >> 4) & 0x0F00u) |
                               (s3 & 0xF000u));
}

void scan_nvfp4_scales(const uint8_t* data, uint64_t n, uint64_t first, BlockScan& s) {
  for (uint64_t i = 0; i < n; ++i) {
    const uint8_t* b = data + i * 36;
    for (int k = 0; k < 4; ++k) {
      if ((b[k] & 0x7Fu) == 0x7Fu) [[unlikely]] {
        ++s.nvfp4_nan_scales;
        s.first_nvfp4_nan = std::min(s.first_nvfp4_nan, first + i);
      }
    }
  }
}

// The checks of one piece of blocks (small enough to stay in cache for the zero test).
void scan_piece(uint32_t type_id, uint32_t stride, const uint8_t* data, uint64_t n, uint64_t first,
                BlockScan& s) {
  switch (type_id) {
    case ids::F32:
      if (any_all_ones_exponent<uint32_t>(data, n, 0x7F800000u))
        scan_each(data, n, 4, first, s, [](const uint8_t* b) { return f32_problem(load_u32(b)); });
      break;
    case ids::F16:
      if (any_all_ones_exponent<uint16_t>(data, n, 0x7C00u)) scan_d(data, n, 2, 0, first, s);
      break;
    case ids::F64:
      scan_each(data, n, 8, first, s, [](const uint8_t* b) { return f64_problem(load_u64(b)); });
      break;
    case ids::BF16:
      scan_bf16(data, n, first, s);
      break;
    case ids::Q8_K:  // a float d
      scan_each(data, n, stride, first, s,
                [](const uint8_t* b) { return f32_problem(load_u32(b)); });
      break;
    case ids::Q4_1:
    case ids::Q5_1:
    case ids::Q4_K:
    case ids::Q5_K:
      scan_dm(data, n, stride, 0, 2, first, s);
      break;
    case ids::Q2_K:
      scan_dm(data, n, stride, 80, 82, first, s);
      break;
    case ids::Q3_K:
      scan_d(data, n, stride, 108, first, s);
      break;
    case ids::Q6_K:
      scan_d(data, n, stride, 208, first, s);
      break;
    case ids::TQ1_0:
      scan_d(data, n, stride, 52, first, s);
      break;
    case ids::TQ2_0:
      scan_d(data, n, stride, 64, first, s);
      break;
    case ids::Q4_0:
    case ids::Q5_0:
    case ids::Q8_0:
    case ids::Q1_0:
    case ids::Q2_0:  // newest ggml types: d first, as every legacy block
    case ids::IQ1_S:
    case ids::IQ2_XXS:
    case ids::IQ2_XS:
    case ids::IQ2_S:
    case ids::IQ3_XXS:
    case ids::IQ3_S:
    case ids::IQ4_XS:
    case ids::IQ4_NL:
      scan_d(data, n, stride, 0, first, s);
      break;
    case ids::IQ1_M:
      scan_each(data, n, stride, first, s,
                [](const uint8_t* b) { return fp16_problem(iq1m_scale(b)); });
      break;
    case ids::MXFP4:
      scan_each(data, n, stride, first, s, [](const uint8_t* b) {
        return b[0] == 0xFF ? DataProblem::invalid_e : DataProblem::none;
      });
      break;
    case ids::NVFP4:  // ggml: "all byte values are valid"; a warning here
      scan_nvfp4_scales(data, n, first, s);
      break;
    default:  // integers (nothing to validate), Q8_1 and unknown ids (refused by judge)
      break;
  }
}

constexpr uint64_t kPieceBytes = 64 * 1024;

}  // namespace

void BlockScan::merge(const BlockScan& o) {
  if (o.first_bad < first_bad) {
    first_bad = o.first_bad;
    problem = o.problem;
  }
  bad_blocks += o.bad_blocks;
  bf16_nans += o.bf16_nans;
  bf16_infs += o.bf16_infs;
  first_bf16_nan = std::min(first_bf16_nan, o.first_bf16_nan);
  first_bf16_inf = std::min(first_bf16_inf, o.first_bf16_inf);
  nvfp4_nan_scales += o.nvfp4_nan_scales;
  first_nvfp4_nan = std::min(first_nvfp4_nan, o.first_nvfp4_nan);
  all_zero = all_zero && o.all_zero;
}

BlockScan scan_blocks(uint32_t type_id, const uint8_t* data, uint64_t n_blocks,
                      uint64_t first_block) {
  BlockScan s;
  const auto type = tensor_type(type_id);
  if (!type || type->block_bytes == 0) return s;
  const uint32_t stride = type->block_bytes;
  const uint64_t piece_blocks = std::max<uint64_t>(1, kPieceBytes / stride);
  for (uint64_t done = 0; done < n_blocks; done += piece_blocks) {
    const uint64_t n = std::min(piece_blocks, n_blocks - done);
    const uint8_t* piece = data + done * stride;
    if (s.all_zero && !bytes_all_zero(piece, n * stride)) s.all_zero = false;
    scan_piece(type_id, stride, piece, n, first_block + done, s);
  }
  return s;
}

bool validation_knows_type(uint32_t type_id) {
  return is_usable_tensor_type(type_id) && type_id != ids::Q8_1;
}

std::string ggml_type_name(uint32_t type_id) {
  const auto type = tensor_type(type_id);
  if (!type) return fmt::format("type {}", type_id);
  std::string name(type->name);
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (name.size() > 2 && name.ends_with("_k")) name.back() = 'K';  // "q4_K", as ggml spells it
  return name;
}

DataVerdict judge(uint32_t type_id, uint64_t nbytes, const BlockScan& scan) {
  DataVerdict v;
  // ggml's order: the type id, the size, then the type's own check (Q8_1 falls to the default).
  if (!is_usable_tensor_type(type_id)) {
    v.problem = DataProblem::invalid_type;
    v.message = fmt::format("invalid type {}", type_id);
    return v;
  }
  const uint32_t block_bytes = tensor_type(type_id)->block_bytes;
  if (nbytes % block_bytes != 0) {
    v.problem = DataProblem::invalid_size;
    v.message = fmt::format("invalid size {} for type {} (type size = {})", nbytes,
                            ggml_type_name(type_id), block_bytes);
    return v;
  }
  if (!validation_knows_type(type_id)) {
    v.problem = DataProblem::invalid_type;
    v.message = fmt::format("invalid type {}", type_id);
    return v;
  }
  if (type_id == ids::BF16) {
    const uint64_t values = nbytes / 2;
    v.bad_blocks = scan.bf16_nans + scan.bf16_infs;
    if (scan.bf16_nans != 0) {
      v.problem = DataProblem::bf16_nans;
      v.block = scan.first_bf16_nan;
      v.message = fmt::format("found {} NaNs in row of {} BF16 values", scan.bf16_nans, values);
    } else if (scan.bf16_infs != 0) {
      v.problem = DataProblem::bf16_infs;
      v.block = scan.first_bf16_inf;
      v.message =
          fmt::format("found {} infinities in row of {} BF16 values", scan.bf16_infs, values);
    }
    return v;
  }
  if (scan.problem == DataProblem::none) return v;
  v.problem = scan.problem;
  v.block = scan.first_bad;
  v.bad_blocks = scan.bad_blocks;
  switch (scan.problem) {
    case DataProblem::inf_value:
      v.message = fmt::format("found inf value at block {}", scan.first_bad);
      break;
    case DataProblem::nan_value:
      v.message = fmt::format("found nan value at block {}", scan.first_bad);
      break;
    default:  // MXFP4: e is always 0xFF when refused
      v.message = fmt::format("found invalid e value 255 at block {}", scan.first_bad);
      break;
  }
  return v;
}

DataVerdict validate_tensor_data(uint32_t type_id, const uint8_t* data, uint64_t nbytes) {
  const auto type = tensor_type(type_id);
  const uint64_t block_bytes = type && type->block_bytes ? type->block_bytes : 1;
  return judge(type_id, nbytes, scan_blocks(type_id, data, nbytes / block_bytes, 0));
}

}  // namespace gguf
