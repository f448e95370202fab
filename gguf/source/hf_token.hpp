// The Hugging Face token, found as huggingface_hub finds it: $HF_TOKEN, else the file
// $HF_TOKEN_PATH, else $HF_HOME/token ($HF_HOME defaults to $XDG_CACHE_HOME/huggingface, then
// ~/.cache/huggingface). Never from the command line, and never printed.
#pragma once

#include <optional>
#include <string>

namespace gguf {

struct HfToken {
  std::string value;   // the token itself: goes into one header, nowhere else
  std::string origin;  // where it came from, for messages: "HF_TOKEN" or the file's path
};

// nullopt when no token is set (an empty value or file counts as none).
std::optional<HfToken> find_hf_token();

}  // namespace gguf
