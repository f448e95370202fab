#include "gguf/source/hf_token.hpp"

#include <cstdlib>
#include <fstream>
#include <sstream>

namespace gguf {

namespace {

std::string trimmed(std::string s) {
  const char* space = " \t\r\n";
  s.erase(0, s.find_first_not_of(space));
  const size_t last = s.find_last_not_of(space);
  s.erase(last == std::string::npos ? 0 : last + 1);
  return s;
}

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string token_file() {
  if (std::string p = env("HF_TOKEN_PATH"); !p.empty()) return p;
  std::string home = env("HF_HOME");
  if (home.empty()) {
    std::string cache = env("XDG_CACHE_HOME");
    if (cache.empty()) cache = env("HOME") + "/.cache";
    home = cache + "/huggingface";
  }
  return home + "/token";
}

}  // namespace

std::optional<HfToken> find_hf_token() {
  if (std::string t = trimmed(env("HF_TOKEN")); !t.empty()) return HfToken{t, "HF_TOKEN"};
  const std::string path = token_file();
  std::ifstream in(path);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  // The file holds the token on its first line.
  std::string t = trimmed(text.str().substr(0, text.str().find('\n')));
  if (t.empty()) return std::nullopt;
  return HfToken{t, path};
}

}  // namespace gguf
