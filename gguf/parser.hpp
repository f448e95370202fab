// Parses a GGUF file's header, metadata and tensor infos once (never the tensor data).
// Refuses what cannot be read as GGUF (FormatError); loads everything else, with warnings.
#pragma once

#include <memory>
#include <string>

#include "gguf/model.hpp"

namespace gguf {

struct ParseOptions {
  // Arrays may nest (the spec allows it; gguf.cpp refuses it). Deeper than this is refused.
  uint32_t max_array_depth = 8;
};

ModelPtr parse(std::shared_ptr<ByteSource> source, const ParseOptions& options = {});
ModelPtr parse_file(const std::string& path, const ParseOptions& options = {});

}  // namespace gguf
