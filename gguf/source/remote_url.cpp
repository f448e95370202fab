#include "gguf/source/remote_url.hpp"

#include <curl/curl.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <memory>

#include "gguf/errors.hpp"

namespace gguf {

namespace {

struct UrlDeleter {
  void operator()(CURLU* u) const { curl_url_cleanup(u); }
};
using UrlPtr = std::unique_ptr<CURLU, UrlDeleter>;

UrlPtr parse_url(const std::string& url) {
  UrlPtr u(curl_url());
  if (!u || curl_url_set(u.get(), CURLUPART_URL, url.c_str(), 0) != CURLUE_OK) return nullptr;
  return u;
}

std::string part(CURLU* u, CURLUPart which, unsigned flags = 0) {
  char* text = nullptr;
  if (curl_url_get(u, which, &text, flags) != CURLUE_OK || !text) return "";
  std::string out(text);
  curl_free(text);
  return out;
}

// Percent-encodes everything but unreserved characters (so "refs/pr/1" -> "refs%2Fpr%2F1").
std::string encode_component(std::string_view s) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

[[noreturn]] void refuse(const std::string& location, const std::string& message) {
  throw FormatError(FormatError::Kind::remote_unusable, location, std::nullopt, message);
}

std::string expand_hf(const std::string& location, const std::string& endpoint) {
  std::string rest = location.substr(5);  // after "hf://"
  std::string revision = "main";
  if (const size_t at = rest.rfind('@'); at != std::string::npos) {
    revision = rest.substr(at + 1);
    rest.resize(at);
    if (revision.empty()) refuse(location, "empty revision after '@'");
  }
  const size_t owner_end = rest.find('/');
  const size_t repo_end =
      owner_end == std::string::npos ? owner_end : rest.find('/', owner_end + 1);
  if (owner_end == 0 || repo_end == std::string::npos || repo_end == owner_end + 1 ||
      repo_end + 1 >= rest.size()) {
    refuse(location, "expected hf://OWNER/REPO/FILE[@REVISION]");
  }
  std::string base = endpoint.empty() ? "https://huggingface.co" : endpoint;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + rest.substr(0, repo_end) + "/resolve/" + encode_component(revision) + "/" +
         rest.substr(repo_end + 1);
}

}  // namespace

bool is_remote_location(std::string_view location) {
  return location.starts_with("https://") || location.starts_with("http://") ||
         location.starts_with("hf://");
}

std::string hf_endpoint() {
  const char* e = std::getenv("HF_ENDPOINT");
  std::string endpoint = e && *e ? e : "https://huggingface.co";
  while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
  return endpoint;
}

std::string resolve_location(const std::string& location, const std::string& endpoint) {
  std::string url = location.starts_with("hf://") ? expand_hf(location, endpoint) : location;
  if (!parse_url(url)) refuse(location, "not a valid URL");
  return url;
}

std::optional<UrlOrigin> url_origin(const std::string& url) {
  const UrlPtr u = parse_url(url);
  if (!u) return std::nullopt;
  UrlOrigin o{part(u.get(), CURLUPART_SCHEME), part(u.get(), CURLUPART_HOST),
              part(u.get(), CURLUPART_PORT, CURLU_DEFAULT_PORT)};
  std::transform(o.host.begin(), o.host.end(), o.host.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return o;
}

std::string url_path(const std::string& url) {
  const UrlPtr u = parse_url(url);
  return u ? part(u.get(), CURLUPART_PATH) : "";
}

}  // namespace gguf
