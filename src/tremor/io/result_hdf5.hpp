#pragma once
// Small RAII and error helpers over the HDF5 C API, shared by the result writer and the readers
// of result files (CSV export). Internal to the tremor library: HDF5 is linked privately, so this
// header is included from .cpp files only, never from a public header.
#include <hdf5.h>

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/error.hpp"

namespace tremor::io::h5 {

// Turns off HDF5's own printing of its error stack (process-wide; idempotent); failures are read
// from the stack into tremor::Error messages instead.
void silence_errors();

// The messages on HDF5's current error stack, innermost last, joined by "; " (then cleared).
std::string error_stack();

// What check() throws: a failure of the HDF5 library (a write refused by a full disk, a corrupt
// file), told apart from the caller's own checks so a writer can stop writing after one.
class Failure : public Error {
 public:
  using Error::Error;
};

// Throws h5::Failure "FILE: WHAT (hdf5: STACK)" when `status` is negative.
void check(herr_t status, std::string_view file, std::string_view what);
// Same for identifiers: returns `id` when valid.
hid_t check_id(hid_t id, std::string_view file, std::string_view what);

// Owns one HDF5 identifier and closes it with the matching H5?close.
class Handle {
 public:
  using Closer = herr_t (*)(hid_t);
  Handle() = default;
  Handle(hid_t id, Closer closer) : id_(id), closer_(closer) {}
  Handle(const Handle&) = delete;
  Handle& operator=(const Handle&) = delete;
  Handle(Handle&& other) noexcept : id_(other.id_), closer_(other.closer_) { other.id_ = H5I_INVALID_HID; }
  Handle& operator=(Handle&& other) noexcept;
  ~Handle() { reset(); }

  hid_t get() const { return id_; }
  bool valid() const { return id_ >= 0; }
  // Closes now; returns the closer's status (0 when there was nothing to close).
  herr_t reset();

 private:
  hid_t id_ = H5I_INVALID_HID;
  Closer closer_ = nullptr;
};

// File-access properties of a file tremor writes: closing the file closes every object still open
// in it (a close cannot leave it half open), and HDF5 takes no lock of its own: the file is
// locked by the OutputClaim (io/file.hpp) taken before HDF5 truncates it, and an HDF5 lock on
// a second descriptor of the same file would conflict with that one (flock locks per descriptor).
Handle writer_access(std::string_view file);

// A result file opened for reading (or, `writable`, for adding to it): refused by name when it is
// missing (saying so when a run is still writing it), not HDF5, or cannot be opened.
Handle open_result(const std::string& path, bool writable = false);

// Checked constructors of handles; `file` and `what` name the failure in messages.
Handle open_or_fail(hid_t id, Handle::Closer closer, std::string_view file, std::string_view what);
Handle create_group(hid_t parent, const std::string& name, std::string_view file);
Handle open_group(hid_t parent, const std::string& name, std::string_view file);
Handle open_dataset(hid_t parent, const std::string& name, std::string_view file);
Handle simple_space(std::span<const hsize_t> dims, std::string_view file);

// Fixed-size datasets written in one call. `name` may be a path relative to `parent`.
void write_doubles(hid_t parent, const std::string& name, std::span<const double> data,
                   std::span<const hsize_t> dims, std::string_view file);
void write_int32(hid_t parent, const std::string& name, std::span<const std::int32_t> data,
                 std::span<const hsize_t> dims, std::string_view file);
void write_floats(hid_t parent, const std::string& name, std::span<const float> data, std::span<const hsize_t> dims,
                  std::string_view file);
void write_int64(hid_t parent, const std::string& name, std::span<const std::int64_t> data,
                 std::span<const hsize_t> dims, std::string_view file);

// Scalar and string attributes on an object (replaced when they exist).
void set_attribute(hid_t object, const char* name, const std::string& value, std::string_view file);
void set_attribute(hid_t object, const char* name, double value, std::string_view file);
// A fixed-length ASCII string (numpy's bytes_ in h5py), for formats whose readers expect one.
void set_bytes_attribute(hid_t object, const char* name, const std::string& value, std::string_view file);
void set_attribute(hid_t object, const char* name, std::int64_t value, std::string_view file);
void set_attribute(hid_t object, const char* name, const std::vector<std::string>& values, std::string_view file);

// Readers (throw naming `file` and the object when missing or of the wrong shape).
bool has_attribute(hid_t object, const char* name);
std::string read_string_attribute(hid_t object, const char* name, std::string_view file);
std::vector<std::string> read_strings_attribute(hid_t object, const char* name, std::string_view file);
std::int64_t read_int_attribute(hid_t object, const char* name, std::string_view file);
double read_double_attribute(hid_t object, const char* name, std::string_view file);
std::vector<hsize_t> dataset_dims(hid_t dataset, std::string_view file, std::string_view what);
// Every value of the dataset `name` under `parent`, whatever its shape (row-major), converted to
// the element type; `where` names it in messages.
std::vector<double> read_doubles(hid_t parent, const std::string& name, std::string_view file, const std::string& where);
std::vector<std::int64_t> read_int64(hid_t parent, const std::string& name, std::string_view file,
                                     const std::string& where);
std::vector<unsigned char> read_uint8(hid_t parent, const std::string& name, std::string_view file,
                                      const std::string& where);
// Names of the links in a group, in name order.
std::vector<std::string> group_members(hid_t group, std::string_view file, std::string_view what);
// The groups of a result file that hold histories (docs/output-format.md): /histories (shot ""),
// where present, then each shot's /shots/<shot>/histories, in name order.
struct HistoriesGroup {
  std::string shot;
  std::string path;
};
std::vector<HistoriesGroup> histories_groups(hid_t file_handle, std::string_view file);

}  // namespace tremor::io::h5
