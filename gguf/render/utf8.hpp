// Strict UTF-8 (RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF), the one
// definition the renderers share to decide what counts as text and what gets escaped.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace gguf {

// True when bytes is valid UTF-8.
bool is_valid_utf8(std::string_view bytes);

// The automaton behind Utf8Screen. It lives in the header so that Utf8Screen::clean, which runs
// once per element of a 128,256-token array, inlines into the renderers (7% of a render).
namespace utf8_detail {

// What a byte can be in a sequence. The lead bytes E0, ED, F0 and F4 have classes of their own
// because they narrow the range of the next byte (overlongs, surrogates, above U+10FFFF).
enum ByteClass : uint32_t {
  kPasses,   // ASCII that may appear as it is
  kStops,    // ASCII that needs an escape
  kCont80,   // continuation 80..8F
  kCont90,   // continuation 90..9F
  kContA0,   // continuation A0..BF
  kInvalid,  // C0, C1, F5..FF
  kLead2,    // C2..DF
  kLeadE0,   // E0: next must be A0..BF
  kLead3,    // E1..EC, EE, EF
  kLeadED,   // ED: next must be 80..9F
  kLeadF0,   // F0: next must be 90..BF
  kLead4,    // F1..F3
  kLeadF4,   // F4: next must be 80..8F
};
inline constexpr uint32_t kClassCount = kLeadF4 + 1;

// States are stored as row offsets (state * kClassCount), so one step is one add and one load.
// kReject absorbs, so a check needs no early exit and no data-dependent branch.
enum State : uint32_t {
  kAccept,  // between characters
  kReject,
  kNeed1,  // 1, 2 or 3 continuation bytes to go
  kNeed2,
  kNeed3,
  kAfterE0,  // the second byte of these leads has a narrower range
  kAfterED,
  kAfterF0,
  kAfterF4,
  kStateCount
};
inline constexpr uint32_t kAcceptRow = kAccept * kClassCount;
inline constexpr uint32_t kRejectRow = kReject * kClassCount;

inline constexpr std::array<uint8_t, 256> kNonAsciiClasses = [] {
  std::array<uint8_t, 256> t{};
  for (unsigned b = 0x80; b < 256; ++b) {
    ByteClass c = kInvalid;
    if (b < 0x90)
      c = kCont80;
    else if (b < 0xA0)
      c = kCont90;
    else if (b < 0xC0)
      c = kContA0;
    else if (b < 0xC2)
      c = kInvalid;
    else if (b < 0xE0)
      c = kLead2;
    else if (b == 0xE0)
      c = kLeadE0;
    else if (b == 0xED)
      c = kLeadED;
    else if (b < 0xF0)
      c = kLead3;
    else if (b == 0xF0)
      c = kLeadF0;
    else if (b < 0xF4)
      c = kLead4;
    else if (b == 0xF4)
      c = kLeadF4;
    t[b] = static_cast<uint8_t>(c);
  }
  return t;
}();

inline constexpr std::array<uint8_t, kStateCount* kClassCount> kNextRow = [] {
  std::array<uint8_t, kStateCount * kClassCount> t{};
  auto row = [](State s) { return static_cast<uint8_t>(s * kClassCount); };
  for (auto& x : t) x = row(kReject);
  auto set = [&](State from, ByteClass c, State to) { t[from * kClassCount + c] = row(to); };
  set(kAccept, kPasses, kAccept);
  set(kAccept, kLead2, kNeed1);
  set(kAccept, kLeadE0, kAfterE0);
  set(kAccept, kLead3, kNeed2);
  set(kAccept, kLeadED, kAfterED);
  set(kAccept, kLeadF0, kAfterF0);
  set(kAccept, kLead4, kNeed3);
  set(kAccept, kLeadF4, kAfterF4);
  for (ByteClass c : {kCont80, kCont90, kContA0}) {
    set(kNeed1, c, kAccept);
    set(kNeed2, c, kNeed1);
    set(kNeed3, c, kNeed2);
  }
  set(kAfterE0, kContA0, kNeed1);  // E0 80..9F would be overlong
  set(kAfterED, kCont80, kNeed1);  // ED A0..BF would be a surrogate
  set(kAfterED, kCont90, kNeed1);
  set(kAfterF0, kCont90, kNeed2);  // F0 80..8F would be overlong
  set(kAfterF0, kContA0, kNeed2);
  set(kAfterF4, kCont80, kNeed2);  // F4 90..BF would be above U+10FFFF
  return t;
}();

}  // namespace utf8_detail

// Validates UTF-8 and, in the same pass, that no ASCII byte needs an escape in some output
// format (each format says which ASCII bytes pass). Table-driven: one table step per byte and
// no data-dependent branch, because byte-level BPE vocabularies mix one- and two-byte
// characters at random, which defeats a branchy scanner.
class Utf8Screen {
 public:
  // passes(b) for each ASCII byte b: whether b may appear as it is.
  template <typename AsciiPasses>
  constexpr explicit Utf8Screen(AsciiPasses passes) : classes_(utf8_detail::kNonAsciiClasses) {
    for (unsigned b = 0; b < 0x80; ++b)
      classes_[b] =
          passes(static_cast<unsigned char>(b)) ? utf8_detail::kPasses : utf8_detail::kStops;
  }

  // True when s is valid UTF-8 and every ASCII byte in it passes.
  bool clean(std::string_view s) const {
    uint32_t row = utf8_detail::kAcceptRow;
    for (const char ch : s)
      row = utf8_detail::kNextRow[row + classes_[static_cast<unsigned char>(ch)]];
    return row == utf8_detail::kAcceptRow;
  }

  // The length of the longest prefix of s that is clean, in whole characters.
  size_t clean_prefix(std::string_view s) const;

  // Appends s to out, each clean run with one append (not one per character), and hands every
  // other byte (an ASCII byte that does not pass, or one that is not part of valid UTF-8) to
  // escape(out, byte).
  template <typename Escape>
  void append_escaped(std::string& out, std::string_view s, Escape escape) const {
    if (clean(s)) {  // the common case: one pass, one append
      out.append(s);
      return;
    }
    while (!s.empty()) {
      const size_t run = clean_prefix(s);
      out.append(s.data(), run);
      if (run == s.size()) return;
      escape(out, static_cast<unsigned char>(s[run]));
      s.remove_prefix(run + 1);
    }
  }

 private:
  std::array<uint8_t, 256> classes_;
};

}  // namespace gguf
