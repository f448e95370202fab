// The GGUF reader. Every length, count and offset from the file is checked against the bytes
// that remain before it is used; sizes use checked 64-bit arithmetic. What cannot be read as
// GGUF throws FormatError; what llama.cpp would reject but still leaves the metadata readable is
// loaded with a warning (see the list, mirrored by the checks below).
#include "gguf/parser.hpp"

#include <sys/mman.h>

#include <fmt/format.h>
#include <algorithm>
#include <bit>
#include <type_traits>
#include <unordered_map>
#include <unordered_set>

#include "gguf/byte_order.hpp"
#include "gguf/errors.hpp"
#include "gguf/source/header_buffer.hpp"

namespace gguf {

Model::~Model() {
  if (header_bytes && header_capacity != 0)
    ::munmap(const_cast<uint8_t*>(header_bytes), header_capacity);
}

const MetadataEntry* Model::find(std::string_view key) const {
  for (const auto& e : metadata)
    if (e.key == key) return &e;
  return nullptr;
}

std::string_view Model::stored_value(const MetadataEntry& e) const {
  const size_t start = e.file_offset + 8 + e.key.size() + 4;  // key length, key, type id
  return {reinterpret_cast<const char*>(header_bytes) + start,
          static_cast<size_t>(e.value.encoded_size())};
}

uint64_t Model::missing_bytes() const {
  uint64_t missing = 0;
  for (const auto& t : tensors) missing += t.bytes - t.bytes_present;
  return missing;
}

namespace {

using Kind = FormatError::Kind;

// Names in messages: printable ASCII kept, everything else as \xHH, cut to a sane length.
std::string printable(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < 80; ++i) {
    auto c = static_cast<unsigned char>(s[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else {
      out += fmt::format("\\x{:02x}", c);
    }
  }
  if (s.size() > 80) out += "...";
  return out;
}

// Sequential, bounds-checked reading of the header bytes.
template <class What>
std::string describe(const What& what) {
  if constexpr (std::is_invocable_v<What>) {
    return what();
  } else {
    return std::string(what);
  }
}

class Cursor {
 public:
  Cursor(HeaderBuffer& buf, const std::string& file) : buf_(buf), file_(file) {}

  uint64_t pos() const { return pos_; }
  uint64_t remaining() const { return buf_.file_size() - pos_; }
  bool big_endian = false;

  [[noreturn]] void fail(Kind kind, uint64_t at, const std::string& msg) const {
    throw FormatError(kind, file_, at, msg);
  }

  // `what` names the field for the error message: a string, or a callable returning one, so
  // that the hot paths (hundreds of thousands of strings) never format a message.
  template <class What>
  const char* take(uint64_t n, const What& what) {
    if (n > remaining()) {
      fail(Kind::malformed, pos_,
           fmt::format("expected {} ({} bytes), but the file ends after {} more bytes",
                       describe(what), n, remaining()));
    }
    buf_.ensure(pos_ + n);
    const char* p = reinterpret_cast<const char*>(buf_.data() + pos_);
    pos_ += n;
    return p;
  }

  template <class T, class What>
  T read(const What& what) {
    return load<T>(take(sizeof(T), what), big_endian);
  }

  template <class What>
  std::string_view string(const What& what) {
    uint64_t at = pos_;
    uint64_t len = read<uint64_t>([&] { return "the length of " + describe(what); });
    if (len > remaining()) {
      fail(Kind::malformed, at,
           fmt::format("string length {} exceeds the {} bytes left in the file", len, remaining()));
    }
    return std::string_view(take(len, what), len);
  }

 private:
  HeaderBuffer& buf_;
  const std::string& file_;
  uint64_t pos_ = 0;
};

bool checked_mul(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_mul_overflow(a, b, out);
}
bool checked_add(uint64_t a, uint64_t b, uint64_t* out) {
  return !__builtin_add_overflow(a, b, out);
}

uint64_t align_up(uint64_t x, uint64_t alignment, bool* overflow) {
  uint64_t r = x % alignment;
  if (r == 0) return x;
  uint64_t out;
  *overflow = !checked_add(x, alignment - r, &out);
  return *overflow ? x : out;
}

class Parser {
 public:
  Parser(std::shared_ptr<ByteSource> source, const ParseOptions& options)
      : source_(std::move(source)),
        options_(options),
        buf_(*source_),
        cur_(buf_, source_->name()) {}

  ModelPtr run() {
    auto model = std::make_shared<Model>();
    model_ = model.get();
    model_->source = source_;
    model_->file_size = source_->size();
    read_header();
    read_metadata();
    choose_alignment();
    read_tensor_infos();
    lay_out_data();
    buf_.release(&model_->header_bytes, &model_->header_capacity, &model_->header_lender);
    return model;
  }

 private:
  void warn(const std::string& text) { model_->warnings.push_back(text); }
  void warn_tensor(TensorInfo& t, const std::string& text) {
    t.warnings.push_back(text);
    warn(fmt::format("tensor '{}': {}", printable(t.name), text));
  }

  void read_header() {
    uint64_t size = source_->size();
    if (size == 0)
      cur_.fail(Kind::not_gguf, 0, "the file is empty (0 bytes), expected a GGUF file");
    buf_.ensure(std::min<uint64_t>(size, 64));
    std::string_view head(reinterpret_cast<const char*>(buf_.data()), std::min<uint64_t>(size, 64));
    if (head.starts_with("version https://git-lfs")) {
      cur_.fail(
          Kind::not_gguf, 0,
          "this is a Git LFS pointer file, not the model: fetch the real file (git lfs pull)");
    }
    if (size < 4 || head.substr(0, 4) != "GGUF") {
      cur_.fail(Kind::not_gguf, 0,
                fmt::format("expected the magic 'GGUF', found '{}'", printable(head.substr(0, 4))));
    }
    cur_.take(4, "the magic");
    uint32_t version = cur_.read<uint32_t>("the version");
    if (version != 0 && (version & 0xFFFF) == 0) {
      // Written on a big-endian machine: every number is byte-swapped (gguf.cpp's test).
      cur_.big_endian = true;
      version = byte_swap(version);
    }
    model_->big_endian = cur_.big_endian;
    if (version < 2 || version > 3) {
      cur_.fail(
          Kind::unsupported_version, 4,
          fmt::format("GGUF version {} is not supported, expected version 2 or 3{}", version,
                      version == 1 ? " (version 1 files predate August 2023; re-convert)" : ""));
    }
    model_->version = version;
    uint64_t at = cur_.pos();
    model_->n_tensors = cur_.read<uint64_t>("the tensor count");
    model_->n_kv = cur_.read<uint64_t>("the metadata count");
    // The smallest pair is 13 bytes (length, type, one byte), the smallest tensor info 24.
    uint64_t min_kv = 0, min_tensors = 0, min_total = 0;
    if (!checked_mul(model_->n_kv, 13, &min_kv) ||
        !checked_mul(model_->n_tensors, 24, &min_tensors) ||
        !checked_add(min_kv, min_tensors, &min_total) || min_total > cur_.remaining()) {
      cur_.fail(Kind::malformed, at,
                fmt::format(
                    "{} tensors and {} metadata pairs cannot fit in the {} bytes left in the file",
                    model_->n_tensors, model_->n_kv, cur_.remaining()));
    }
  }

  void read_metadata() {
    model_->metadata.reserve(model_->n_kv);
    std::unordered_set<std::string_view> seen;
    for (uint64_t i = 0; i < model_->n_kv; ++i) {
      MetadataEntry e;
      e.file_offset = cur_.pos();
      e.key = cur_.string([&] { return fmt::format("the key of metadata pair {}", i); });
      if (e.key.empty()) warn(fmt::format("metadata pair {} has an empty key", i));
      if (!seen.insert(e.key).second) {
        warn(
            fmt::format("key '{}': duplicate key (kept; the first one is used)", printable(e.key)));
      }
      uint64_t type_at = cur_.pos();
      uint32_t type = cur_.read<uint32_t>(
          [&] { return fmt::format("the value type of key '{}'", printable(e.key)); });
      if (!is_valid_value_type(type)) {
        cur_.fail(Kind::malformed, type_at,
                  fmt::format("key '{}': invalid value type {}, expected 0 to 12", printable(e.key),
                              type));
      }
      e.value = read_value(static_cast<ValueType>(type), e.key, 0);
      model_->metadata.push_back(e);
    }
  }

  Value read_value(ValueType type, std::string_view key, uint32_t depth) {
    Value v;
    v.type = type;
    if (type == ValueType::STRING) {
      v.str = cur_.string([&] { return fmt::format("the value of key '{}'", printable(key)); });
      return v;
    }
    if (type != ValueType::ARRAY) {
      const char* p =
          cur_.take(value_type_size(type), fmt::format("the value of key '{}'", printable(key)));
      // Reuse the array element decoder: a scalar is a one-element array.
      ArrayRef one{type, 1, std::string_view(p, value_type_size(type)), cur_.big_endian};
      return *one.scalar_at(0);
    }
    if (depth >= options_.max_array_depth) {
      cur_.fail(Kind::malformed, cur_.pos(),
                fmt::format("key '{}': arrays nested deeper than {} levels", printable(key),
                            options_.max_array_depth));
    }
    uint64_t at = cur_.pos();
    uint32_t elem = cur_.read<uint32_t>(
        [&] { return fmt::format("the element type of key '{}'", printable(key)); });
    if (!is_valid_value_type(elem)) {
      cur_.fail(Kind::malformed, at,
                fmt::format("key '{}': invalid array element type {}, expected 0 to 12",
                            printable(key), elem));
    }
    uint64_t count_at = cur_.pos();
    uint64_t count = cur_.read<uint64_t>(
        [&] { return fmt::format("the element count of key '{}'", printable(key)); });
    auto et = static_cast<ValueType>(elem);
    // Each element takes at least this many bytes: check the count before walking it.
    uint64_t min_size = et == ValueType::STRING  ? 8
                        : et == ValueType::ARRAY ? 12
                                                 : value_type_size(et);
    uint64_t need = 0;
    if (!checked_mul(count, min_size, &need) || need > cur_.remaining()) {
      cur_.fail(
          Kind::malformed, count_at,
          fmt::format("key '{}': an array of {} {} needs at least {} bytes, but only {} are left",
                      printable(key), count, value_type_name(et),
                      need > cur_.remaining() ? fmt::format("{}", need) : std::string("2^64"),
                      cur_.remaining()));
    }
    uint64_t start = cur_.pos();
    if (et == ValueType::STRING) {
      for (uint64_t i = 0; i < count; ++i)
        cur_.string([&] { return fmt::format("element {} of key '{}'", i, printable(key)); });
    } else if (et == ValueType::ARRAY) {
      // A nested element is encoded like an ARRAY value: element type, count, elements.
      for (uint64_t i = 0; i < count; ++i) read_value(ValueType::ARRAY, key, depth + 1);
    } else {
      cur_.take(need, [&] { return fmt::format("the elements of key '{}'", printable(key)); });
    }
    v.array.element_type = et;
    v.array.count = count;
    v.array.big_endian = cur_.big_endian;
    v.array.bytes =
        std::string_view(reinterpret_cast<const char*>(buf_.data() + start), cur_.pos() - start);
    return v;
  }

  void choose_alignment() {
    const MetadataEntry* e = model_->find("general.alignment");
    if (!e) return;
    if (e->value.type != ValueType::UINT32) {
      warn(fmt::format("key 'general.alignment': type {}, expected UINT32; using the default 32",
                       value_type_name(e->value.type)));
      return;
    }
    uint64_t a = e->value.bits;
    if (a == 0 || !std::has_single_bit(a)) {
      warn(fmt::format("key 'general.alignment': {} is not a power of two; using the default 32",
                       a));
      return;
    }
    model_->alignment = a;
  }

  void read_tensor_infos() {
    model_->tensors.reserve(model_->n_tensors);
    std::unordered_map<std::string_view, size_t> seen;
    for (uint64_t i = 0; i < model_->n_tensors; ++i) {
      TensorInfo t;
      t.info_offset = cur_.pos();
      t.name = cur_.string([&] { return fmt::format("the name of tensor {}", i); });
      std::string shown = printable(t.name);
      uint64_t dims_at = cur_.pos();
      t.n_dims = cur_.read<uint32_t>(
          [&] { return fmt::format("the dimension count of tensor '{}'", shown); });
      if (t.n_dims > 4) {
        cur_.fail(Kind::malformed, dims_at,
                  fmt::format("tensor '{}': {} dimensions, expected at most 4", shown, t.n_dims));
      }
      t.elements = 1;
      bool overflow = false;
      for (uint32_t d = 0; d < t.n_dims; ++d) {
        uint64_t at = cur_.pos();
        uint64_t ne = cur_.read<uint64_t>(
            [&] { return fmt::format("dimension {} of tensor '{}'", d, shown); });
        if (static_cast<int64_t>(ne) < 0) {
          cur_.fail(Kind::malformed, at,
                    fmt::format("tensor '{}': dimension {} is {}, expected a count >= 0", shown, d,
                                static_cast<int64_t>(ne)));
        }
        t.ne[d] = ne;
        overflow |= !checked_mul(t.elements, ne, &t.elements);
      }
      if (overflow || t.elements > static_cast<uint64_t>(INT64_MAX)) {
        cur_.fail(Kind::malformed, dims_at,
                  fmt::format("tensor '{}': the element count of shape ({}) overflows 64 bits",
                              shown, fmt::join(t.ne.begin(), t.ne.begin() + t.n_dims, ", ")));
      }
      uint64_t type_at = cur_.pos();
      t.type_id =
          cur_.read<uint32_t>([&] { return fmt::format("the type of tensor '{}'", shown); });
      t.offset =
          cur_.read<uint64_t>([&] { return fmt::format("the offset of tensor '{}'", shown); });
      compute_size(t, type_at);
      if (t.name.size() >= 64) {
        warn_tensor(t, fmt::format("name is {} bytes; llama.cpp allows at most 63", t.name.size()));
      }
      auto [it, inserted] = seen.emplace(t.name, i);
      if (!inserted) {
        warn_tensor(
            t, fmt::format("duplicate tensor name (also tensor {}); both are kept", it->second));
      }
      model_->tensors.push_back(std::move(t));
    }
  }

  // Byte size from the type table; unknown types and ragged rows get theirs from the layout.
  void compute_size(TensorInfo& t, uint64_t type_at) {
    auto type = tensor_type(t.type_id);
    if (!type) {
      t.type_known = false;
      warn_tensor(
          t, fmt::format("unknown type id {}; its size is taken from the gap to the next tensor",
                         t.type_id));
      return;
    }
    if (type->block_size == 0) {
      t.type_known = false;
      warn_tensor(
          t, fmt::format("type {} ({}) is no longer supported by ggml; its size is taken from the "
                         "gap to the next tensor",
                         t.type_id, type->name));
      return;
    }
    uint64_t ne0 = t.ne[0];
    uint64_t rows = ne0 == 0 ? 0 : t.elements / ne0;
    uint64_t blocks_per_row = ne0 / type->block_size;
    if (ne0 % type->block_size != 0) {
      // ggml refuses this; count the partial block so the size is at least not too small.
      warn_tensor(t, fmt::format("row length {} is not a multiple of the block size {} of {}", ne0,
                                 type->block_size, type->name));
      blocks_per_row += 1;
    }
    uint64_t row_bytes = 0;
    if (!checked_mul(blocks_per_row, type->block_bytes, &row_bytes) ||
        !checked_mul(row_bytes, rows, &t.bytes)) {
      cur_.fail(Kind::malformed, type_at,
                fmt::format("tensor '{}': the byte size of shape ({}) in {} overflows 64 bits",
                            printable(t.name),
                            fmt::join(t.ne.begin(), t.ne.begin() + t.n_dims, ", "), type->name));
    }
  }

  void lay_out_data() {
    bool overflow = false;
    model_->data_offset = align_up(cur_.pos(), model_->alignment, &overflow);
    uint64_t file_size = model_->file_size;
    auto& tensors = model_->tensors;
    if (!tensors.empty() && model_->data_offset > file_size) {
      warn(fmt::format(
          "the data section would start at byte {}, past the end of the file ({} bytes)",
          model_->data_offset, file_size));
    }
    // Absolute offsets, checked.
    std::vector<size_t> order(tensors.size());
    for (size_t i = 0; i < tensors.size(); ++i) {
      order[i] = i;
      auto& t = tensors[i];
      if (!checked_add(model_->data_offset, t.offset, &t.file_offset)) t.file_offset = UINT64_MAX;
    }
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      return tensors[a].file_offset < tensors[b].file_offset;
    });
    // Unknown sizes: the gap to the next tensor (in file order), or to the end of the file.
    for (size_t k = 0; k < order.size(); ++k) {
      auto& t = tensors[order[k]];
      if (t.type_known) continue;
      uint64_t end = file_size;
      for (size_t n = k + 1; n < order.size(); ++n) {
        if (tensors[order[n]].file_offset > t.file_offset) {
          end = std::min(end, tensors[order[n]].file_offset);
          break;
        }
      }
      t.bytes = end > t.file_offset ? end - t.file_offset : 0;
    }
    // gguf.cpp's rule: offsets packed in declaration order, each aligned.
    uint64_t expected = 0;
    for (auto& t : tensors) {
      if (t.offset % model_->alignment != 0) {
        warn_tensor(t, fmt::format("offset {} is not a multiple of the alignment {}", t.offset,
                                   model_->alignment));
      } else if (t.offset != expected) {
        warn_tensor(t, fmt::format("offset {}, expected {} (tensors are not packed in order)",
                                   t.offset, expected));
      }
      bool o = false;
      uint64_t end = 0;
      if (checked_add(t.offset, t.bytes, &end)) expected = align_up(end, model_->alignment, &o);
      uint64_t present =
          t.file_offset >= file_size ? 0 : std::min(t.bytes, file_size - t.file_offset);
      t.bytes_present = present;
      if (present < t.bytes) {
        warn_tensor(
            t, fmt::format("data runs past the end of the file: {} of its {} bytes are missing",
                           t.bytes - present, t.bytes));
      }
    }
    // Overlaps, in file order: each tensor against the furthest-reaching one before it.
    size_t reach = SIZE_MAX;
    uint64_t reach_end = 0;
    for (size_t i : order) {
      auto& t = tensors[i];
      if (reach != SIZE_MAX && t.bytes > 0 && t.file_offset < reach_end) {
        warn_tensor(t, fmt::format("its bytes overlap those of tensor '{}'",
                                   printable(tensors[reach].name)));
      }
      uint64_t end = t.file_offset + std::min(t.bytes, UINT64_MAX - t.file_offset);
      if (t.bytes > 0 && end > reach_end) {
        reach_end = end;
        reach = i;
      }
    }
  }

  std::shared_ptr<ByteSource> source_;
  ParseOptions options_;
  HeaderBuffer buf_;
  Cursor cur_;
  Model* model_ = nullptr;
};

}  // namespace

ModelPtr parse(std::shared_ptr<ByteSource> source, const ParseOptions& options) {
  return Parser(std::move(source), options).run();
}

ModelPtr parse_file(const std::string& path, const ParseOptions& options) {
  return parse(open_file(path), options);
}

}  // namespace gguf
