// Little-endian integers in byte strings: the on-disk formats (docs/formats/) write every
// integer this way. putLittleEndian overwrites bytes already there; appendLittleEndian grows
// the string; getLittleEndian reads (the caller has checked the bounds).
//
// Ownership: none. Thread-safety: pure functions.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <type_traits>

namespace darius::base {

// On a little-endian host these are one unaligned load or store (memcpy); the byte loops,
// which GCC does not always merge, cost 100 ns a record in the SEARCH loop over the index.
template <typename T>
void putLittleEndian(std::string& out, size_t at, T v) {
  using U = std::make_unsigned_t<T>;
  U u = static_cast<U>(v);
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(out.data() + at, &u, sizeof u);
  } else {
    for (size_t i = 0; i < sizeof(T); ++i) out[at + i] = static_cast<char>((u >> (8 * i)) & 0xff);
  }
}

template <typename T>
void appendLittleEndian(std::string& out, T v) {
  size_t at = out.size();
  out.resize(at + sizeof(T));
  putLittleEndian<T>(out, at, v);
}

template <typename T>
T getLittleEndian(std::string_view in, size_t at) {
  using U = std::make_unsigned_t<T>;
  U u = 0;
  if constexpr (std::endian::native == std::endian::little) {
    std::memcpy(&u, in.data() + at, sizeof u);
  } else {
    for (size_t i = 0; i < sizeof(T); ++i) {
      u |= static_cast<U>(static_cast<uint8_t>(in[at + i])) << (8 * i);
    }
  }
  return static_cast<T>(u);
}

}  // namespace darius::base
