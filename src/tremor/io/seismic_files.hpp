#pragma once
// The source and station files seismologists bring (docs/model-file.md, "Seismic sources and
// stations"), in SPECFEM3D Cartesian's layout:
//
//   CMTSOLUTION    a header line (PDE ...), then `key: value` lines: event name, time shift (s),
//                  half duration (s), latorUTM and longorUTM (m), depth (km below the surface),
//                  Mrr, Mtt, Mpp, Mrt, Mrp, Mtp (dyne cm, the Harvard/GCMT convention: r up,
//                  t south, p east); several such blocks, one a point source (a finite fault).
//   FORCESOLUTION  a header line (FORCE 001), then time shift (s), f0 (a half duration, s, or a
//                  Ricker's peak frequency, Hz: the model file says which), latorUTM, longorUTM,
//                  depth (km), factor force source (N), component dir vect source E, N, Z_UP;
//                  optionally `source time function`; several blocks allowed.
//   STATIONS       a line a station: name, network, latorUTM, longorUTM (m), elevation and burial
//                  (m below the surface); blank lines and '#' comments skipped.
//
// Numbers may be written the Fortran way (1.d10). Errors name the file and line.
#include <array>
#include <string>
#include <string_view>
#include <vector>

namespace tremor::io {

struct CmtSolution {
  long line = 0;             // the block's header line
  std::string event;         // "event name"
  double time_shift = 0.0;   // s
  double half_duration = 0.0;  // s
  double lat = 0.0, lon = 0.0;  // latorUTM, longorUTM (m)
  double depth = 0.0;        // km
  std::array<double, 6> m{};  // Mrr, Mtt, Mpp, Mrt, Mrp, Mtp (dyne cm)
};

struct ForceSolution {
  long line = 0;
  std::string name;          // the header line's second word ("001")
  double time_shift = 0.0;   // s
  double f0 = 0.0;           // s (a half duration) or Hz (a Ricker's peak)
  double lat = 0.0, lon = 0.0, depth = 0.0;  // m, m, km
  double factor = 0.0;       // N
  std::array<double, 3> east_north_up{};  // direction (any length, not zero)
  int time_function = -1;    // "source time function", where given; -1 absent
};

struct Station {
  long line = 0;
  std::string name, network;
  double lat = 0.0, lon = 0.0, elevation = 0.0, burial = 0.0;  // m
};

// Parse `text`, the contents of `file`; throw tremor::Error naming file:line.
std::vector<CmtSolution> parse_cmtsolution(std::string_view text, const std::string& file);
std::vector<ForceSolution> parse_forcesolution(std::string_view text, const std::string& file);
std::vector<Station> parse_stations(std::string_view text, const std::string& file);

// A number as a Fortran list or C would write it ("1.d10", "-2.5e+03"); false where it is not
// one or not finite.
bool fortran_number(std::string_view text, double& out);

}  // namespace tremor::io
