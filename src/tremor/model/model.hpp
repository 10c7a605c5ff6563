#pragma once
// Model: everything a solver needs to know about a problem, independent of the file it came from
// (TOML model file, Abaqus .inp) and of the backend that will run it. Host side, SI units.
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tremor/mesh/defect.hpp"
#include "tremor/mesh/cracks.hpp"
#include "tremor/mesh/holes.hpp"
#include "tremor/mesh/mesh.hpp"
#include "tremor/model/absorbing.hpp"
#include "tremor/model/array.hpp"
#include "tremor/model/material.hpp"
#include "tremor/model/output.hpp"
#include "tremor/model/source.hpp"
#include "tremor/model/transducer.hpp"

namespace tremor {

// Assigns one material and formulation to an element set.
struct Section {
  std::string element_set;
  std::string material;
  Formulation formulation = Formulation::Solid;
  double thickness = 1.0;  // 2D out-of-plane thickness (m); plane strain uses it for forces per element
  std::string origin = {};  // "file:line" it came from, for messages; empty for a section made by default
};

// A time function tabulated as (time, value) pairs, linearly interpolated.
struct Amplitude {
  std::string name;
  std::vector<std::pair<double, double>> points;
  double value(double time) const;
};

// Prescribed displacement of one component (0 = x, 1 = y, 2 = z) on a set of nodes.
struct FixedDof {
  // The component `component` a fluid's pressure (Abaqus's DOF 8, the acoustic pressure) rather
  // than a displacement: held at 0 at fluid nodes, a pressure-release surface.
  static constexpr int pressure = 7;
  std::vector<Index> nodes;
  int component = 0;
  double value = 0.0;
  std::string amplitude;  // empty: constant
  std::string origin;     // "file:line" it came from, for messages
};

// Concentrated force on one component at each node of a set.
struct NodalLoad {
  std::vector<Index> nodes;
  int component = 0;
  double magnitude = 0.0;
  std::string amplitude;
  std::string origin;
};

// Nodal time histories to record.
struct HistoryOutput {
  std::string name;  // node set name, or a generated one
  std::vector<Index> nodes;
  std::vector<std::string> variables;  // "U", "V", "A"
  int every_n_steps = 1;
  double every_time = 0.0;  // > 0 when the input gave a time interval rather than a step count
};

struct ExplicitStep {
  std::string name;
  double duration = 0.0;
  double fixed_increment = 0.0;  // > 0 when the input asked for a fixed time increment
};

struct Model {
  std::string source;  // the file it was read from
  // The mesh file a model file named ([mesh] file); empty when the mesh is the source's own (an
  // .inp, a .msh) or generated. mesh_source() is what messages about elements name.
  std::string mesh_file;
  const std::string& mesh_source() const { return mesh_file.empty() ? source : mesh_file; }
  // The files it was read from besides `source` (a model file's mesh, signal, depth-map and block
  // files, as resolved against its folder), so that no output is written over one of them.
  std::vector<std::string> inputs;
  std::string title;
  Mesh mesh;
  std::vector<Material> materials;
  std::vector<Section> sections;
  std::vector<Amplitude> amplitudes;
  std::vector<FixedDof> fixed;
  std::vector<NodalLoad> loads;
  std::vector<HistoryOutput> histories;
  std::optional<ExplicitStep> explicit_step;
  // From the model file (model/source.hpp).
  std::vector<PointSource> point_sources;
  std::vector<SurfaceLoad> surface_loads;  // also from Abaqus *DSLOAD and *DLOAD Pn
  std::vector<BodyForce> body_forces;      // also from Abaqus *DLOAD GRAV, BX, BY, BZ
  std::vector<PrescribedDisplacement> prescribed;
  std::vector<Receiver> receivers;
  std::vector<Transducer> transducers;  // already added as point sources or surface loads
  std::vector<Shot> shots;              // none: one run with every load (model/transducer.hpp)
  // Arrays (model/array.hpp), already added as transducers, surface loads, a receiver and shots.
  std::vector<TransducerArray> arrays;
  std::optional<ExplicitSettings> explicit_settings;
  // The model file's [static], or an Abaqus *STEP with *STATIC (model/source.hpp).
  std::optional<StaticSettings> static_settings;
  std::optional<OutputSettings> output;  // the model file's [output] (model/output.hpp)
  // Absorbing boundary layers (model/absorbing.hpp).
  std::vector<AbsorbingLayer> absorbing;
  // Thickness-loss defects, applied to the mesh (mesh/defect.hpp), and what each did there.
  std::vector<Defect> defects;
  std::vector<DefectEffect> defect_effects;
  // Holes and notches, cut from the mesh (mesh/holes.hpp), and what each removed.
  std::vector<Hole> holes;
  // Cracks, cut into the mesh after the holes (mesh/cracks.hpp), and what each split.
  std::vector<Crack> cracks;

  const Material& material(std::string_view name) const;
  // Whether a section's material is a fluid (model/material.hpp).
  bool has_fluids() const;
  // Throws tremor::Error naming the first fluid section where `what` (a solver, an operator) takes
  // solids only; nothing without fluids.
  void refuse_fluids(std::string_view what) const;
  // Per global element: the index of its section, or -1 where none applies.
  std::vector<int> element_sections() const;
  // Cross-checks sets, materials and sections; every element must have exactly one section.
  void validate() const;
};

}  // namespace tremor
