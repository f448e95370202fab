// Machine-readable indexes at the root of the mount: metadata.json, tensors.tsv, tensors.json.
// Pure functions of the parsed model(s); the filesystem renders each once and keeps the text.
//
// metadata.json: one object, keys in file order, one key per line:
//   "llama.block_count": {"type": "UINT32", "value": 32}
//   "tokenizer.ggml.tokens": {"type": "ARRAY", "element_type": "STRING", "count": 50257,
//                             "value": ["!", "\"", ...]}
// - Integers (64-bit ones too) are exact JSON numbers; BOOL is true/false.
// - FLOAT32/FLOAT64 are numbers in the shortest form that reads back to the same value of that
//   width; JSON has no NaN or infinity, so those are the strings "nan", "-nan", "inf", "-inf"
//   (the same rule as the nested-array JSON of metadata/<key>).
// - A STRING that is valid UTF-8 is a JSON string ("value"); one that is not has "value_hex"
//   (its bytes in lowercase hex) instead, so nothing is lost.
// - String elements of arrays that are not valid UTF-8 become {"hex": "..."}.
// - An element that is itself an array becomes {"element_type": ..., "count": ..., "value": [...]}
//   with the same rules, at any depth.
// - A key that is not valid UTF-8 is written with escape_line's \xHH escapes and its exact bytes
//   go in "key_hex"; a key seen before gets "~2", "~3"... appended (JSON objects need unique
//   names) and the original in "key".
//
// tensors.tsv: a header line
// "name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name", then one line per tensor
// in file order (shard order for a split model). ne is GGUF order (innermost first), shape the
// reverse (numpy order), both space-separated; names are escaped with escape_line, so no name can
// contain a tab or a newline. hf_name is the Hugging Face name (hf/, issue 14), empty for a tensor
// without one. type is ggml's name ("Q4_K"), or "unknown" for an id ggml never assigned.
//
// tensors.json: an array of objects with the same fields ("ne" and "shape" as arrays of numbers);
// a name that is not valid UTF-8 is written escaped as in tensors.tsv, with "name_hex" added.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gguf/model.hpp"

namespace gguf {

std::string render_metadata_json(const Model& model);

// The tensors of every model given, in order (the shards of a split model, or one model).
// hf_names: each tensor's Hugging Face name in the same order ("" for none; an empty vector for
// all), the hf_name column / field.
std::string render_tensors_tsv(const std::vector<const Model*>& models,
                               const std::vector<std::string>& hf_names = {});
std::string render_tensors_json(const std::vector<const Model*>& models,
                                const std::vector<std::string>& hf_names = {});

// The header line of tensors.tsv, without the newline.
inline constexpr std::string_view kTensorsTsvHeader =
    "name\ttype\tne\tshape\telements\tbytes\toffset\tfile_offset\thf_name";

// The xattr user.gguf.type of a metadata value: "UINT32", "STRING", "ARRAY[STRING]",
// "ARRAY[ARRAY]".
std::string value_type_label(const Value& v);

}  // namespace gguf
