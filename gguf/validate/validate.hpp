// Tensor data validation exactly as llama.cpp's loader does it with check_tensors:
// ggml_validate_row_data (ggml-quants.c) over each tensor's whole byte range (reference §2.3).
//
// Per type it checks: NaN/Inf in F32, F64 (as float), F16 and BF16 values; NaN/Inf in the fp16
// d (and m / dmin) of the quantized blocks; the float d of Q8_K; the fp16 scale IQ1_M rebuilds
// from its scale nibbles; MXFP4's e == 0xFF. Integer types and NVFP4 are not checked; Q8_1 and
// unknown ids are "invalid type"; a size that is not whole blocks is "invalid size".
//
// Scanning is split from judging so a tensor can be scanned in chunks on several threads:
// scan_blocks over any run of whole blocks, BlockScan::merge the chunks, then judge().
// Pure functions over bytes: no I/O, no threads.
#pragma once

#include <cstdint>
#include <limits>
#include <string>

namespace gguf {

enum class DataProblem : uint8_t {
  none,
  inf_value,     // "found inf value at block N"
  nan_value,     // "found nan value at block N"
  invalid_e,     // "found invalid e value 255 at block N" (MXFP4)
  bf16_nans,     // "found K NaNs in row of N BF16 values"
  bf16_infs,     // "found K infinities in row of N BF16 values"
  invalid_size,  // "invalid size S for type t (type size = B)"
  invalid_type,  // "invalid type N"
};

inline constexpr uint64_t kNoBlock = std::numeric_limits<uint64_t>::max();

// What a run of blocks holds; blocks are numbered from the start of the tensor.
struct BlockScan {
  uint64_t first_bad = kNoBlock;            // the first block llama.cpp would stop at
  DataProblem problem = DataProblem::none;  // what is wrong with that block (inf/nan/invalid_e)
  uint64_t bad_blocks = 0;                  // blocks with any such problem
  // BF16 only: llama.cpp counts NaNs and infinities over the whole tensor.
  uint64_t bf16_nans = 0, bf16_infs = 0;
  uint64_t first_bf16_nan = kNoBlock, first_bf16_inf = kNoBlock;
  // Not checked by llama.cpp, reported as warnings: NVFP4 scale bytes 0x7F/0xFF (NaN in E4M3).
  uint64_t nvfp4_nan_scales = 0;
  uint64_t first_nvfp4_nan = kNoBlock;
  bool all_zero = true;  // every byte is zero

  // Combines the scans of two disjoint runs of the same tensor (in any order).
  void merge(const BlockScan& other);
};

// Scans n_blocks whole blocks of type_id at data (n_blocks * block_bytes bytes); first_block is
// the index of data's first block within the tensor. Types with nothing to check (integers,
// unknown ids) only get all_zero. type_id must be usable (gguf::is_usable_tensor_type) for any
// check to run.
BlockScan scan_blocks(uint32_t type_id, const uint8_t* data, uint64_t n_blocks,
                      uint64_t first_block);

struct DataVerdict {
  DataProblem problem = DataProblem::none;  // none: llama.cpp accepts the bytes
  uint64_t block = kNoBlock;                // the first bad block (kNoBlock for size/type problems)
  uint64_t bad_blocks = 0;
  // llama.cpp's message without its "ggml_validate_row_data: " prefix, e.g.
  // "found nan value at block 3"; empty when valid.
  std::string message;
  bool valid() const { return problem == DataProblem::none; }
};

// The verdict on a tensor of type_id and nbytes bytes whose blocks scan describes (ignored when
// the type or size is refused before any block is looked at, as ggml does).
DataVerdict judge(uint32_t type_id, uint64_t nbytes, const BlockScan& scan);

// The whole check on one buffer: judge(type_id, nbytes, scan_blocks(...)).
DataVerdict validate_tensor_data(uint32_t type_id, const uint8_t* data, uint64_t nbytes);

// True when ggml_validate_row_data knows the type (every usable id but Q8_1).
bool validation_knows_type(uint32_t type_id);

// ggml_type_name: "f32", "q4_K", "iq2_xxs", as llama.cpp prints it.
std::string ggml_type_name(uint32_t type_id);

}  // namespace gguf
