#pragma once
// What drives a model and what it records, as the model file (or a program) describes them:
// point forces, surface loads, body forces, prescribed displacements, receivers, and the explicit
// and static solvers' settings. The solvers turn these descriptions into nodal forces, constraints
// and histories.
#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tremor/core/choice.hpp"
#include "tremor/core/config.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/backend_setting.hpp"
#include "tremor/model/signal.hpp"

namespace tremor {

struct Model;

// A concentrated force amplitude * signal(t - delay) * direction at each of its nodes, or at a
// point between nodes; or a moment tensor at a point.
struct PointSource {
  std::string name;                             // named in messages; may be empty
  std::string node_set;                         // the set it came from; empty when at a position
  std::vector<Index> nodes;                     // node indices; empty: at `position`
  // With no nodes, the point (m, z = 0 in 2D) it acts at: the solvers spread it over the nodes of
  // the element holding the point, a force by their shape functions N_a(x0) and a moment tensor by
  // their gradients (fem/point_sources.hpp), as they set up.
  std::optional<std::array<double, 3>> position;
  std::array<double, 3> direction{0.0, 0.0, 0.0};  // unit vector (z = 0 in 2D)
  double amplitude = 1.0;                       // N, per node; m^3 for a volume source; x moment
  // A moment tensor (N m) in place of a force, at `position`: M_xx, M_yy, M_zz, M_xy, M_xz, M_yz
  // (2D: M_xx, M_yy and M_xy, the others 0), times amplitude * signal(t - delay); its equivalent
  // forces f_a = M grad N_a(x0) (Aki & Richards 2002, section 3.3). `direction` unused.
  std::optional<std::array<double, 6>> moment;
  // A monopole in a fluid (docs/model-file.md, "Fluids"): volume amplitude * signal(t - delay)
  // injected at each node, which a fluid element holds; `direction` unused.
  bool volume = false;
  // Per node (in the order of `nodes`), factors of the amplitude; empty: 1 at every node. A
  // piston's volume sources (explicit_fe::fluid_loading) share one source so, each node its share
  // of the piston's face.
  std::vector<double> weights;
  Signal signal;
  // 0: amplitude * signal(t - delay); 1: amplitude * its time integral from the start
  // (Signal::integral: a piston's volume from its velocity).
  int integrated = 0;
  double delay = 0.0;  // s, >= 0
  std::string origin;  // "file:line", for messages
  std::string transducer;  // the transducer it stands for (model/transducer.hpp); empty: none
};

// A distributed load on a surface (a face set, mesh/faces.hpp): a pressure p acting against the
// outward normal (traction -p n) or a traction vector t in global axes, both N/m^2, times a time
// function: signal(t - delay) when `signal` is set (model file), else the *AMPLITUDE named
// `amplitude` (Abaqus), else 1 at all times. The solvers turn it into consistent nodal forces
// (fem/faces.hpp), multiplied by the section thickness in 2D.
struct SurfaceLoad {
  std::string name;             // for messages; may be empty
  std::string surface;          // the face set it came from
  std::vector<Face> faces;      // resolved faces
  std::optional<double> pressure;             // Pa; when absent, `traction` applies
  std::array<double, 3> traction{0.0, 0.0, 0.0};  // Pa, global axes (z = 0 in 2D)
  std::optional<Signal> signal;
  std::string amplitude;  // Abaqus amplitude name, when no signal
  double delay = 0.0;     // s, >= 0, with a signal
  std::string origin;     // "file:line", for messages
  std::string transducer;  // the transducer it stands for (model/transducer.hpp); empty: none
};

// Displacement prescribed on each node of a set: for each constrained component c,
// u_c(t) = amplitude * factor[c] * signal(t - delay); other components stay free. A model file's
// `direction` constrains every component with factor = the unit direction; its `components`
// constrains those listed, each with factor 1.
struct PrescribedDisplacement {
  std::string node_set;
  std::vector<Index> nodes;
  std::vector<int> components;               // constrained: 0 = x, 1 = y, 2 = z; sorted, unique
  std::array<double, 3> factor{0.0, 0.0, 0.0};  // per component
  double amplitude = 1.0;                    // m
  Signal signal;
  // 0: the signal; 1 or 2: its first or second time integral from the start (Signal::integral: a
  // fluid's potential held so that its pressure follows the signal, explicit_fe::fluid_loading).
  int integrated = 0;
  double delay = 0.0;
  std::string origin;
  std::string transducer;  // the transducer it stands for (model/transducer.hpp); empty: none
};

// A body force on the elements of a set: an acceleration field g (m/s^2, global axes), as gravity
// is (Abaqus *DLOAD GRAV; the model file's [[body_force]] acceleration or gravity), and a force per
// unit volume b (N/m^3, Abaqus *DLOAD BX, BY, BZ; the model file's force_per_volume), which is not
// scaled by the density, so a set mixing materials takes the same b everywhere. The solvers turn
// it into consistent nodal forces f_a = t int (rho g + b) N_a dV (fem/loads.hpp), rho the density
// and t the thickness (2D) of each element's section. In an explicit run it scales with its
// amplitude like a *CLOAD, and is constant without one.
struct BodyForce {
  std::string element_set;                      // the set it came from; empty: every element
  std::vector<Index> elements;                  // resolved global element indices, ascending
  std::array<double, 3> acceleration{0.0, 0.0, 0.0};      // m/s^2 (z = 0 in 2D)
  std::array<double, 3> force_per_volume{0.0, 0.0, 0.0};  // N/m^3 (z = 0 in 2D)
  std::string amplitude;                        // Abaqus amplitude name; empty: constant
  std::string origin;                           // "file:line", for messages
};

// The race strategy of the static solver's assembly (sparse::RaceStrategy): "auto" is colouring,
// whose sums are the same bits on every run and thread count.
enum class StaticAssembly { Auto, Colouring, Atomics };
inline constexpr std::array<Named<StaticAssembly>, 3> static_assembly_names{
    {{"auto", StaticAssembly::Auto}, {"colouring", StaticAssembly::Colouring}, {"atomics", StaticAssembly::Atomics}}};

// The static solver's preconditioner (nodal dim x dim blocks for block_jacobi) and the format of the
// matrix CG multiplies with, by name: one table each, by which the readers parse StaticSettings'
// fields and the result file, tremor info and the plans printed write them.
enum class PreconditionerKind { None, Jacobi, BlockJacobi };
inline constexpr std::array<Named<PreconditionerKind>, 3> preconditioner_names{
    {{"none", PreconditionerKind::None},
     {"jacobi", PreconditionerKind::Jacobi},
     {"block_jacobi", PreconditionerKind::BlockJacobi}}};
enum class StaticFormat { Csr, BlockCsr };
inline constexpr std::array<Named<StaticFormat>, 2> static_format_names{{{"csr", StaticFormat::Csr},
                                                                         {"block_csr", StaticFormat::BlockCsr}}};

// Settings of the static solver (docs/static.md): K u = f solved by preconditioned conjugate
// gradients on the chosen backend, K assembled there by the two-kernel assembly. The loads are
// the model's point sources (amplitude * direction), *CLOADs, surface loads and body forces at
// their full magnitude (signals, delays and amplitudes, which describe time, are not used); the
// constraints its *BOUNDARY values and prescribed displacements (amplitude * factor).
struct StaticSettings {
  std::optional<Backend> backend;  // std::nullopt: "auto" (model/backend_setting.hpp)
  Precision precision = Precision::Double;
  PreconditionerKind preconditioner = PreconditionerKind::BlockJacobi;  // block_jacobi: nodal dim x dim blocks
  double tolerance = 1e-8;                      // on the relative residual ||f - K u|| / ||f||, in (0, 1)
  int max_iterations = 10000;                   // > 0
  StaticFormat format = StaticFormat::Csr;      // the matrix CG multiplies with
  StaticAssembly assembly = StaticAssembly::Auto;  // the assembly's race strategy
  std::string step_name;                        // the Abaqus *STEP's name, when read from one
  std::string origin;                           // "file:line", for messages
};

// The names of StaticSettings' choices, in the order they are documented (their tables' names).
std::span<const std::string_view> static_preconditioners();
std::span<const std::string_view> static_formats();
std::span<const std::string_view> static_assemblies();
// Backends and precisions, shared by the explicit and static settings.
std::span<const std::string_view> solver_backends();    // "auto", "serial", "openmp", "cuda"
std::span<const std::string_view> solver_precisions();  // "double", "float"
// "\"a\", \"b\" or \"c\"" for messages.
std::string quoted_choices(std::span<const std::string_view> choices);

// Histories to record: at nodes (resolved), or at positions the solver interpolates with the shape
// functions of the element holding them.
// A regular grid of points on a surface of a 3D mesh (an inspection area): count[0] x count[1]
// points from min to max in x and y (point j * count[0] + i at x = min[0] + i (max[0] - min[0]) /
// (count[0] - 1), likewise y), each at the surface's height there, found among its faces.
struct ReceiverGrid {
  std::array<double, 2> min{0.0, 0.0}, max{0.0, 0.0};  // m
  std::array<Index, 2> count{1, 1};
  std::string surface;       // the face set
  std::vector<Face> faces;   // resolved faces
  Index n_points() const { return count[0] * count[1]; }
  // Point p's x and y.
  std::array<double, 2> point(Index p) const;
  // The k-th of n coordinates spaced evenly from lo to hi (lo when n is 1), weighted from both
  // ends, so that the middle of a symmetric range is 0 exactly.
  static double along(double lo, double hi, Index n, Index k);
};

struct Receiver {
  std::string name;
  std::string node_set;                          // when from a set
  std::vector<Index> nodes;                      // resolved nodes (empty when from positions)
  std::vector<std::array<double, 3>> positions;  // m (z = 0 in 2D)
  std::optional<ReceiverGrid> grid;              // points on a surface instead of nodes or positions
  // An array's (model/array.hpp): point k is the mean displacement over the faces footprints[k]
  // (node a of them weighted by int N_a dA / A, as a uniform pressure over them loads it), its
  // centre positions[k].
  std::vector<std::vector<Face>> footprints;
  // Per position, its name in the result file and traces (a STATIONS file's "NET.STA"); empty: the
  // points are p1, p2, ... by order.
  std::vector<std::string> point_names;
  bool displacement = true;
  bool velocity = false;
  bool acceleration = false;
  // The pressure of a fluid (its points in fluid elements), alone: a history holds pressure or
  // motion, not both (docs/model-file.md, "Fluids").
  bool pressure = false;
  int every_n_steps = 1;
  std::string origin;
};

// Settings of the explicit solver.
struct ExplicitSettings {
  double duration = 0.0;        // s, simulated time, > 0
  double time_step = 0.0;       // s; 0: automatic, the stable step times safety_factor
  double safety_factor = 0.9;   // in (0, 1]
  std::string precision = "double";        // "double" or "float"
  std::string backend = "auto";            // "auto", "serial", "openmp" or "cuda"
  // "auto" (the fastest measured on the backend) or the name of a stiffness operator: a name the
  // run's pre-flight parses against the operator registry (explicit_fe::operators(), a layer above
  // the model), naming operator_origin when it is unknown.
  std::string operator_kind = "auto";
  std::string operator_origin;  // "FILE:LINE" of the operator's key when read from a file
  std::string ordering = "none";            // node ordering before the run: "none" or "rcm"
  // A block file (`tremor partition`) the "partitioned" operator takes its partition from instead
  // of partitioning the mesh; empty: none. A path as given, or resolved against the model file's
  // folder when read from one.
  std::string blocks;
  bool allow_unstable = false;  // accept a time_step above the stable one
  std::string origin;
};

// The node closest to `position` (dim coordinates; extra ones ignored), ties to the lowest
// index; -1 for a mesh with no node. Brute force: O(nodes) per call.
Index nearest_node(const Mesh& mesh, std::span<const double> position);

// Checks the sources, surface loads, body forces, prescribed displacements, receivers, and the
// explicit and static settings of a model against its mesh: nodes, faces and elements in range,
// directions non-zero, values finite, components within the dimension, delays >= 0, durations > 0,
// safety factor in (0, 1], tolerance in (0, 1), settings among their choices, signals valid.
// Called by Model::validate.
void validate_excitation(const Model& model);

}  // namespace tremor
