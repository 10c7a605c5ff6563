#include "tremor/io/png.hpp"

#include <zlib.h>

#include <cstdint>
#include <vector>

#include "tremor/core/error.hpp"
#include "tremor/io/file.hpp"

namespace tremor::io {

namespace {

void put32(std::string& out, std::uint32_t value) {
  for (int shift = 24; shift >= 0; shift -= 8) out.push_back(static_cast<char>((value >> shift) & 0xff));
}

// A chunk: its length, type, data and the CRC-32 of type and data (PNG specification, 5.3).
void chunk(std::string& out, const char* type, std::string_view data) {
  put32(out, static_cast<std::uint32_t>(data.size()));
  const std::size_t start = out.size();
  out.append(type, 4);
  out.append(data);
  const auto* bytes = reinterpret_cast<const Bytef*>(out.data() + start);
  put32(out, static_cast<std::uint32_t>(crc32(0L, bytes, static_cast<uInt>(out.size() - start))));
}

}  // namespace

std::string encode_png(std::span<const unsigned char> rgb, std::size_t width, std::size_t height) {
  TREMOR_CHECK(width >= 1 && height >= 1 && width <= 0x7fffffff && height <= 0x7fffffff,
               "a PNG image of ", width, " x ", height, " pixels");
  TREMOR_CHECK(rgb.size() == width * height * 3, "a PNG image of ", width, " x ", height, " pixels was given ",
               rgb.size(), " bytes");
  // Each row is preceded by its filter type (0: none).
  std::vector<unsigned char> raw;
  raw.reserve(height * (1 + 3 * width));
  for (std::size_t row = 0; row < height; ++row) {
    raw.push_back(0);
    raw.insert(raw.end(), rgb.begin() + static_cast<std::ptrdiff_t>(row * width * 3),
               rgb.begin() + static_cast<std::ptrdiff_t>((row + 1) * width * 3));
  }
  uLongf size = compressBound(static_cast<uLong>(raw.size()));
  std::string compressed(size, '\0');
  TREMOR_CHECK(compress2(reinterpret_cast<Bytef*>(compressed.data()), &size, raw.data(), static_cast<uLong>(raw.size()),
                         Z_BEST_COMPRESSION) == Z_OK,
               "zlib could not compress a PNG image of ", width, " x ", height, " pixels");
  compressed.resize(size);
  std::string png("\x89PNG\r\n\x1a\n", 8);
  std::string header;
  put32(header, static_cast<std::uint32_t>(width));
  put32(header, static_cast<std::uint32_t>(height));
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8 bits, truecolour, deflate, no filter, no interlace
  chunk(png, "IHDR", header);
  chunk(png, "IDAT", compressed);
  chunk(png, "IEND", "");
  return png;
}

void write_png(const std::filesystem::path& path, std::span<const unsigned char> rgb, std::size_t width,
               std::size_t height) {
  write_file_atomically(path, encode_png(rgb, width, height), "PNG image");
}

}  // namespace tremor::io
