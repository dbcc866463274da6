// Reads a fuzzer's input bytes as a stream of small choices. Past the end it
// yields zeros, so every input, however short, is a complete test case.
#ifndef HALNORM_FUZZ_BYTE_READER_H_
#define HALNORM_FUZZ_BYTE_READER_H_

#include <cstddef>
#include <cstdint>
#include <cstring>

namespace halnorm::fuzz {

class ByteReader {
 public:
  ByteReader(const uint8_t* data, size_t size) : data_(data), size_(size) {}

  uint8_t Byte() { return pos_ < size_ ? data_[pos_++] : 0; }

  // One of `choices`, picked by the next byte.
  template <typename T, size_t N>
  T Pick(const T (&choices)[N]) {
    return choices[Byte() % N];
  }

  // Everything not read yet (and nothing more is left to read).
  const uint8_t* Rest(size_t* size) {
    const size_t at = pos_ < size_ ? pos_ : size_;
    *size = size_ - at;
    pos_ = size_;
    return data_ + at;
  }

  // The next 4 bytes as a float: any bit pattern, NaNs and infinities too.
  float Float() {
    uint32_t bits = 0;
    for (int i = 0; i < 4; i++) bits = bits << 8 | Byte();
    float f;
    std::memcpy(&f, &bits, sizeof f);
    return f;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
};

}  // namespace halnorm::fuzz

#endif  // HALNORM_FUZZ_BYTE_READER_H_
