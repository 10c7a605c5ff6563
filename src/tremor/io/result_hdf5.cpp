#include "tremor/io/result_hdf5.hpp"

#include <algorithm>
#include <array>
#include <filesystem>

#include "tremor/core/error.hpp"

namespace tremor::io::h5 {

void silence_errors() {
  // No clean-up of the library at exit: a file whose close failed (a full disk) stays in its
  // tables, and 1.10's clean-up crashes on it. Every file tremor opens is closed explicitly;
  // only one abandoned after a failed write is left, with its writes cut off (ResultFile).
  // Refused, harmlessly, once the library has started.
  H5dont_atexit();
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
}

namespace {

herr_t collect_message(unsigned depth, const H5E_error2_t* entry, void* data) {
  auto& out = *static_cast<std::string*>(data);
  if (entry->desc == nullptr || entry->desc[0] == '\0') return 0;
  // The outermost entries repeat the API call ("H5Dwrite(): can't write data"); the innermost
  // say why (a system error such as "No space left on device"). Keep them all, outermost first.
  if (depth > 0) out += "; ";
  out += entry->desc;
  return 0;
}

}  // namespace

std::string error_stack() {
  std::string message;
  H5Ewalk2(H5E_DEFAULT, H5E_WALK_DOWNWARD, collect_message, &message);
  H5Eclear2(H5E_DEFAULT);
  // A system error is buried in a long entry ("..., errno = 28, error message = 'No space left
  // on device', buf = ..."): the outermost entry and the system's reason say it all.
  const std::string marker = "error message = '";
  const std::size_t at = message.rfind(marker);
  if (at != std::string::npos) {
    const std::size_t start = at + marker.size();
    const std::size_t end = message.find('\'', start);
    const std::string outer = message.substr(0, message.find("; "));
    if (end != std::string::npos) return outer + ": " + message.substr(start, end - start);
  }
  return message;
}

void check(herr_t status, std::string_view file, std::string_view what) {
  if (status >= 0) return;
  const std::string stack = error_stack();
  if (stack.empty()) throw Failure(str(file, ": ", what));
  throw Failure(str(file, ": ", what, " (hdf5: ", stack, ")"));
}

hid_t check_id(hid_t id, std::string_view file, std::string_view what) {
  if (id < 0) check(-1, file, what);
  return id;
}

Handle writer_access(std::string_view file) {
  Handle access = open_or_fail(H5Pcreate(H5P_FILE_ACCESS), H5Pclose, file, "cannot create properties");
  check(H5Pset_fclose_degree(access.get(), H5F_CLOSE_STRONG), file, "cannot set file properties");
  check(H5Pset_file_locking(access.get(), false, true), file, "cannot set file properties");
  return access;
}

Handle& Handle::operator=(Handle&& other) noexcept {
  if (this != &other) {
    reset();
    id_ = other.id_;
    closer_ = other.closer_;
    other.id_ = H5I_INVALID_HID;
  }
  return *this;
}

herr_t Handle::reset() {
  herr_t status = 0;
  if (id_ >= 0 && closer_ != nullptr) status = closer_(id_);
  id_ = H5I_INVALID_HID;
  return status;
}

Handle open_result(const std::string& result, bool writable) {
  silence_errors();
  std::error_code error;
  if (!std::filesystem::is_regular_file(result, error)) {
    std::filesystem::path partial = result;
    partial += ".partial";
    if (std::filesystem::exists(partial, error))
      throw Error(str(result, ": no such result file (", partial.string(),
                      " exists: a run still writing, or one that was killed)"));
    throw Error(str(result, ": no such result file"));
  }
  if (H5Fis_hdf5(result.c_str()) <= 0) {
    error_stack();
    throw Error(str(result, ": not an HDF5 result file"));
  }
  return open_or_fail(H5Fopen(result.c_str(), writable ? H5F_ACC_RDWR : H5F_ACC_RDONLY, H5P_DEFAULT), H5Fclose, result,
                      writable ? "cannot open the result file to add to it" : "cannot open the result file");
}

Handle open_or_fail(hid_t id, Handle::Closer closer, std::string_view file, std::string_view what) {
  return Handle(check_id(id, file, what), closer);
}

Handle create_group(hid_t parent, const std::string& name, std::string_view file) {
  return open_or_fail(H5Gcreate2(parent, name.c_str(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT), H5Gclose,
                      file, str("cannot create group ", name));
}

Handle open_group(hid_t parent, const std::string& name, std::string_view file) {
  return open_or_fail(H5Gopen2(parent, name.c_str(), H5P_DEFAULT), H5Gclose, file,
                      str("no group ", name));
}

Handle open_dataset(hid_t parent, const std::string& name, std::string_view file) {
  return open_or_fail(H5Dopen2(parent, name.c_str(), H5P_DEFAULT), H5Dclose, file,
                      str("no dataset ", name));
}

Handle simple_space(std::span<const hsize_t> dims, std::string_view file) {
  return open_or_fail(H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr), H5Sclose, file,
                      "cannot create a dataspace");
}

namespace {

void write_array(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type, const void* data,
                 std::span<const hsize_t> dims, std::string_view file) {
  Handle space = simple_space(dims, file);
  Handle dataset = open_or_fail(
      H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT),
      H5Dclose, file, str("cannot create dataset ", name));
  hsize_t count = 1;
  for (hsize_t d : dims) count *= d;
  if (count > 0)
    check(H5Dwrite(dataset.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, data), file,
          str("cannot write dataset ", name));
}

}  // namespace

void write_doubles(hid_t parent, const std::string& name, std::span<const double> data,
                   std::span<const hsize_t> dims, std::string_view file) {
  write_array(parent, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, data.data(), dims, file);
}

void write_floats(hid_t parent, const std::string& name, std::span<const float> data, std::span<const hsize_t> dims,
                  std::string_view file) {
  write_array(parent, name, H5T_IEEE_F32LE, H5T_NATIVE_FLOAT, data.data(), dims, file);
}

void write_int32(hid_t parent, const std::string& name, std::span<const std::int32_t> data,
                 std::span<const hsize_t> dims, std::string_view file) {
  write_array(parent, name, H5T_STD_I32LE, H5T_NATIVE_INT32, data.data(), dims, file);
}

void write_int64(hid_t parent, const std::string& name, std::span<const std::int64_t> data,
                 std::span<const hsize_t> dims, std::string_view file) {
  write_array(parent, name, H5T_STD_I64LE, H5T_NATIVE_INT64, data.data(), dims, file);
}

namespace {

// Variable-length UTF-8 strings: h5py reads them as str.
Handle string_type(std::string_view file) {
  Handle type = open_or_fail(H5Tcopy(H5T_C_S1), H5Tclose, file, "cannot create a string type");
  check(H5Tset_size(type.get(), H5T_VARIABLE), file, "cannot create a string type");
  check(H5Tset_cset(type.get(), H5T_CSET_UTF8), file, "cannot create a string type");
  return type;
}

void write_attribute(hid_t object, const char* name, hid_t file_type, hid_t memory_type, hid_t space,
                     const void* data, std::string_view file) {
  if (H5Aexists(object, name) > 0)
    check(H5Adelete(object, name), file, str("cannot replace attribute ", name));
  Handle attribute = open_or_fail(H5Acreate2(object, name, file_type, space, H5P_DEFAULT, H5P_DEFAULT),
                                  H5Aclose, file, str("cannot create attribute ", name));
  check(H5Awrite(attribute.get(), memory_type, data), file, str("cannot write attribute ", name));
}

}  // namespace

void set_attribute(hid_t object, const char* name, const std::string& value, std::string_view file) {
  Handle type = string_type(file);
  Handle space = open_or_fail(H5Screate(H5S_SCALAR), H5Sclose, file, "cannot create a dataspace");
  const char* text = value.c_str();
  write_attribute(object, name, type.get(), type.get(), space.get(), &text, file);
}

void set_bytes_attribute(hid_t object, const char* name, const std::string& value, std::string_view file) {
  Handle type = open_or_fail(H5Tcopy(H5T_C_S1), H5Tclose, file, "cannot create a string type");
  check(H5Tset_size(type.get(), std::max<std::size_t>(value.size(), 1)), file, "cannot create a string type");
  check(H5Tset_strpad(type.get(), H5T_STR_NULLPAD), file, "cannot create a string type");
  Handle space = open_or_fail(H5Screate(H5S_SCALAR), H5Sclose, file, "cannot create a dataspace");
  const std::string padded = value.empty() ? std::string(1, '\0') : value;
  write_attribute(object, name, type.get(), type.get(), space.get(), padded.data(), file);
}

void set_attribute(hid_t object, const char* name, double value, std::string_view file) {
  Handle space = open_or_fail(H5Screate(H5S_SCALAR), H5Sclose, file, "cannot create a dataspace");
  write_attribute(object, name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, space.get(), &value, file);
}

void set_attribute(hid_t object, const char* name, std::int64_t value, std::string_view file) {
  Handle space = open_or_fail(H5Screate(H5S_SCALAR), H5Sclose, file, "cannot create a dataspace");
  write_attribute(object, name, H5T_STD_I64LE, H5T_NATIVE_INT64, space.get(), &value, file);
}

void set_attribute(hid_t object, const char* name, const std::vector<std::string>& values, std::string_view file) {
  Handle type = string_type(file);
  const std::array<hsize_t, 1> dims{values.size()};
  Handle space = simple_space(dims, file);
  std::vector<const char*> texts;
  for (const auto& value : values) texts.push_back(value.c_str());
  const char* none = "";  // (HDF5 refuses a null buffer, even for no value)
  write_attribute(object, name, type.get(), type.get(), space.get(), texts.empty() ? &none : texts.data(), file);
}

bool has_attribute(hid_t object, const char* name) { return H5Aexists(object, name) > 0; }

namespace {

Handle open_attribute(hid_t object, const char* name, std::string_view file) {
  return open_or_fail(H5Aopen(object, name, H5P_DEFAULT), H5Aclose, file, str("no attribute ", name));
}

}  // namespace

std::vector<std::string> read_strings_attribute(hid_t object, const char* name, std::string_view file) {
  Handle attribute = open_attribute(object, name, file);
  Handle space = open_or_fail(H5Aget_space(attribute.get()), H5Sclose, file, str("attribute ", name));
  const hssize_t count = H5Sget_simple_extent_npoints(space.get());
  check(count < 0 ? -1 : 0, file, str("attribute ", name));
  Handle stored = open_or_fail(H5Aget_type(attribute.get()), H5Tclose, file, str("attribute ", name));
  if (H5Tget_class(stored.get()) != H5T_STRING) throw Error(str(file, ": attribute ", name, " is not a string"));
  std::vector<std::string> values;
  if (count == 0) return values;
  if (H5Tis_variable_str(stored.get()) > 0) {
    Handle type = string_type(file);
    std::vector<char*> texts(static_cast<std::size_t>(count), nullptr);
    check(H5Aread(attribute.get(), type.get(), texts.data()), file, str("cannot read attribute ", name));
    for (char* text : texts) values.emplace_back(text != nullptr ? text : "");
    H5Dvlen_reclaim(type.get(), space.get(), H5P_DEFAULT, texts.data());
  } else {
    const std::size_t size = H5Tget_size(stored.get());
    std::string buffer(size * static_cast<std::size_t>(count), '\0');
    Handle type = open_or_fail(H5Tcopy(H5T_C_S1), H5Tclose, file, "cannot create a string type");
    check(H5Tset_size(type.get(), size), file, "cannot create a string type");
    check(H5Aread(attribute.get(), type.get(), buffer.data()), file, str("cannot read attribute ", name));
    for (hssize_t i = 0; i < count; ++i) {
      std::string text = buffer.substr(static_cast<std::size_t>(i) * size, size);
      text.resize(text.find('\0') == std::string::npos ? text.size() : text.find('\0'));
      values.push_back(std::move(text));
    }
  }
  return values;
}

std::string read_string_attribute(hid_t object, const char* name, std::string_view file) {
  auto values = read_strings_attribute(object, name, file);
  if (values.size() != 1) throw Error(str(file, ": attribute ", name, " is not one string"));
  return values[0];
}

std::int64_t read_int_attribute(hid_t object, const char* name, std::string_view file) {
  Handle attribute = open_attribute(object, name, file);
  std::int64_t value = 0;
  check(H5Aread(attribute.get(), H5T_NATIVE_INT64, &value), file, str("cannot read attribute ", name));
  return value;
}

double read_double_attribute(hid_t object, const char* name, std::string_view file) {
  Handle attribute = open_attribute(object, name, file);
  double value = 0.0;
  check(H5Aread(attribute.get(), H5T_NATIVE_DOUBLE, &value), file, str("cannot read attribute ", name));
  return value;
}

namespace {

template <class T>
std::vector<T> read_values(hid_t parent, const std::string& name, hid_t type, std::string_view file,
                           const std::string& where) {
  Handle dataset = open_dataset(parent, name, file);
  std::size_t n = 1;
  for (const hsize_t d : dataset_dims(dataset.get(), file, where)) n *= static_cast<std::size_t>(d);
  std::vector<T> values(n);
  if (n > 0) check(H5Dread(dataset.get(), type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), file, "cannot read " + where);
  return values;
}

}  // namespace

std::vector<double> read_doubles(hid_t parent, const std::string& name, std::string_view file, const std::string& where) {
  return read_values<double>(parent, name, H5T_NATIVE_DOUBLE, file, where);
}

std::vector<std::int64_t> read_int64(hid_t parent, const std::string& name, std::string_view file,
                                     const std::string& where) {
  return read_values<std::int64_t>(parent, name, H5T_NATIVE_INT64, file, where);
}

std::vector<unsigned char> read_uint8(hid_t parent, const std::string& name, std::string_view file,
                                      const std::string& where) {
  return read_values<unsigned char>(parent, name, H5T_NATIVE_UCHAR, file, where);
}

std::vector<hsize_t> dataset_dims(hid_t dataset, std::string_view file, std::string_view what) {
  Handle space = open_or_fail(H5Dget_space(dataset), H5Sclose, file, what);
  const int rank = H5Sget_simple_extent_ndims(space.get());
  check(rank < 0 ? -1 : 0, file, what);
  std::vector<hsize_t> dims(static_cast<std::size_t>(rank));
  check(H5Sget_simple_extent_dims(space.get(), dims.data(), nullptr), file, what);
  return dims;
}

namespace {

herr_t collect_name(hid_t, const char* name, const H5L_info_t*, void* data) {
  static_cast<std::vector<std::string>*>(data)->emplace_back(name);
  return 0;
}

}  // namespace

std::vector<std::string> group_members(hid_t group, std::string_view file, std::string_view what) {
  std::vector<std::string> names;
  check(H5Literate(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, collect_name, &names), file, what);
  return names;
}

std::vector<HistoriesGroup> histories_groups(hid_t file_handle, std::string_view file) {
  std::vector<HistoriesGroup> out;
  if (H5Lexists(file_handle, "histories", H5P_DEFAULT) > 0) out.push_back({"", "/histories"});
  if (H5Lexists(file_handle, "shots", H5P_DEFAULT) <= 0) return out;
  Handle shots = open_group(file_handle, "shots", file);
  for (std::string& shot : group_members(shots.get(), file, "cannot list /shots")) {
    std::string path = "/shots/" + shot + "/histories";
    out.push_back({std::move(shot), std::move(path)});
  }
  return out;
}

}  // namespace tremor::io::h5
