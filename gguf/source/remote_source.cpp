#include "gguf/source/remote_source.hpp"

#include <curl/curl.h>
#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <optional>
#include <span>
#include <thread>

#include "gguf/source/block_cache.hpp"
#include "gguf/source/disk_cache.hpp"
#include "gguf/source/prefetcher.hpp"

namespace gguf {

namespace {

constexpr size_t kBlock = kPooledBytes;  // cache granularity, and the size of the first request
constexpr uint64_t kMaxJobBlocks = 8;    // one request fetches at most 8 MiB
constexpr uint64_t kMaxParallel = 8;     // requests in flight for one read
constexpr uint64_t kMaxWindow = 64;      // read-ahead, in blocks
constexpr uint64_t kHeaderWindow = 8;    // read-ahead of a stream that starts at byte 0
constexpr uint64_t kFirstWindow = 16;    // read-ahead once a stream is seen to be sequential
constexpr size_t kStreams = 8;
// A stream's blocks this far behind its reads count as read past (BlockCache::passed): the
// kernel has up to 12 read-ahead requests of 512 KiB in flight, which workers may answer out of
// order, so a block just behind the newest read may still be wanted.
constexpr uint64_t kPassedLag = 8;

// Sequential streams of reads (several readers may be at work), each with its read-ahead.
class Streams {
 public:
  explicit Streams(uint64_t max_window) : max_window_(max_window) {}

  // Records a read of [offset, end_offset), whose blocks end before end_block; missing: some of
  // its blocks had to be fetched. Returns the blocks to fetch ahead, [from, to) (empty when
  // none). A stream from byte 0 (the header being parsed, or model.gguf read from the start)
  // reads ahead only when it meets a missing block, so a small header costs one request and
  // tensor data is not fetched until read; other streams read ahead before they get there.
  struct Ahead {
    uint64_t from = 0, to = 0;
    bool background = false;                  // a data stream: fetched while the reader goes on
    uint64_t passed_from = 0, passed_to = 0;  // blocks the stream has read past since last time
  };
  Ahead advance(uint64_t offset, uint64_t end_offset, uint64_t end_block, bool missing) {
    std::lock_guard lock(mutex_);
    ++clock_;
    Stream* s = nullptr;
    for (Stream& c : streams_) {
      // A stream from byte 0 goes on only where it stopped (the parser reads contiguously): a
      // reader of the first tensor, just after a small header, is a data stream of its own.
      const bool near = c.from_start
                            ? offset == c.next
                            : offset + 2 * kBlock >= c.next && offset <= c.next + 2 * kBlock;
      if (c.used && near) s = &c;
    }
    const uint64_t block = offset / kBlock;
    Ahead out;
    if (!s) {
      s = &*std::min_element(streams_.begin(), streams_.end(),
                             [](const Stream& a, const Stream& b) { return a.used < b.used; });
      *s = Stream{};
      s->ahead_end = end_block;
      s->from_start = offset == 0;
      s->window = offset == 0 ? std::min(kHeaderWindow, max_window_) : 0;
      s->passed_end = block;
    } else {
      if (s->window == 0) s->window = std::min(kFirstWindow, max_window_);
      const uint64_t passed = block > kPassedLag ? block - kPassedLag : 0;
      if (passed > s->passed_end) {
        out.passed_from = s->passed_end;
        out.passed_to = passed;
        s->passed_end = passed;
      }
    }
    s->used = clock_;
    s->next = std::max(s->next, end_offset);
    if (s->window == 0) return out;
    // A data stream keeps its window full: it tops up as soon as a request's worth is free, so
    // requests follow one another instead of coming in waves that each wait a round trip (on
    // a 50 ms link, waves left the link idle between them: 0.35 GB/s against curl's 0.75).
    const uint64_t refill = std::min(kMaxJobBlocks, std::max<uint64_t>(s->window / 2, 1));
    if (s->from_start ? !missing : s->ahead_end + refill > end_block + s->window) return out;
    // Fetch up to the end of the window now, and double it for next time.
    out.from = std::max(s->ahead_end, end_block);
    out.to = end_block + s->window;
    out.background = !s->from_start;
    s->ahead_end = out.to;
    s->window = std::min(s->window * 2, max_window_);
    return out;
  }

 private:
  struct Stream {
    uint64_t next = 0;       // the byte after the stream's last read
    uint64_t ahead_end = 0;  // blocks before this one are fetched or being fetched
    uint64_t window = 0;
    uint64_t used = 0;        // 0: free
    uint64_t passed_end = 0;  // blocks before this one are marked as read past
    bool from_start = false;
  };
  const uint64_t max_window_;
  std::mutex mutex_;
  std::array<Stream, kStreams> streams_{};
  uint64_t clock_ = 0;
};

// The validator sent as If-Range: a strong ETag, else Last-Modified; empty when there is none.
std::string pick_validator(const RangeReply& r) {
  if (!r.etag.empty() && !r.etag.starts_with("W/")) return r.etag;
  return r.last_modified;
}

class RemoteSource final : public ByteSource {
 public:
  RemoteSource(std::string url, std::shared_ptr<HttpClient> client, const RemoteOptions& options)
      : url_(std::move(url)),
        client_(std::move(client)),
        cache_(options.cache_size, kBlock),
        streams_(
            std::min<uint64_t>(kMaxWindow, std::max<uint64_t>(cache_.capacity_blocks() / 4, 1))) {
    auto first = std::make_shared<BlockBytes>(kBlock);
    const RangeReply r = client_->get_range(url_, 0, kBlock, first->data(), "", true);
    size_ = r.total;
    etag_ = r.etag;
    validator_ = pick_validator(r);
    if (!r.last_modified.empty()) {
      const time_t t = curl_getdate(r.last_modified.c_str(), nullptr);
      if (t > 0) mtime_.tv_sec = t;
    }
    if (!options.cache_dir.empty() && !validator_.empty())
      disk_.emplace(options.cache_dir, url_, validator_, size_);
    if (size_ > 0) {
      first->resize(r.received);
      if (disk_) disk_->store(0, *first);
      cache_.claim({0});
      cache_.fill(0, std::move(first));
    }
  }

  uint64_t size() const override { return size_; }
  const std::string& name() const override { return url_; }
  uint64_t cheap_end(uint64_t offset) const override {
    uint64_t i = offset / kBlock;
    while (i < block_count() && cache_.ready(i)) ++i;
    return std::max(offset, std::min(i * kBlock, size_));
  }
  struct timespec mtime() const override {
    return mtime_;
  }

  size_t read_at(uint64_t offset, void* dst, size_t len) const override {
    if (offset >= size_ || len == 0) return 0;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len, size_ - offset));
    const uint64_t first = offset / kBlock, end = (offset + n - 1) / kBlock + 1;
    prepare(offset, n);
    auto* out = static_cast<uint8_t*>(dst);
    for (uint64_t i = first; i < end; ++i) {
      const BlockCache::Data data = block(i);
      const uint64_t block_start = i * kBlock;
      const uint64_t from = std::max(offset, block_start);
      const uint64_t to = std::min<uint64_t>(offset + n, block_start + data->size());
      std::memcpy(out + (from - offset), data->data() + (from - block_start), to - from);
    }
    return n;
  }

  std::shared_ptr<const void> lend(uint64_t offset, size_t len, const uint8_t** data,
                                   size_t* got) const override {
    if (offset >= size_ || len == 0) return nullptr;
    const uint64_t i = offset / kBlock;
    const size_t n = static_cast<size_t>(std::min<uint64_t>(len, (i + 1) * kBlock - offset));
    prepare(offset, static_cast<size_t>(std::min<uint64_t>(len, size_ - offset)));
    BlockCache::Data b = block(i);
    *data = b->data() + (offset - i * kBlock);
    *got = std::min<size_t>(n, b->size() - (offset - i * kBlock));
    return b;
  }

 private:
  // Records the read of [offset, offset + n) and fetches what it needs that nobody is fetching:
  // its own blocks now, and the read-ahead of its stream (now or in the background).
  void prepare(uint64_t offset, size_t n) const {
    const uint64_t first = offset / kBlock, end = (offset + n - 1) / kBlock + 1;
    std::vector<uint64_t> wanted;
    for (uint64_t i = first; i < end; ++i) wanted.push_back(i);
    std::vector<uint64_t> mine = cache_.claim(wanted);
    const Streams::Ahead ahead = streams_.advance(offset, offset + n, end, !mine.empty());
    for (uint64_t i = ahead.passed_from; i < ahead.passed_to; ++i) cache_.passed(i);
    wanted.clear();
    for (uint64_t i = ahead.from; i < std::min(ahead.to, block_count()); ++i) wanted.push_back(i);
    std::vector<uint64_t> later = cache_.claim(wanted);
    if (ahead.background) {
      for (const auto& job : plan(later, /*spread=*/false)) {
        if (!prefetcher_.submit([this, job] { run_job(job.first, job.second); }))
          run_job(job.first, job.second);
      }
    } else {
      mine.insert(mine.end(), later.begin(), later.end());
      std::sort(mine.begin(), mine.end());
    }
    fetch(mine);
  }

  // Block i, fetched: waits for it (a block dropped before this reader got to it, in a tiny
  // cache under load, is fetched again). Throws the fetch's error.
  BlockCache::Data block(uint64_t i) const {
    BlockCache::Data data;
    for (int tries = 0; !(data = cache_.wait(i)); ++tries) {
      if (tries == 3)
        throw FormatError(FormatError::Kind::io, url_, i * kBlock, "the block cache is too small");
      fetch(cache_.claim({i}));
    }
    if (data->size() != block_bytes(i))
      throw FormatError(FormatError::Kind::io, url_, i * kBlock, "short block");
    return data;
  }

  uint64_t block_count() const { return (size_ + kBlock - 1) / kBlock; }
  size_t block_bytes(uint64_t i) const {
    return static_cast<size_t>(std::min<uint64_t>(kBlock, size_ - i * kBlock));
  }

  // Fetches claimed blocks: from the disk cache when there, else in runs of adjacent blocks, one
  // request per run of up to 8 MiB, all requests in parallel; joined before returning, so no
  // thread started here outlives a read (the daemon forks after the header is read).
  void fetch(const std::vector<uint64_t>& claimed) const {
    const auto jobs = plan(claimed);
    if (jobs.empty()) return;
    std::vector<std::thread> threads;
    for (size_t j = 1; j < jobs.size(); ++j) {
      try {
        threads.emplace_back([this, job = jobs[j]] { run_job(job.first, job.second); });
      } catch (const std::system_error&) {
        run_job(jobs[j].first, jobs[j].second);  // no thread to be had: do it here
      }
    }
    run_job(jobs[0].first, jobs[0].second);
    for (std::thread& t : threads) t.join();
  }

  // Fills the claimed blocks that the disk cache holds; the others as requests: runs of
  // adjacent blocks, [first, end), of up to 8 MiB, split so that about 8 go in parallel when
  // spread (a reader waits for them); read-ahead keeps whole 8 MiB requests, since the
  // prefetcher's 8 threads bound how many are in flight and each pays a round trip.
  std::vector<std::pair<uint64_t, uint64_t>> plan(const std::vector<uint64_t>& claimed,
                                                  bool spread = true) const {
    std::vector<uint64_t> missing;
    for (const uint64_t i : claimed) {
      if (disk_) {
        if (auto data = disk_->load(i, block_bytes(i))) {
          cache_.fill(i, std::move(data));
          continue;
        }
      }
      missing.push_back(i);
    }
    if (missing.empty()) return {};
    const uint64_t per_job =
        spread ? std::clamp<uint64_t>((missing.size() + kMaxParallel - 1) / kMaxParallel, 1,
                                      kMaxJobBlocks)
               : kMaxJobBlocks;
    std::vector<std::pair<uint64_t, uint64_t>> jobs;  // [first, end) blocks
    for (const uint64_t i : missing) {
      if (!jobs.empty() && jobs.back().second == i && i - jobs.back().first < per_job)
        ++jobs.back().second;
      else
        jobs.push_back({i, i + 1});
    }
    return jobs;
  }

  void run_job(uint64_t first, uint64_t end) const noexcept {
    try {
      if (changed_.load()) throw RemoteChanged(url_, first * kBlock, changed_message());
      const uint64_t start = first * kBlock;
      std::vector<std::shared_ptr<BlockBytes>> blocks;
      std::vector<std::span<uint8_t>> pieces;
      for (uint64_t i = first; i < end; ++i) {
        blocks.push_back(std::make_shared<BlockBytes>(block_bytes(i)));
        pieces.emplace_back(*blocks.back());
      }
      try {
        const RangeReply r = client_->get_range(url_, start, pieces, validator_);
        if (r.total != size_ || (!etag_.empty() && !r.etag.empty() && r.etag != etag_))
          throw RemoteChanged(url_, start, "the file changed on the server");
      } catch (const RemoteChanged&) {
        note_changed();
        throw;
      }
      for (uint64_t i = first; i < end; ++i) {
        if (disk_) disk_->store(i, *blocks[i - first]);
        cache_.fill(i, std::move(blocks[i - first]));
      }
    } catch (...) {
      for (uint64_t i = first; i < end; ++i) cache_.fail(i, std::current_exception());
    }
  }

  std::string changed_message() const {
    return "the file changed on the server since it was mounted; remount to read the new version";
  }

  void note_changed() const {
    if (!changed_.exchange(true))
      fmt::print(stderr, "gguffs: warning: {}: {}\n", url_, changed_message());
  }

  std::string url_;
  std::shared_ptr<HttpClient> client_;
  uint64_t size_ = 0;
  std::string etag_;
  std::string validator_;
  struct timespec mtime_ {};
  mutable BlockCache cache_;
  mutable Streams streams_;
  std::optional<DiskCache> disk_;
  mutable std::atomic<bool> changed_{false};
  // Last: destroyed (its threads joined) before anything its jobs use.
  mutable Prefetcher prefetcher_{kMaxParallel};
};

}  // namespace

std::shared_ptr<ByteSource> open_remote(const std::string& url, std::shared_ptr<HttpClient> client,
                                        const RemoteOptions& options) {
  return std::make_shared<RemoteSource>(url, std::move(client), options);
}

}  // namespace gguf
