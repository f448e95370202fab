// How a command opens its model: a local path, or a URL (http(s):// or hf://) read by range
// requests through one HTTP client shared by every shard. Every command that takes a model
// goes through here, so each one takes a URL.
#pragma once

#include <memory>
#include <string>

#include "fs/cli/cli.hpp"
#include "gguf/source/http_client.hpp"
#include "gguf/source/source.hpp"
#include "gguf/split.hpp"

namespace gguffs {

struct ModelOpener {
  std::string location;                      // the path, or the http(s) URL (hf:// expanded)
  gguf::SourceOpener open;                   // empty for a local file (open_file)
  std::shared_ptr<gguf::HttpClient> client;  // null for a local file
};

// The opener for location (cl.model, or diff's second model), with cl's -o cacert, cache_size
// and cache_dir; the token from HF_TOKEN or $HF_HOME/token for the Hub's host.
ModelOpener model_opener(const CommandLine& cl, const std::string& location);

// The model set at location (all shards); -v reports the header's HTTP requests.
gguf::ModelSet open_models(const CommandLine& cl, const std::string& location);

}  // namespace gguffs
