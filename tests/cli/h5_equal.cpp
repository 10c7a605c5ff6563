// tremor_h5_equal A.h5 B.h5 GROUP...: exits 0 when every dataset under each GROUP is in both
// files with the same shape and the same values bit for bit (read as float64 or int64), and
// prints "equal: N datasets"; otherwise prints each difference and exits 1. Datasets named
// *_seconds are wall times, which differ from run to run: they are listed, not compared. The CLI
// tests use it to compare a resumed run's result file with an uninterrupted one's, and
// scripts/compare-examples the results of two builds.
#include <hdf5.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

namespace {

struct Visit {
  std::string prefix;
  std::vector<std::string> datasets;
};

herr_t collect(hid_t, const char* name, const H5O_info_t* info, void* data) {
  auto* visit = static_cast<Visit*>(data);
  if (info->type == H5O_TYPE_DATASET) visit->datasets.push_back(visit->prefix + "/" + name);
  return 0;
}

std::vector<std::string> datasets_under(hid_t file, const std::string& group) {
  Visit visit{group, {}};
  const hid_t id = H5Gopen2(file, group.c_str(), H5P_DEFAULT);
  if (id < 0) return {};
  H5Ovisit(id, H5_INDEX_NAME, H5_ITER_INC, collect, &visit);
  H5Gclose(id);
  return visit.datasets;
}

// The dataset's shape and its values as bytes of float64 or int64 (by its type class).
bool read(hid_t file, const std::string& path, std::vector<hsize_t>& dims, std::vector<unsigned char>& bytes) {
  const hid_t dataset = H5Dopen2(file, path.c_str(), H5P_DEFAULT);
  if (dataset < 0) return false;
  const hid_t space = H5Dget_space(dataset);
  dims.assign(static_cast<std::size_t>(H5Sget_simple_extent_ndims(space)), 0);
  H5Sget_simple_extent_dims(space, dims.data(), nullptr);
  const auto count = static_cast<std::size_t>(H5Sget_simple_extent_npoints(space));
  const hid_t type = H5Dget_type(dataset);
  const bool real = H5Tget_class(type) == H5T_FLOAT;
  bytes.assign(count * 8, 0);
  bool ok = true;
  if (count > 0)
    ok = H5Dread(dataset, real ? H5T_NATIVE_DOUBLE : H5T_NATIVE_INT64, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) >= 0;
  H5Tclose(type);
  H5Sclose(space);
  H5Dclose(dataset);
  return ok;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s A.h5 B.h5 GROUP...\n", argv[0]);
    return 2;
  }
  H5Eset_auto2(H5E_DEFAULT, nullptr, nullptr);
  const hid_t a = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
  const hid_t b = H5Fopen(argv[2], H5F_ACC_RDONLY, H5P_DEFAULT);
  if (a < 0 || b < 0) {
    std::fprintf(stderr, "cannot open %s\n", a < 0 ? argv[1] : argv[2]);
    return 2;
  }
  int differences = 0, compared = 0, timings = 0;
  for (int g = 3; g < argc; ++g) {
    const std::vector<std::string> in_a = datasets_under(a, argv[g]), in_b = datasets_under(b, argv[g]);
    if (in_a != in_b) {
      std::printf("%s: %zu datasets in %s, %zu in %s\n", argv[g], in_a.size(), argv[1], in_b.size(), argv[2]);
      ++differences;
    }
    for (const std::string& path : in_a) {
      if (path.size() >= 8 && path.compare(path.size() - 8, 8, "_seconds") == 0) {
        ++timings;
        continue;
      }
      std::vector<hsize_t> dims_a, dims_b;
      std::vector<unsigned char> bytes_a, bytes_b;
      if (!read(a, path, dims_a, bytes_a) || !read(b, path, dims_b, bytes_b)) {
        std::printf("%s: cannot read it from both files\n", path.c_str());
        ++differences;
      } else if (dims_a != dims_b) {
        std::printf("%s: shapes differ\n", path.c_str());
        ++differences;
      } else if (bytes_a != bytes_b) {
        std::printf("%s: values differ\n", path.c_str());
        ++differences;
      }
      ++compared;
    }
  }
  H5Fclose(a);
  H5Fclose(b);
  if (differences > 0) return 1;
  if (timings > 0)
    std::printf("equal: %d datasets (%d wall times not compared)\n", compared, timings);
  else
    std::printf("equal: %d datasets\n", compared);
  return 0;
}
