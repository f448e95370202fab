#include "gguf/source/http_client.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstring>
#include <mutex>
#include <thread>

namespace gguf {

namespace {

using Kind = FormatError::Kind;

constexpr int kMaxRedirects = 10;
// The body of a redirect or an error answer is read and dropped, up to this much.
constexpr size_t kMaxDroppedBody = 1 << 20;

// A failure worth another try: a timeout, a reset, a truncated body, a 5xx.
struct Retryable {
  std::string message;
};

std::string lowercase(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

// "bytes A-B/T" -> {A, B, T}; T may be "*" (unknown, returned as nullopt total).
struct ContentRange {
  std::optional<uint64_t> first, last, total;
};

std::optional<uint64_t> number(std::string_view s) {
  if (s.empty() || s.size() > 19) return std::nullopt;
  uint64_t n = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return std::nullopt;
    n = n * 10 + static_cast<uint64_t>(c - '0');
  }
  return n;
}

std::optional<ContentRange> parse_content_range(std::string_view s) {
  if (!s.starts_with("bytes ")) return std::nullopt;
  s.remove_prefix(6);
  const size_t slash = s.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  ContentRange r;
  const std::string_view range = s.substr(0, slash), total = s.substr(slash + 1);
  if (total != "*") {
    r.total = number(total);
    if (!r.total) return std::nullopt;
  }
  if (range == "*") return r;
  const size_t dash = range.find('-');
  if (dash == std::string_view::npos) return std::nullopt;
  r.first = number(range.substr(0, dash));
  r.last = number(range.substr(dash + 1));
  if (!r.first || !r.last || *r.last < *r.first) return std::nullopt;
  return r;
}

bool retryable_code(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_COULDNT_CONNECT:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
    case CURLE_SSL_CONNECT_ERROR:
      return true;
    default:
      return false;
  }
}

std::string where(const std::string& url) {
  const auto o = url_origin(url);
  return o ? o->scheme + "://" + o->host : std::string("?");
}

}  // namespace

// One connection cache, DNS cache and TLS session cache for all handles, locked per kind.
struct HttpClient::Share {
  CURLSH* sh = nullptr;
  std::array<std::mutex, CURL_LOCK_DATA_LAST> locks;

  Share() {
    static std::once_flag once;
    std::call_once(once, [] { curl_global_init(CURL_GLOBAL_DEFAULT); });
    sh = curl_share_init();
    curl_share_setopt(sh, CURLSHOPT_LOCKFUNC, &Share::lock);
    curl_share_setopt(sh, CURLSHOPT_UNLOCKFUNC, &Share::unlock);
    curl_share_setopt(sh, CURLSHOPT_USERDATA, this);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
    curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
  }
  ~Share() { curl_share_cleanup(sh); }
  static void lock(CURL*, curl_lock_data data, curl_lock_access, void* self) {
    static_cast<Share*>(self)->locks[static_cast<size_t>(data)].lock();
  }
  static void unlock(CURL*, curl_lock_data data, void* self) {
    static_cast<Share*>(self)->locks[static_cast<size_t>(data)].unlock();
  }
};

// One request's answer, as the callbacks saw it.
struct HttpClient::Attempt {
  CURLcode code = CURLE_OK;
  long status = 0;
  std::string content_range, etag, last_modified;
  std::string redirect;
  char error[CURL_ERROR_SIZE] = {};
  // The body goes to dst only in a 206 that names the range asked for.
  uint64_t first = 0;
  size_t len = 0;
  const std::vector<std::span<uint8_t>>* dst = nullptr;  // len bytes in all
  size_t piece = 0, piece_at = 0;                        // where the next byte goes
  bool probe = false;
  size_t received = 0;
  size_t dropped = 0;
  bool range_checked = false;
  std::string refusal;  // why the body was refused (the transfer stopped)
  std::optional<uint64_t> total;

  static size_t on_header(char* data, size_t size, size_t count, void* self) {
    auto& a = *static_cast<Attempt*>(self);
    const size_t n = size * count;
    const std::string_view line(data, n);
    if (line.starts_with("HTTP/")) {
      // A new answer (after a 100 Continue, say): forget the previous one's headers. The status
      // is needed before the first byte of the body: a 200 must stop the transfer.
      const size_t sp = line.find(' ');
      a.status = 0;
      if (sp != std::string_view::npos && line.size() >= sp + 4)
        a.status = static_cast<long>(number(line.substr(sp + 1, 3)).value_or(0));
      a.content_range.clear();
      a.etag.clear();
      a.last_modified.clear();
      return n;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos) return n;
    const std::string name = lowercase(std::string(line.substr(0, colon)));
    const std::string value = trim(line.substr(colon + 1));
    if (name == "content-range") a.content_range = value;
    if (name == "etag") a.etag = value;
    if (name == "last-modified") a.last_modified = value;
    return n;
  }

  // Checks the 206's Content-Range against the range asked for, before any byte is kept.
  bool check_range() {
    range_checked = true;
    const auto r = parse_content_range(content_range);
    if (!r || !r->first || !r->total) {
      refusal = fmt::format("answered 206 with an unusable Content-Range '{}'", content_range);
      return false;
    }
    total = r->total;
    const uint64_t want_last = first + len - 1;
    const uint64_t last_ok = probe ? std::min(want_last, *r->total - 1) : want_last;
    if (*r->first != first || *r->last != last_ok || *r->last >= *r->total) {
      refusal = fmt::format("asked for bytes {}-{}, the answer's Content-Range is '{}'", first,
                            want_last, content_range);
      return false;
    }
    return true;
  }

  static size_t on_body(char* data, size_t size, size_t count, void* self) {
    auto& a = *static_cast<Attempt*>(self);
    const size_t n = size * count;
    if (a.status == 206) {
      if (!a.range_checked && !a.check_range()) return 0;
      if (a.received + n > a.len) {
        a.refusal = fmt::format("sent more than the {} bytes asked for", a.len);
        return 0;
      }
      a.received += n;
      for (size_t left = n; left > 0;) {
        const std::span<uint8_t> to = (*a.dst)[a.piece];
        const size_t k = std::min(left, to.size() - a.piece_at);
        std::memcpy(to.data() + a.piece_at, data, k);
        data += k;
        left -= k;
        a.piece_at += k;
        if (a.piece_at == to.size()) {
          ++a.piece;
          a.piece_at = 0;
        }
      }
      return n;
    }
    if (a.status == 200) return 0;  // the whole file is coming: stop now
    a.dropped += n;
    return a.dropped > kMaxDroppedBody ? 0 : n;
  }
};

HttpClient::HttpClient(HttpOptions options)
    : options_(std::move(options)), share_(std::make_unique<Share>()) {}

HttpClient::~HttpClient() {
  for (void* h : idle_) curl_easy_cleanup(static_cast<CURL*>(h));
}

void* HttpClient::borrow() {
  {
    std::lock_guard lock(idle_mutex_);
    if (!idle_.empty()) {
      void* h = idle_.back();
      idle_.pop_back();
      return h;
    }
  }
  CURL* h = curl_easy_init();
  if (!h) throw std::bad_alloc();
  return h;
}

void HttpClient::give_back(void* handle) {
  std::lock_guard lock(idle_mutex_);
  idle_.push_back(handle);
}

HttpClient::Attempt HttpClient::perform(const std::string& url, bool send_token, uint64_t first,
                                        size_t len, const std::vector<std::span<uint8_t>>& dst,
                                        const std::string& if_range, bool probe) {
  Attempt a;
  a.first = first;
  a.len = len;
  a.dst = &dst;
  a.probe = probe;
  CURL* h = static_cast<CURL*>(borrow());
  curl_easy_reset(h);
  curl_slist* headers = nullptr;
  const std::string range = fmt::format("{}-{}", first, first + len - 1);
  if (!if_range.empty()) headers = curl_slist_append(headers, ("If-Range: " + if_range).c_str());
  std::string auth;
  if (send_token) {
    auth = "Authorization: Bearer " + options_.token->value;
    headers = curl_slist_append(headers, auth.c_str());
  }
  curl_easy_setopt(h, CURLOPT_SHARE, share_->sh);
  curl_easy_setopt(h, CURLOPT_URL, url.c_str());
  curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 0L);  // followed by hand: the token must not go along
  curl_easy_setopt(h, CURLOPT_RANGE, range.c_str());
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(h, CURLOPT_USERAGENT, "gguffs");
  curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT, options_.connect_timeout_s);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, options_.low_speed_limit);
  curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME, options_.low_speed_time_s);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
  curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
  if (!options_.cacert.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, options_.cacert.c_str());
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, a.error);
  curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &Attempt::on_header);
  curl_easy_setopt(h, CURLOPT_HEADERDATA, &a);
  // 512 KiB reads from the socket instead of libcurl's 16 KiB: a 256 MiB range is 512 recv
  // calls and body callbacks, not 16,384 (curl's own tool uses 100 KiB).
  curl_easy_setopt(h, CURLOPT_BUFFERSIZE, 512L * 1024);
  curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &Attempt::on_body);
  curl_easy_setopt(h, CURLOPT_WRITEDATA, &a);
  ++requests_;
  a.code = curl_easy_perform(h);
  long status = 0;
  curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, &status);
  if (status != 0) a.status = status;
  if (a.status >= 300 && a.status < 400) {
    char* location = nullptr;
    if (curl_easy_getinfo(h, CURLINFO_REDIRECT_URL, &location) == CURLE_OK && location)
      a.redirect = location;
  }
  curl_easy_setopt(h, CURLOPT_HTTPHEADER, nullptr);
  curl_easy_setopt(h, CURLOPT_ERRORBUFFER, nullptr);
  curl_slist_free_all(headers);
  std::fill(auth.begin(), auth.end(), '\0');
  give_back(h);
  return a;
}

RangeReply HttpClient::follow(const std::string& url, uint64_t first, size_t len,
                              const std::vector<std::span<uint8_t>>& dst,
                              const std::string& if_range, bool probe) {
  const auto origin = url_origin(url);
  std::string current = url;
  for (int hops = 0;; ++hops) {
    const auto here = url_origin(current);
    // The token goes to the Hub's host only, and not to where the Hub redirects.
    const bool send_token = options_.token && options_.token_origin && here && origin &&
                            *here == *origin && *here == *options_.token_origin;
    const Attempt a = perform(current, send_token, first, len, dst, if_range, probe);
    const std::string via =
        hops > 0 ? fmt::format(" (after a redirect to {})", where(current)) : "";
    if (a.status >= 300 && a.status < 400 && !a.redirect.empty()) {
      if (hops + 1 > kMaxRedirects)
        throw FormatError(Kind::remote_unusable, url, std::nullopt,
                          fmt::format("more than {} redirects", kMaxRedirects));
      const auto next = url_origin(a.redirect);
      if (!next || (next->scheme != "https" && next->scheme != "http"))
        throw FormatError(Kind::remote_unusable, url, std::nullopt,
                          "redirected to an unsupported URL");
      if (here && here->scheme == "https" && next->scheme != "https")
        throw FormatError(Kind::remote_unusable, url, std::nullopt,
                          fmt::format("refusing a redirect from https to {}", where(a.redirect)));
      current = a.redirect;
      continue;
    }
    if (a.status == 206) {
      if (!a.refusal.empty())
        throw FormatError(Kind::remote_unusable, url, first, "bad answer: " + a.refusal + via);
      if (a.code != CURLE_OK) throw Retryable{fmt::format("transfer failed: {}{}", a.error, via)};
      if (!a.range_checked) {
        // An empty body: check the range anyway.
        Attempt copy;
        copy.content_range = a.content_range;
        copy.first = first;
        copy.len = len;
        copy.probe = probe;
        if (!copy.check_range())
          throw FormatError(Kind::remote_unusable, url, first, "bad answer: " + copy.refusal + via);
      }
      const uint64_t want = probe ? std::min<uint64_t>(len, *a.total - first) : len;
      if (a.received != want)
        throw Retryable{fmt::format("the answer ended after {} of {} bytes", a.received, want)};
      return RangeReply{*a.total, a.etag, a.last_modified, a.received};
    }
    if (a.status == 0) {
      const std::string message =
          fmt::format("{}{}", a.error[0] ? a.error : curl_easy_strerror(a.code), via);
      if (retryable_code(a.code)) throw Retryable{message};
      throw FormatError(Kind::remote_unusable, url, std::nullopt, message);
    }
    if (a.status == 200) {
      if (!probe && !if_range.empty())
        throw RemoteChanged(url, first, "the file changed on the server (If-Range did not match)");
      throw FormatError(Kind::remote_unusable, url, std::nullopt,
                        "the server ignores Range requests (it answered 200 with the whole "
                        "file); gguffs needs a server that answers 206" +
                            via);
    }
    if (a.status == 404 || a.status == 410)
      throw FormatError(Kind::remote_not_found, url, std::nullopt,
                        fmt::format("not found (HTTP {}){}", a.status, via));
    if (a.status == 401 || a.status == 403) {
      std::string token_note;
      if (send_token)
        token_note = fmt::format("; a token was sent (from {})", options_.token->origin);
      else if (options_.token)
        token_note = "; no token was sent (the token goes only to the Hugging Face host)";
      else
        token_note = "; no token was sent (set HF_TOKEN or log in with huggingface-cli)";
      throw FormatError(Kind::remote_denied, url, std::nullopt,
                        fmt::format("access denied (HTTP {}){}{}", a.status, via, token_note));
    }
    if (a.status == 416) {
      const auto r = parse_content_range(a.content_range);
      if (probe && r && r->total && *r->total == 0)
        return RangeReply{0, a.etag, a.last_modified, 0};
      if (!probe) throw RemoteChanged(url, first, "the file changed on the server (now shorter)");
    }
    if (a.status == 412) throw RemoteChanged(url, first, "the file changed on the server");
    if (a.status >= 500 || a.status == 429 || a.status == 408)
      throw Retryable{fmt::format("HTTP {}{}", a.status, via)};
    throw FormatError(Kind::remote_unusable, url, std::nullopt,
                      fmt::format("unexpected answer HTTP {}{}", a.status, via));
  }
}

RangeReply HttpClient::get_range(const std::string& url, uint64_t first, size_t len, uint8_t* dst,
                                 const std::string& if_range, bool probe) {
  return get_range(url, first, {std::span<uint8_t>(dst, len)}, if_range, probe);
}

RangeReply HttpClient::get_range(const std::string& url, uint64_t first,
                                 const std::vector<std::span<uint8_t>>& dst,
                                 const std::string& if_range, bool probe) {
  size_t len = 0;
  for (const auto& piece : dst) len += piece.size();
  auto wait = options_.backoff;
  for (int attempt = 1;; ++attempt) {
    try {
      return follow(url, first, len, dst, if_range, probe);
    } catch (const Retryable& r) {
      if (attempt >= options_.tries)
        throw FormatError(Kind::remote_unusable, url, first,
                          fmt::format("{} (gave up after {} tries)", r.message, attempt));
      std::this_thread::sleep_for(wait);
      wait *= 2;
    }
  }
}

}  // namespace gguf
