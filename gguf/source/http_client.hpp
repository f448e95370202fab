// Range requests over HTTP(S) with libcurl: redirects (at most 10, never from https to http),
// verified TLS, retries with backoff, the Hugging Face token only for the Hub's own host, and
// every answer checked (status, Content-Range, validator). Connections are reused: idle easy
// handles are pooled and share one connection cache, DNS cache and TLS session cache.
//
// Nothing here runs a thread of its own: every request runs in the calling thread, so a process
// may fork (the daemon does) between requests.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gguf/errors.hpp"
#include "gguf/source/hf_token.hpp"
#include "gguf/source/remote_url.hpp"

namespace gguf {

struct HttpOptions {
  std::string cacert;            // -o cacert=FILE: the CA bundle to verify servers with
  std::optional<HfToken> token;  // sent as Authorization: Bearer, to token_origin only
  std::optional<UrlOrigin> token_origin;
  long connect_timeout_s = 10;
  long low_speed_limit = 1024;  // bytes per second, held for low_speed_time_s, else abort
  long low_speed_time_s = 30;
  int tries = 3;
  std::chrono::milliseconds backoff{250};  // before the 2nd try; doubled before each next one
};

// What a range answer said about the file.
struct RangeReply {
  uint64_t total = 0;  // the file's size, from Content-Range
  std::string etag;
  std::string last_modified;
  size_t received = 0;  // bytes written to dst
};

// The file on the server is no longer the one that was opened (validator or size changed).
class RemoteChanged : public FormatError {
 public:
  RemoteChanged(const std::string& url, uint64_t offset, const std::string& message)
      : FormatError(Kind::io, url, offset, message) {}
};

class HttpClient {
 public:
  explicit HttpClient(HttpOptions options);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // GET url with Range bytes=first..first+len-1 into dst (len bytes of room) and If-Range:
  // if_range when not empty. Requires a 206 whose Content-Range names exactly that range.
  // probe: the first request for a file, which may be shorter than asked (the answer says how
  // long the file is; a 416 for an empty file gives total 0), and whose 200 means the server
  // ignores Range. Throws FormatError (remote_* kinds) or RemoteChanged; never returns a 200's
  // body (the transfer is stopped at the status line).
  RangeReply get_range(const std::string& url, uint64_t first, size_t len, uint8_t* dst,
                       const std::string& if_range, bool probe = false);
  // The same into pieces filled in order (the blocks of the cache: no copy after the download).
  RangeReply get_range(const std::string& url, uint64_t first,
                       const std::vector<std::span<uint8_t>>& dst, const std::string& if_range,
                       bool probe = false);

  uint64_t requests() const { return requests_.load(); }
  const HttpOptions& options() const { return options_; }

 private:
  struct Share;
  struct Attempt;
  void* borrow();
  void give_back(void* handle);
  RangeReply follow(const std::string& url, uint64_t first, size_t len,
                    const std::vector<std::span<uint8_t>>& dst, const std::string& if_range,
                    bool probe);
  Attempt perform(const std::string& url, bool send_token, uint64_t first, size_t len,
                  const std::vector<std::span<uint8_t>>& dst, const std::string& if_range,
                  bool probe);

  HttpOptions options_;
  std::unique_ptr<Share> share_;
  std::mutex idle_mutex_;
  std::vector<void*> idle_;
  std::atomic<uint64_t> requests_{0};
};

}  // namespace gguf
