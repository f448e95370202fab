#include "fs/cli/model_opener.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "gguf/source/remote_source.hpp"
#include "gguf/source/remote_url.hpp"

namespace gguffs {

namespace {

// Seconds from an environment variable, for tests that cannot wait 30 s for a stall to count.
long seconds_from_env(const char* name, long fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  char* end = nullptr;
  const long n = std::strtol(v, &end, 10);
  return *end == '\0' && n > 0 ? n : fallback;
}

}  // namespace

ModelOpener model_opener(const CommandLine& cl, const std::string& location) {
  if (!gguf::is_remote_location(location)) return {location, {}, nullptr};
  const std::string endpoint = gguf::hf_endpoint();
  gguf::HttpOptions http;
  http.cacert = cl.cacert;
  http.token = gguf::find_hf_token();
  http.token_origin = gguf::url_origin(endpoint);
  http.low_speed_time_s = seconds_from_env("GGUFFS_LOW_SPEED_TIME", http.low_speed_time_s);
  auto client = std::make_shared<gguf::HttpClient>(std::move(http));
  const gguf::RemoteOptions remote{cl.cache_size, cl.cache_dir};
  return {
      gguf::resolve_location(location, endpoint),
      [client, remote](const std::string& url) { return gguf::open_remote(url, client, remote); },
      client};
}

gguf::ModelSet open_models(const CommandLine& cl, const std::string& location) {
  const ModelOpener opener = model_opener(cl, location);
  gguf::ModelSet models = gguf::open_model_set(opener.location, cl.single, opener.open);
  if (cl.verbose && opener.client)
    fmt::print(stderr, "gguffs: {} HTTP requests to read the header\n", opener.client->requests());
  return models;
}

}  // namespace gguffs
