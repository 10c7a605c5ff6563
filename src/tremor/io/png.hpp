#pragma once
// PNG images (8-bit RGB, one zlib-compressed IDAT chunk), written atomically
// (write_file_atomically): the maps of `tremor image`.
#include <cstddef>
#include <filesystem>
#include <span>
#include <string>

namespace tremor::io {

// The PNG file's bytes for `rgb` (width x height pixels, rows from the top, 3 bytes each).
std::string encode_png(std::span<const unsigned char> rgb, std::size_t width, std::size_t height);
void write_png(const std::filesystem::path& path, std::span<const unsigned char> rgb, std::size_t width,
               std::size_t height);

}  // namespace tremor::io
