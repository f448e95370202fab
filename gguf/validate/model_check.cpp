#include "gguf/validate/model_check.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "gguf/errors.hpp"
#include "gguf/render/render_text.hpp"
#include "gguf/types.hpp"

namespace gguf {

namespace {

// Big enough that a pread costs little per byte, small enough that every core gets work on a
// model made of a few large tensors.
constexpr uint64_t kChunkBytes = 4 << 20;

struct Chunk {
  size_t tensor;         // index into ModelCheck::tensors
  uint64_t first_block;  // within the tensor
  uint64_t n_blocks;
};

std::vector<Chunk> plan_chunks(const ModelCheck& check) {
  std::vector<Chunk> chunks;
  for (size_t i = 0; i < check.tensors.size(); ++i) {
    const TensorCheck& t = check.tensors[i];
    if (t.incomplete || t.big_endian || !is_usable_tensor_type(t.tensor->type_id)) continue;
    const uint32_t block_bytes = tensor_type(t.tensor->type_id)->block_bytes;
    const uint64_t blocks = t.tensor->bytes / block_bytes;
    const uint64_t per_chunk = std::max<uint64_t>(1, kChunkBytes / block_bytes);
    for (uint64_t b = 0; b < blocks; b += per_chunk)
      chunks.push_back({i, b, std::min(per_chunk, blocks - b)});
  }
  return chunks;
}

std::string file_name(const Model& m) {
  return std::filesystem::path(m.name()).filename().string();
}

}  // namespace

uint64_t TensorCheck::block_file_offset(uint64_t block) const {
  const auto type = tensor_type(tensor->type_id);
  const uint64_t block_bytes = type && type->block_bytes ? type->block_bytes : 0;
  return tensor->file_offset + block * block_bytes;
}

size_t ModelCheck::refused_count() const {
  return static_cast<size_t>(std::count_if(tensors.begin(), tensors.end(),
                                           [](const TensorCheck& t) { return t.refused(); }));
}

ModelCheck check_model_data(const ModelSet& set, unsigned threads, const CheckProgress& progress) {
  ModelCheck check;
  for (const ModelPtr& shard : set.shards) {
    for (const TensorInfo& t : shard->tensors) {
      TensorCheck c;
      c.shard = shard.get();
      c.tensor = &t;
      c.incomplete = !t.data_complete();
      c.big_endian = shard->big_endian;
      check.tensors.push_back(std::move(c));
    }
  }
  const std::vector<Chunk> chunks = plan_chunks(check);
  uint64_t total = 0;
  for (const Chunk& c : chunks)
    total += c.n_blocks * tensor_type(check.tensors[c.tensor].tensor->type_id)->block_bytes;

  // Each chunk's scan lands in its own slot; merged per tensor once every worker is done.
  std::vector<BlockScan> scans(chunks.size());
  std::atomic<size_t> next{0};
  std::atomic<uint64_t> done_bytes{0};
  std::mutex mutex;
  std::condition_variable finished;
  unsigned running = 0;
  std::exception_ptr error;

  auto worker = [&] {
    std::vector<uint8_t> buffer;
    try {
      for (size_t i = next++; i < chunks.size(); i = next++) {
        const Chunk& c = chunks[i];
        const TensorCheck& t = check.tensors[c.tensor];
        const uint32_t block_bytes = tensor_type(t.tensor->type_id)->block_bytes;
        const uint64_t size = c.n_blocks * block_bytes;
        buffer.resize(std::max<size_t>(buffer.size(), size));
        const uint64_t at = t.block_file_offset(c.first_block);
        if (t.shard->source->read_at(at, buffer.data(), size) != size)
          throw FormatError(FormatError::Kind::io, t.shard->name(), at,
                            "the file ended before the tensor's data (it shrank while checked)");
        scans[i] = scan_blocks(t.tensor->type_id, buffer.data(), c.n_blocks, c.first_block);
        done_bytes += size;
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
      next = chunks.size();  // the others stop after their chunk
    }
    std::lock_guard lock(mutex);
    --running;
    finished.notify_all();
  };

  unsigned n_threads = threads != 0 ? threads : std::max(1u, std::thread::hardware_concurrency());
  n_threads =
      static_cast<unsigned>(std::min<size_t>(n_threads, std::max<size_t>(1, chunks.size())));
  std::vector<std::thread> pool;
  running = n_threads;
  for (unsigned i = 0; i < n_threads; ++i) pool.emplace_back(worker);
  {
    std::unique_lock lock(mutex);
    while (running != 0) {
      finished.wait_for(lock, std::chrono::milliseconds(200));
      if (progress && running != 0) {
        lock.unlock();
        progress(done_bytes.load(), total);
        lock.lock();
      }
    }
  }
  for (std::thread& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  if (progress) progress(done_bytes.load(), total);

  for (size_t i = 0; i < chunks.size(); ++i) check.tensors[chunks[i].tensor].scan.merge(scans[i]);
  for (TensorCheck& t : check.tensors) {
    if (t.incomplete || t.big_endian) continue;
    t.verdict = judge(t.tensor->type_id, t.tensor->bytes, t.scan);
  }
  check.bytes_checked = total;
  return check;
}

std::string render_model_check(const ModelCheck& check) {
  std::string out;
  auto line = std::back_inserter(out);
  size_t warnings = 0, skipped = 0;
  for (const TensorCheck& t : check.tensors) {
    std::string name;  // escaped to one line, as every other message prints names
    render_detail::append_one_line(name, t.tensor->name);
    const std::string type = ggml_type_name(t.tensor->type_id);
    if (t.incomplete) {
      fmt::format_to(line,
                     "tensor '{}' data is not within the file bounds, model is corrupted or "
                     "incomplete ({} holds {} of its {} bytes)\n",
                     name, file_name(*t.shard), t.tensor->bytes_present, t.tensor->bytes);
      continue;
    }
    if (t.big_endian) {
      ++skipped;
      continue;
    }
    if (!t.verdict.valid()) {
      fmt::format_to(line, "tensor '{}' has invalid data: {}", name, t.verdict.message);
      if (t.verdict.block != kNoBlock) {
        fmt::format_to(line, " ({}, byte {} of {}", type, t.block_file_offset(t.verdict.block),
                       file_name(*t.shard));
        if (t.verdict.bad_blocks > 1) fmt::format_to(line, ", {} bad blocks", t.verdict.bad_blocks);
        out += ')';
      }
      out += '\n';
    }
    if (t.scan.nvfp4_nan_scales != 0) {
      ++warnings;
      fmt::format_to(line,
                     "warning: tensor '{}': {} NVFP4 scales are NaN in E4M3 (0x7F or 0xFF; "
                     "llama.cpp does not check them), first at block {} (byte {} of {})\n",
                     name, t.scan.nvfp4_nan_scales, t.scan.first_nvfp4_nan,
                     t.block_file_offset(t.scan.first_nvfp4_nan), file_name(*t.shard));
    }
    if (t.scan.all_zero && t.tensor->bytes != 0) {
      ++warnings;
      fmt::format_to(line, "warning: tensor '{}': all {} bytes are zero\n", name, t.tensor->bytes);
    }
  }
  if (skipped != 0)
    fmt::format_to(line,
                   "{} tensors of a big-endian file not checked (llama.cpp reads only "
                   "little-endian files)\n",
                   skipped);
  const size_t refused = check.refused_count();
  if (refused != 0) {
    fmt::format_to(line, "found tensors with invalid data: {} of {} tensors\n", refused,
                   check.tensors.size());
  } else {
    fmt::format_to(line, "tensor data valid: {} tensors, {} bytes checked", check.tensors.size(),
                   check.bytes_checked);
    if (warnings != 0) fmt::format_to(line, ", {} warnings", warnings);
    out += '\n';
  }
  return out;
}

}  // namespace gguf
