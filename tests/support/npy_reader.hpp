// A small .npy (version 1.x) header reader for the tests, written from the format's description
// in numpy/lib/format.py: "\x93NUMPY", major, minor, a little-endian uint16 length, then a
// Python dict literal padded with spaces and ending in '\n'. Failures are gtest failures.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace test_support {

struct ParsedNpy {
  uint8_t major = 0, minor = 0;
  size_t header_size = 0;                   // magic to the final '\n', inclusive
  std::map<std::string, std::string> dict;  // key -> value text as written
};

// A strict reading of "{'key': value, ...}" where values are 'quoted', True/False or tuples.
inline ParsedNpy parse_npy(const std::string& file) {
  ParsedNpy p;
  if (file.size() < 10 || file.compare(0, 6, "\x93NUMPY") != 0) {
    ADD_FAILURE() << "no magic";
    return p;
  }
  p.major = static_cast<uint8_t>(file[6]);
  p.minor = static_cast<uint8_t>(file[7]);
  const size_t len =
      static_cast<uint8_t>(file[8]) | static_cast<size_t>(static_cast<uint8_t>(file[9])) << 8;
  p.header_size = 10 + len;
  if (file.size() < p.header_size) {
    ADD_FAILURE() << "header runs past the bytes";
    return p;
  }
  const std::string text = file.substr(10, len);
  EXPECT_EQ(text.back(), '\n');
  size_t i = 0;
  auto skip_spaces = [&] {
    while (i < text.size() && text[i] == ' ') ++i;
  };
  EXPECT_EQ(text[i++], '{');
  while (true) {
    skip_spaces();
    if (i >= text.size()) {
      ADD_FAILURE() << "unterminated dict: " << text;
      return p;
    }
    if (text[i] == '}') {
      ++i;
      break;
    }
    EXPECT_EQ(text[i++], '\'');
    const size_t key_end = text.find('\'', i);
    if (key_end == std::string::npos) {
      ADD_FAILURE() << "unterminated key: " << text;
      return p;
    }
    const std::string key = text.substr(i, key_end - i);
    i = key_end + 1;
    EXPECT_EQ(text.substr(i, 2), ": ");
    i += 2;
    size_t value_end;
    if (text[i] == '\'') {
      value_end = text.find('\'', i + 1) + 1;
    } else if (text[i] == '(') {
      value_end = text.find(')', i) + 1;
    } else {
      value_end = text.find(',', i);
    }
    if (value_end == std::string::npos || value_end == 0 || value_end >= text.size()) {
      ADD_FAILURE() << "unterminated value of " << key << ": " << text;
      return p;
    }
    p.dict[key] = text.substr(i, value_end - i);
    i = value_end;
    EXPECT_EQ(text[i++], ',') << "after " << key;
  }
  // Only spaces between the dict and the newline.
  for (; i + 1 < text.size(); ++i) EXPECT_EQ(text[i], ' ') << "padding byte " << i;
  return p;
}

// "(2, 3, 32)" for {2, 3, 32}, "(7,)" for {7}: how numpy writes a shape tuple.
inline std::string shape_text(const std::vector<uint64_t>& shape) {
  std::string s = "(";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace test_support
