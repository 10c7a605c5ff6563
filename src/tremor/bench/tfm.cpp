#include "tremor/bench/tfm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numbers>
#include <sstream>

#include "tremor/bench/report.hpp"
#include "tremor/bench/timing.hpp"
#include "tremor/core/clock.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/imaging/tfm.hpp"
#include "tremor/imaging/tfm_sum.hpp"

namespace tremor::bench {

namespace {

constexpr double frequency = 5e6, c_l = 5900.0, c_t = 3230.0;  // Hz, m/s: steel at 5 MHz
constexpr double pitch = 0.6e-3, depth = 40e-3;               // m

// A capture of `n` elements at `pitch` and `samples` samples at 50 MHz: the L-L echoes of three
// point scatterers (Gaussian-windowed 5 MHz bursts).
imaging::Fmc capture(int n, int samples) {
  imaging::Fmc fmc;
  for (int i = 0; i < n; ++i) fmc.elements.push_back({(i - 0.5 * (n - 1)) * pitch, 0.0});
  fmc.dt = 2e-8;
  fmc.t0 = -0.5e-6;
  fmc.n_samples = static_cast<std::size_t>(samples);
  fmc.data.assign(static_cast<std::size_t>(n) * n * fmc.n_samples, 0.0);
  const std::array<std::array<double, 2>, 3> scatterers{{{-5e-3, 10e-3}, {0.0, 20e-3}, {6e-3, 30e-3}}};
  const auto un = static_cast<std::size_t>(n);
  for (std::size_t i = 0; i < un; ++i)
    for (std::size_t j = 0; j < un; ++j)
      for (const auto& s : scatterers) {
        const double delay = (std::hypot(s[0] - fmc.elements[i][0], s[1]) + std::hypot(s[0] - fmc.elements[j][0], s[1])) / c_l;
        for (std::size_t k = 0; k < fmc.n_samples; ++k) {
          const double t = static_cast<double>(k) * fmc.dt + fmc.t0 - delay;
          fmc.data[(i * un + j) * fmc.n_samples + k] +=
              std::exp(-(t / 0.15e-6) * (t / 0.15e-6)) * std::cos(2.0 * std::numbers::pi * frequency * t);
        }
      }
  return fmc;
}

struct SumRow {
  std::string backend;
  double direct_seconds = 0.0, skip_seconds = 0.0;  // the median delay tables: L-L; LT-T (two ways)
  double seconds = 0.0;      // the median sum (the image copied out where the backend's memory is a device's)
  double difference = 0.0;   // largest |image - first backend's image| over the image's peak
  CopyBandwidth copy;
};

}  // namespace

void run_tfm(const TfmArgs& args) {
  TREMOR_CHECK(args.elements >= 1 && args.elements <= 1024, "bench tfm: ", args.elements, " elements; 1 to 1024");
  TREMOR_CHECK(args.samples >= 16, "bench tfm: ", args.samples, " samples; at least 16");
  TREMOR_CHECK(args.pixels >= 2 && args.pixels <= 8192, "bench tfm: ", args.pixels, " pixels a side; 2 to 8192");
  if (!args.output_dir.empty()) make_output_dir(args.output_dir);
  RunRecord record(args.commit, args.note);
  std::vector<std::string> names = args.backends;
  if (names.empty()) {
    names = {"openmp"};
    if (cuda_device_count() > 0) names.push_back("cuda");
  }
  std::vector<Device> devices = make_devices(names);
  for (Device& device : devices) device.copy = measure_copy(device.exec, args.copy_mb);
  print_devices(devices, true);
  const int n = args.elements;
  const auto pixels = static_cast<Index>(args.pixels) * args.pixels;
  const double pairs = static_cast<double>(n) * n;
  std::printf("bench tfm: %d elements, %d samples an A-scan, %d x %d pixels (%s pixel-pairs an image)\n", n,
              args.samples, args.pixels, args.pixels, group_digits(static_cast<long long>(pairs * pixels)).c_str());
  const imaging::Fmc fmc = capture(n, args.samples);
  const double aperture = n * pitch;
  imaging::GridMap grid;
  grid.nx = grid.ny = args.pixels;
  grid.min = {-0.5 * aperture, 1e-3};
  grid.max = {0.5 * aperture, depth - 1e-3};

  // The analytic signals, on the host.
  std::vector<double> real, imaginary;
  const Clock::time_point analytic_start = Clock::now();
  imaging::analytic_signals(fmc, real, imaginary);
  const double analytic_seconds = seconds_since(analytic_start);

  // On each backend: the delay tables of a direct view (L-L) and of a half-skip one (LT-T: L down
  // to the back wall, T up, back T), and the sum (L-L).
  const imaging::Way direct = imaging::Path{{c_l}, {}}.way(), skip = imaging::Path{{c_l, c_t}, {depth}}.way(),
                     shear = imaging::Path{{c_t}, {}}.way();
  std::vector<SumRow> rows;
  std::vector<double> first;
  for (const Device& device : devices) {
    SumRow row;
    row.backend = device.name();
    row.copy = device.copy;
    imaging::DelayAndSum focus(device.exec, fmc.n_samples, -fmc.t0 / fmc.dt, fmc.dt, fmc.elements, fmc.across, real,
                               imaginary);
    const auto timed = [&](auto&& work) {
      return median(warm_then_time(3, args.min_seconds, [&] {
        const Clock::time_point start = Clock::now();
        work();
        device.exec.synchronize();
        return seconds_since(start);
      }));
    };
    row.skip_seconds = timed([&] { focus.delays(skip, shear, grid, 0, pixels); });
    row.direct_seconds = timed([&] { focus.delays(direct, direct, grid, 0, pixels); });
    std::vector<double> image(static_cast<std::size_t>(pixels));
    row.seconds = timed([&] { focus.sum(image.data()); });
    if (first.empty()) first = image;
    const double peak = *std::max_element(first.begin(), first.end());
    for (std::size_t p = 0; p < image.size(); ++p)
      row.difference = std::max(row.difference, std::abs(image[p] - first[p]) / peak);
    rows.push_back(row);
  }
  record.finish();

  std::printf("analytic signals (host): %.3f s\n", analytic_seconds);
  std::printf("\n%-8s %14s %14s %12s %18s %16s %12s %10s %12s\n", "backend", "delays L-L ms", "delays LT-T ms",
              "sum ms", "pixel-pairs/s", "GB/s uncached", "copy GB/s", "of copy", "vs first");
  std::ostringstream json, md;
  json << "{\n  \"benchmark\": \"tfm\"";
  record.json_provenance(json);
  record.json_machine(json);
  json << ",\n  \"elements\": " << n << ",\n  \"samples\": " << args.samples << ",\n  \"pixels\": " << args.pixels
       << ",\n  \"analytic_seconds\": " << fixed(analytic_seconds, 4) << ",\n  \"sums\": [";
  md << "# The total focusing method's sum (" << n << " elements, " << args.samples << " samples, " << args.pixels
     << " x " << args.pixels << " pixels)\n\n"
     << "Date " << record.date << ", commit " << record.commit << ". Analytic signals (host, FFTW) "
     << fixed(analytic_seconds, 3)
     << " s. On each backend, the medians of the timed runs: the delay tables of every element to every pixel, "
        "L-L (one way, a distance) and LT-T (two ways: L down to the back wall and T up by Fermat's least time, and "
        "T), and the sum (L-L; the image copied out on a GPU); GB/s uncached: 40 bytes a pixel-pair (two samples "
        "of an analytic A-scan and a delay) over the sum's time.\n\n";
  write_devices(json, md, devices);
  md << "\n| backend | delays L-L ms | delays LT-T ms | sum ms | pixel-pairs/s | GB/s uncached | copy GB/s | of copy | "
        "max difference |\n"
     << "|---|---:|---:|---:|---:|---:|---:|---:|---:|\n";
  JsonArray array(json);
  for (const SumRow& r : rows) {
    const double rate = pairs * static_cast<double>(pixels) / r.seconds;
    const double gbs = 40.0 * rate / 1e9, copy = r.copy.bytes_per_second() / 1e9;
    std::printf("%-8s %14.3f %14.3f %12.3f %18.4g %16.1f %12.1f %9.1f%% %12.2g\n", r.backend.c_str(),
                r.direct_seconds * 1e3, r.skip_seconds * 1e3, r.seconds * 1e3, rate, gbs, copy,
                percent_of_copy(gbs, r.copy), r.difference);
    array.next() << "{\"backend\": " << json_string(r.backend) << ", \"direct_delays_seconds\": " << r.direct_seconds
                 << ", \"half_skip_delays_seconds\": " << r.skip_seconds << ", \"sum_seconds\": " << r.seconds
                 << ", \"pixel_pairs_per_second\": " << rate << ", \"uncached_gbytes_per_second\": " << fixed(gbs, 2)
                 << ", \"copy_gbytes_per_second\": " << fixed(copy, 2)
                 << ", \"max_difference\": " << r.difference << "}";
    char rate_text[32], difference_text[32];
    std::snprintf(rate_text, sizeof rate_text, "%.4g", rate);
    std::snprintf(difference_text, sizeof difference_text, "%.2g", r.difference);
    md << "| " << r.backend << " | " << fixed(r.direct_seconds * 1e3, 3) << " | " << fixed(r.skip_seconds * 1e3, 3)
       << " | " << fixed(r.seconds * 1e3, 3) << " | " << rate_text << " | " << fixed(gbs, 1)
       << " | " << fixed(copy, 1) << " | " << fixed(percent_of_copy(gbs, r.copy), 1) << "% | " << difference_text
       << " |\n";
  }
  array.close();
  json << "\n}\n";
  if (!args.output_dir.empty()) write_report_to(args.output_dir, "tfm", json.str(), md.str());
}

}  // namespace tremor::bench
