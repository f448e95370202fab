// Files llama.cpp would reject but whose metadata is still readable: they load, and every
// problem is a warning naming the key or tensor.
#include <gtest/gtest.h>

#include "gguf/parser.hpp"
#include "gguf/writer.hpp"
#include "tests/support/model_builders.hpp"

namespace {

using gguf::OwnedValue;
using gguf::Writer;
using test_support::has_line_with;
using test_support::parse_bytes;

const gguf::TensorInfo& tensor(const gguf::Model& m, std::string_view name) {
  for (const auto& t : m.tensors)
    if (t.name == name) return t;
  throw std::runtime_error("no tensor " + std::string(name));
}

std::string dump(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += "\n  " + l;
  return out;
}

TEST(ReaderWarnings, TensorDataPastTheEndOfTheFile) {
  Writer w;
  w.add_tensor("first", {256}, gguf::type_id::F32, std::string(1024, 'a'));
  w.add_tensor("second", {64}, gguf::type_id::F32, std::string(256, 'b'));
  // Header 24; infos (8+5)+4+8+4+8 = 37 and (8+6)+4+8+4+8 = 38: end 99, data at 128.
  ASSERT_EQ(w.data_offset(), 128u);
  std::string bytes = w.to_bytes().substr(0, 128 + 100);  // 100 bytes of the first tensor
  auto m = parse_bytes(bytes);
  const auto& first = tensor(*m, "first");
  EXPECT_EQ(first.bytes, 1024u);
  EXPECT_EQ(first.bytes_present, 100u);
  EXPECT_FALSE(first.data_complete());
  const auto& second = tensor(*m, "second");
  EXPECT_EQ(second.bytes, 256u);
  EXPECT_EQ(second.bytes_present, 0u);
  EXPECT_EQ(m->missing_bytes(), 924u + 256u);
  EXPECT_TRUE(has_line_with(m->warnings, {"'first'", "924"})) << dump(m->warnings);
  EXPECT_TRUE(has_line_with(m->warnings, {"'second'", "256"})) << dump(m->warnings);
  EXPECT_FALSE(first.warnings.empty());
}

TEST(ReaderWarnings, DataSectionStartingPastTheEndOfTheFile) {
  Writer w;
  w.add_tensor("t", {16}, gguf::type_id::F32, std::string(64, 'a'));
  std::string bytes = w.to_bytes();
  bytes.resize(w.infos_end());  // the header ends, the padding and the data are gone
  auto m = parse_bytes(bytes);
  EXPECT_EQ(m->tensors.at(0).bytes_present, 0u);
  EXPECT_EQ(m->missing_bytes(), 64u);
  EXPECT_TRUE(has_line_with(m->warnings, {"'t'"})) << dump(m->warnings);
}

TEST(ReaderWarnings, UnknownTypeIdTakesItsSizeFromTheGap) {
  Writer w;
  w.add_tensor_raw("mystery", {10}, 99, 0, std::string(96, 'm'));
  w.add_tensor_raw("known", {8}, gguf::type_id::F32, 96, std::string(32, 'k'));
  w.add_tensor_raw("last.mystery", {3}, 1000, 128, std::string(50, 'l'));
  auto m = parse_bytes(w.to_bytes());
  const auto& a = tensor(*m, "mystery");
  EXPECT_FALSE(a.type_known);
  EXPECT_EQ(a.type_id, 99u);
  EXPECT_EQ(a.bytes, 96u);  // up to the next tensor
  EXPECT_TRUE(tensor(*m, "known").type_known);
  const auto& c = tensor(*m, "last.mystery");
  EXPECT_FALSE(c.type_known);
  EXPECT_EQ(c.bytes, 64u);  // up to the end of the file: 50 bytes and 14 of padding
  EXPECT_EQ(c.bytes_present, 64u);
  EXPECT_TRUE(has_line_with(m->warnings, {"'mystery'", "99"})) << dump(m->warnings);
  EXPECT_TRUE(has_line_with(m->warnings, {"'last.mystery'", "1000"})) << dump(m->warnings);
}

TEST(ReaderWarnings, RemovedTypeIdIsNotKnown) {
  Writer w;
  w.add_tensor_raw("old", {32}, 4, 0, std::string(40, 'o'));  // Q4_2, removed from ggml
  auto m = parse_bytes(w.to_bytes());
  EXPECT_FALSE(m->tensors.at(0).type_known);
  EXPECT_EQ(m->tensors.at(0).bytes, 64u);
  EXPECT_TRUE(has_line_with(m->warnings, {"'old'"})) << dump(m->warnings);
}

TEST(ReaderWarnings, UnalignedOffset) {
  Writer w;
  w.add_tensor_raw("odd", {4}, gguf::type_id::F32, 8, std::string(16, 'x'));
  auto m = parse_bytes(w.to_bytes());
  const auto& t = m->tensors.at(0);
  EXPECT_EQ(t.offset, 8u);
  EXPECT_EQ(t.file_offset, m->data_offset + 8);
  EXPECT_TRUE(t.data_complete());
  EXPECT_TRUE(has_line_with(m->warnings, {"'odd'", "8"})) << dump(m->warnings);
}

TEST(ReaderWarnings, NonContiguousOffsets) {
  Writer w;
  w.add_tensor("a", {8}, gguf::type_id::F32, std::string(32, 'a'));
  w.add_tensor_raw("b", {8}, gguf::type_id::F32, 96, std::string(32, 'b'));  // expected 32
  auto m = parse_bytes(w.to_bytes());
  EXPECT_TRUE(tensor(*m, "a").warnings.empty());
  EXPECT_TRUE(has_line_with(m->warnings, {"'b'", "96"})) << dump(m->warnings);
  EXPECT_TRUE(tensor(*m, "b").data_complete());
}

TEST(ReaderWarnings, TensorsOutOfOrder) {
  Writer w;
  w.add_tensor_raw("later", {8}, gguf::type_id::F32, 32, std::string(32, 'l'));
  w.add_tensor_raw("earlier", {8}, gguf::type_id::F32, 0, std::string(32, 'e'));
  auto m = parse_bytes(w.to_bytes());
  EXPECT_FALSE(m->warnings.empty());
  EXPECT_TRUE(has_line_with(m->warnings, {"'later'"})) << dump(m->warnings);
}

TEST(ReaderWarnings, OverlappingTensors) {
  Writer w;
  w.add_tensor("a", {16}, gguf::type_id::F32, std::string(64, 'a'));
  w.add_tensor_raw("b", {8}, gguf::type_id::F32, 32, {});  // inside a
  auto m = parse_bytes(w.to_bytes());
  EXPECT_TRUE(has_line_with(m->warnings, {"'b'", "overlap", "'a'"})) << dump(m->warnings);
  EXPECT_TRUE(tensor(*m, "b").data_complete());
}

TEST(ReaderWarnings, RowLengthNotAMultipleOfTheBlockSize) {
  Writer w;
  w.add_tensor_raw("ragged", {704, 2}, gguf::type_id::Q4_K, 0, std::string(1000, 'r'));
  auto m = parse_bytes(w.to_bytes());
  const auto& t = m->tensors.at(0);
  EXPECT_TRUE(t.type_known);
  EXPECT_EQ(t.elements, 1408u);
  EXPECT_TRUE(has_line_with(m->warnings, {"'ragged'", "704", "not a multiple of the block size"}))
      << dump(m->warnings);
}

TEST(ReaderWarnings, DuplicateKeysAreBothKept) {
  Writer w;
  w.add("general.name", OwnedValue::string("first"));
  w.add("general.name", OwnedValue::string("second"));
  auto m = parse_bytes(w.to_bytes());
  ASSERT_EQ(m->metadata.size(), 2u);
  EXPECT_EQ(m->metadata[0].value.str, "first");
  EXPECT_EQ(m->metadata[1].value.str, "second");
  EXPECT_EQ(m->find("general.name")->value.str, "first");
  EXPECT_TRUE(has_line_with(m->warnings, {"general.name", "duplicate"})) << dump(m->warnings);
}

TEST(ReaderWarnings, DuplicateTensorNamesAreBothKept) {
  Writer w;
  w.add_tensor("same", {8}, gguf::type_id::F32, std::string(32, '1'));
  w.add_tensor("same", {4}, gguf::type_id::F32, std::string(16, '2'));
  std::string bytes = w.to_bytes();
  auto m = parse_bytes(bytes);
  ASSERT_EQ(m->tensors.size(), 2u);
  EXPECT_EQ(m->tensors[0].bytes, 32u);
  EXPECT_EQ(m->tensors[1].bytes, 16u);
  EXPECT_EQ(bytes.substr(m->tensors[1].file_offset, 16), std::string(16, '2'));
  EXPECT_TRUE(has_line_with(m->warnings, {"'same'", "duplicate"})) << dump(m->warnings);
}

TEST(ReaderWarnings, AlignmentOfTheWrongTypeFallsBackTo32) {
  for (auto value : {OwnedValue::u64(64), OwnedValue::i32(64), OwnedValue::u32_array({64}),
                     OwnedValue::string("64")}) {
    Writer w;  // laid out at 32, as a reader that ignores the bad key expects
    w.add("general.alignment", value);
    w.add_tensor("t", {3}, gguf::type_id::F32, std::string(12, 't'));
    w.add_tensor("u", {3}, gguf::type_id::F32, std::string(12, 'u'));
    auto m = parse_bytes(w.to_bytes());
    EXPECT_EQ(m->alignment, 32u);
    EXPECT_EQ(m->data_offset % 32, 0u);
    EXPECT_EQ(m->tensors.at(1).offset, 32u);
    EXPECT_TRUE(has_line_with(m->warnings, {"general.alignment", "32"})) << dump(m->warnings);
    EXPECT_TRUE(m->tensors.at(1).warnings.empty());
  }
}

TEST(ReaderWarnings, AlignmentNotAPowerOfTwoFallsBackTo32) {
  for (uint32_t a : {0u, 48u, 3u}) {
    Writer w;
    w.add("general.alignment", OwnedValue::u32(a));
    w.add_tensor("t", {3}, gguf::type_id::F32, std::string(12, 't'));
    auto m = parse_bytes(w.to_bytes());
    EXPECT_EQ(m->alignment, 32u) << a;
    EXPECT_TRUE(has_line_with(m->warnings, {"general.alignment", std::to_string(a)}))
        << dump(m->warnings);
  }
}

TEST(ReaderWarnings, ValidFilesHaveNoWarnings) {
  auto m = parse_bytes(test_support::small_model_writer().to_bytes());
  EXPECT_TRUE(m->warnings.empty()) << dump(m->warnings);
  for (const auto& t : m->tensors) EXPECT_TRUE(t.warnings.empty()) << t.name;
}

}  // namespace
