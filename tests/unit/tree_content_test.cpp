#include <gtest/gtest.h>

#include <atomic>
#include <cerrno>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include "fs/tree/content_range.hpp"
#include "fs/tree/content_segmented.hpp"
#include "fs/tree/content_text.hpp"
#include "gguf/source/source.hpp"
#include "tests/support/test_support.hpp"

namespace gguffs {
namespace {

std::string read_all(const FileContent& c, uint64_t off, size_t len) {
  ReadBuffer out(len);
  c.read(off, len, out);
  EXPECT_EQ(out.size(), out.to_string().size());
  return out.to_string();
}

TEST(LazyText, RendersOnceOnFirstUseEvenFromManyThreads) {
  std::atomic<int> calls{0};
  LazyText t([&] {
    ++calls;
    return std::string("hello world\n");
  });
  EXPECT_EQ(calls, 0);
  std::vector<std::thread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { EXPECT_EQ(t.size(), 12u); });
  for (auto& th : threads) th.join();
  EXPECT_EQ(calls, 1);
  EXPECT_EQ(read_all(t, 6, 100), "world\n");
  EXPECT_EQ(read_all(t, 0, 5), "hello");
  EXPECT_EQ(read_all(t, 12, 5), "");
  EXPECT_EQ(read_all(t, 99, 5), "");
}

TEST(LazyText, AFailedRenderIsRetried) {
  int calls = 0;
  LazyText t([&]() -> std::string {
    if (++calls == 1) throw std::runtime_error("first time fails");
    return "ok";
  });
  EXPECT_THROW(t.size(), std::runtime_error);
  EXPECT_EQ(t.size(), 2u);
}

TEST(ByteRange, FileSourcesGiveFilePiecesAtTheAbsoluteOffset) {
  test_support::TempDir dir;
  test_support::write_file(dir / "f", "0123456789abcdef");
  auto source = gguf::open_file((dir / "f").string());
  ByteRange r(source, 4, 8, 8);
  EXPECT_EQ(r.size(), 8u);
  ReadBuffer out(100);
  r.read(2, 100, out);
  ASSERT_EQ(out.pieces().size(), 1u);
  EXPECT_TRUE(out.pieces()[0].is_file());
  EXPECT_EQ(out.pieces()[0].fd, source->fd());
  EXPECT_EQ(out.pieces()[0].file_offset, 6u);
  EXPECT_EQ(out.pieces()[0].size, 6u);
  EXPECT_EQ(out.to_string(), "6789ab");
}

TEST(ByteRange, MemorySourcesAreCopied) {
  auto source = gguf::memory_source("0123456789abcdef");
  ByteRange r(source, 10, 6, 6);
  ReadBuffer out(4);
  r.read(1, 4, out);
  ASSERT_EQ(out.pieces().size(), 1u);
  EXPECT_FALSE(out.pieces()[0].is_file());
  EXPECT_EQ(out.to_string(), "bcde");
}

TEST(ByteRange, MissingBytesOfAPartialFileAreAnIoError) {
  auto source = gguf::memory_source("0123456789");
  ByteRange r(source, 4, 100, 6);  // only "456789" is present
  EXPECT_EQ(r.size(), 100u);
  EXPECT_EQ(read_all(r, 0, 6), "456789");
  try {
    ReadBuffer out(10);
    r.read(4, 10, out);
    FAIL() << "read past the present bytes succeeded";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code().value(), EIO);
  }
  EXPECT_EQ(read_all(r, 100, 10), "");  // at the end: nothing, not an error
}

TEST(Segmented, JoinsPartsAcrossBoundaries) {
  auto source = gguf::memory_source("ABCDEFGHIJ");
  std::vector<std::shared_ptr<const FileContent>> parts = {
      std::make_shared<LazyText>([] { return std::string("head:"); }),
      std::make_shared<ByteRange>(source, 0, 3, 3),  // ABC
      std::make_shared<LazyText>([] { return std::string(); }),
      std::make_shared<ByteRange>(source, 7, 3, 3),  // HIJ
  };
  Segmented s(parts);
  EXPECT_EQ(s.size(), 11u);
  EXPECT_EQ(read_all(s, 0, 100), "head:ABCHIJ");
  EXPECT_EQ(read_all(s, 3, 5), "d:ABC");
  EXPECT_EQ(read_all(s, 7, 2), "CH");
  EXPECT_EQ(read_all(s, 10, 5), "J");
  EXPECT_EQ(read_all(s, 11, 5), "");
  EXPECT_TRUE(s.may_be_mapped());
}

TEST(ReadBuffer, ScratchIsBoundedByItsCapacity) {
  ReadBuffer out(8);
  uint8_t* a = out.add_scratch(5);
  a[0] = 'x';
  EXPECT_THROW(out.add_scratch(4), std::length_error);
  uint8_t* b = out.add_scratch(3);
  EXPECT_EQ(b, a + 5);  // never moves
  EXPECT_EQ(out.size(), 8u);
}

}  // namespace
}  // namespace gguffs
