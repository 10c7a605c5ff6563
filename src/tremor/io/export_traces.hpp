#pragma once
// Seismic trace formats of a result file's histories (docs/output-format.md, "Trace export"):
// `tremor export --format sac|su|asdf`. A trace is one component of one quantity at one point of a
// history set (a receiver's node or position), float32, its samples evenly spaced.
//
//   SAC (binary, NVHDR 6, this machine's byte order, which SAC readers detect): one file a trace,
//     `<set>.<point>.<quantity letter><axis>.sac` (`probe.p1.ux.sac`, `r.1037.vz.sac`, pressure
//     `hydro.p2.p.sac`, a station `quake.DB.X20.uz.sac`; a shot's `<shot>.<set>...`), the point its
//     node label, p<k>, or a STATIONS file's NET.STA. Header: DELTA, B, E, NPTS,
//     DEPMIN/DEPMAX/DEPMEN, IFTYPE = ITIME, LEVEN, IDEP (IDISP, IVEL, IACC; IUNKN for pressure),
//     KSTNM the point and KNETWK the set's name (first 8 characters; a station's name and network),
//     KCMPNM BX plus the axis (BXP for pressure), KEVNM the shot's name (first 16; or the event's,
//     a run's one named point source at a position, a CMTSOLUTION's), USER0-2 the point's x, y, z
//     (m); a station's STLA, STLO, STEL its y, x, z and the event's EVLA, EVLO, EVEL (m, the
//     model's frame: LCALDA 0).
//   SU (Seismic Unix: SEG-Y trace headers without the file headers, this machine's byte order):
//     one file a quantity and axis of a set, `<set>.<quantity letter><axis>.su`, a trace per point:
//     tracl = tracr = tracf = its number from 1, trid 1, ns, dt in whole microseconds (and d1 the
//     exact interval, s; f1 the first sample's time), gx, gy and gelev the point's x, y, z in
//     tenths of a millimetre (scalco, scalel -10000), counit 1 (metres).
//
//   ASDF (the Adaptable Seismic Data Format 1.0.3, HDF5; Krischer et al. 2016): one file,
//     `<result stem>.asdf.h5`, its root attributes file_format "ASDF" and file_format_version,
//     each trace a float32 dataset /Waveforms/<NET>.<STA>/<NET>.<STA>..<CHA>__<start>__<end>__<tag>
//     with its `starttime` (int64 ns from 1970-01-01, the simulation's zero) and `sampling_rate`
//     (Hz): NET the set's name and STA the point (a station: its own network and name), CHA as
//     SAC's KCMPNM, the tag the quantity (a shot's: the shot's name, then the quantity), names
//     made of letters, digits, '-' and '_' (anything else becomes '_'). No StationXML or QuakeML:
//     the minimum a reader needs (docs/output-format.md).
//
// SU cannot hold more than 65,535 samples a trace (refused, naming the set); where the interval is
// not a whole number of microseconds (an ultrasonic run's, ns), dt is rounded (0 below 0.5 us) and
// a warning says so: d1 holds it exactly.
#include <filesystem>

#include "tremor/io/export_csv.hpp"

namespace tremor::io {

enum class TraceFormat { Sac, Su, Asdf };

// Writes every history set's traces (each file by the rules of every output: export_files.hpp),
// every name checked before any is written. Throws tremor::Error naming the file at fault.
ExportSummary export_traces(const std::filesystem::path& result_path, const std::filesystem::path& out_dir,
                            TraceFormat format);

}  // namespace tremor::io
