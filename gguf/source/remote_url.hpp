// Model locations given as URLs: https://, http:// and hf://OWNER/REPO/FILE[@REVISION], which
// means https://huggingface.co/OWNER/REPO/resolve/REVISION/FILE as huggingface_hub builds it
// (the host from HF_ENDPOINT when set, REVISION "main" by default and URL-encoded).
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace gguf {

// True for http://, https:// and hf:// (anything else is a local path).
bool is_remote_location(std::string_view location);

// The http(s) URL of a location: hf:// expanded, http(s) URLs as they are. Throws
// FormatError(remote_unusable) for an hf:// location without OWNER/REPO/FILE, or a URL libcurl
// cannot parse. endpoint: HF_ENDPOINT's value, or empty for https://huggingface.co.
std::string resolve_location(const std::string& location, const std::string& endpoint);

// The Hugging Face endpoint: $HF_ENDPOINT without a trailing slash, or https://huggingface.co.
std::string hf_endpoint();

// The parts of a URL that decide where a request goes: scheme, lowercase host and port (the
// scheme's default when not given). nullopt when libcurl cannot parse it.
struct UrlOrigin {
  std::string scheme;
  std::string host;
  std::string port;
  bool operator==(const UrlOrigin&) const = default;
};
std::optional<UrlOrigin> url_origin(const std::string& url);

// The URL's path without query or fragment ("/a/b/model.gguf"); empty when it cannot be parsed.
std::string url_path(const std::string& url);

}  // namespace gguf
