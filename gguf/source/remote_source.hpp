// A model file on an HTTP(S) server, read with range requests behind the ByteSource seam: the
// parser, the tree and the FUSE layer see size() and read_at() as for a local file (fd() is -1,
// so reads copy through read_at).
//
// Opening costs one request: the first 1 MiB, whose answer also gives the size and the validator
// (ETag, or else Last-Modified). Later reads go through the block cache. A stream of reads from
// byte 0 (the header being parsed) fetches, when it meets a missing block, the next 8 MiB (then
// 16, 32...) in parallel requests, and waits for them. Any other sequential stream has the
// blocks ahead of it fetched on background threads, in a window that doubles up to 64 MiB. Every
// request carries If-Range with the validator; once the file is seen to change, every read fails
// (EIO at the FUSE boundary) and one warning goes to stderr.
#pragma once

#include <memory>
#include <string>

#include "gguf/source/http_client.hpp"
#include "gguf/source/source.hpp"

namespace gguf {

struct RemoteOptions {
  uint64_t cache_size = uint64_t{256} << 20;  // -o cache_size
  std::string cache_dir;                      // -o cache_dir; empty: no disk cache
};

// Opens url (http or https). Throws FormatError: remote_not_found, remote_denied,
// remote_unusable (no Range support, bad answers, network or TLS failure).
std::shared_ptr<ByteSource> open_remote(const std::string& url, std::shared_ptr<HttpClient> client,
                                        const RemoteOptions& options);

}  // namespace gguf
