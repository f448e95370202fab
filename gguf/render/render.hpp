// Text renderings of a parsed model: what the mount's metadata/, info and summary.txt files hold.
// Pure functions of the Model; the filesystem only caches their output.
#pragma once

#include <string>
#include <string_view>

#include "gguf/model.hpp"

namespace gguf {

// A FLOAT32/FLOAT64 in the shortest form that reads back to the same value of that width
// (fmt's "{}"): 1e-05, 0.1, 500000, 1e+300, nan, -inf.
std::string format_float(float v);
std::string format_double(double v);

// One array string element on one line, valid UTF-8: "\\" "\n" "\r" "\t", and "\xHH" for other
// bytes below 0x20, for 0x7F and for every byte that is not part of valid UTF-8.
std::string escape_line(std::string_view bytes);

// A scalar as text without a newline (integers in decimal, BOOL true/false, floats as above;
// a STRING as its exact bytes).
std::string render_scalar(const Value& v);

// The contents of metadata/<key>: scalars plus "\n"; a STRING's exact bytes; an ARRAY one
// element per line (strings escaped, nested arrays as JSON arrays), empty for an empty array.
std::string render_metadata_file(const Value& v);

// The contents of tensors/<name>/info ("name: ...", "type: ...", ... "warning: ..."), with
// "hf_name: ..." after the name when hf_name is not empty (the Hugging Face view, issue 14).
std::string render_tensor_info(const Model& model, const TensorInfo& tensor,
                               std::string_view hf_name = {});

// The contents of summary.txt (also printed by `gguffs summary`).
std::string render_summary(const Model& model);

// The warnings, one per line, as `gguffs check` prints them.
std::string render_warnings(const Model& model);

}  // namespace gguf
