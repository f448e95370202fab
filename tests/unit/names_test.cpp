#include "fs/tree/names.hpp"

#include <gtest/gtest.h>

#include <string>

namespace gguffs::names {
namespace {

TEST(Names, FnvMatchesPublishedVectors) {
  // Test vectors of the FNV-1a 64-bit hash (Fowler/Noll/Vo reference).
  EXPECT_EQ(fnv1a64(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a64("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a64("foobar"), 0x85944171f73967e8ULL);
}

TEST(Names, OrdinaryNamesAreKept) {
  EXPECT_EQ(encode("general.architecture"), "general.architecture");
  EXPECT_EQ(encode("with space.weight"), "with space.weight");
  EXPECT_EQ(encode("тензор.weight"), "тензор.weight");
  EXPECT_EQ(encode("a~2"), "a~2");
}

TEST(Names, SlashPercentAndControlBytesAreEscaped) {
  EXPECT_EQ(encode("odd/slash/name"), "odd%2Fslash%2Fname");
  EXPECT_EQ(encode("100%"), "100%25");
  EXPECT_EQ(encode(std::string("a\nb\tc\x01\x1f\x7f", 8)), "a%0Ab%09c%01%1F%7F");
  EXPECT_EQ(encode(std::string("\0", 1)), "%00");
}

TEST(Names, DotNamesAndTheEmptyNameStayVisible) {
  EXPECT_EQ(encode("."), "%2E");
  EXPECT_EQ(encode(".."), "%2E%2E");
  EXPECT_EQ(encode("..."), "...");
  EXPECT_EQ(encode(""), "%");
}

TEST(Names, DecodeReversesEncode) {
  for (std::string name :
       {std::string("odd/slash/name"), std::string("100%"), std::string(".."), std::string("."),
        std::string(""), std::string("a\nb", 3), std::string("тензор/x")}) {
    const auto back = decode(encode(name));
    ASSERT_TRUE(back.has_value()) << name;
    EXPECT_EQ(*back, name);
  }
  EXPECT_FALSE(decode("50%").has_value());
  EXPECT_FALSE(decode("%zz").has_value());
}

TEST(Names, LongNamesAreCutWithAHashOfTheFullName) {
  const std::string key(300, 'k');  // the alltypes fixture has this key
  const std::string name = encode(key);
  ASSERT_EQ(name.size(), 255u);
  EXPECT_EQ(name.substr(0, 246), std::string(246, 'k'));
  // Low 32 bits of FNV-1a 64 of 300 'k's (0x1f2d4d02dcfcfcf1, computed independently).
  EXPECT_EQ(name.substr(246), "~dcfcfcf1");
  // Two long names differing only at the end stay distinct.
  EXPECT_NE(encode(std::string(300, 'k') + "x"), encode(std::string(300, 'k') + "y"));
  EXPECT_EQ(encode(std::string(255, 'a')), std::string(255, 'a'));
}

TEST(Names, CuttingNeverSplitsACharacterOrAnEscape) {
  // 2-byte Cyrillic letters: an odd limit must not leave half a letter.
  std::string cyrillic;
  for (int i = 0; i < 200; ++i) cyrillic += "ж";
  const std::string a = encode(cyrillic);
  ASSERT_LE(a.size(), 255u);
  const std::string body = a.substr(0, a.size() - 9);
  EXPECT_EQ(body.size() % 2, 0u);
  EXPECT_EQ(body.size(), 246u);
  // Escapes are 3 bytes: 246 is a multiple of 3, so use a one-byte lead to shift them.
  const std::string slashes = "x" + std::string(200, '/');
  const std::string b = encode(slashes);
  ASSERT_LE(b.size(), 255u);
  const std::string b_body = b.substr(0, b.size() - 9);
  EXPECT_EQ(b_body.size(), 1u + 3 * 81);  // 244: the 82nd escape would end at 247
  EXPECT_EQ(b_body.substr(b_body.size() - 3), "%2F");
}

TEST(Names, SuffixesFitTheLimit) {
  EXPECT_EQ(with_suffix("name", "~2"), "name~2");
  const std::string long_name(255, 'a');
  const std::string s = with_suffix(long_name, "~12");
  EXPECT_EQ(s.size(), 255u);
  EXPECT_EQ(s.substr(252), "~12");
}

}  // namespace
}  // namespace gguffs::names
