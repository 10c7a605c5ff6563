#include "tremor/explicit/shot_choices.hpp"

#include <algorithm>
#include <limits>
#include <utility>

#include "tremor/backend/memory_info.hpp"
#include "tremor/core/error.hpp"
#include "tremor/core/format.hpp"
#include "tremor/explicit/fluid.hpp"
#include "tremor/explicit/processes.hpp"
#include "tremor/explicit/run_bytes.hpp"
#include "tremor/explicit/subdomain.hpp"

namespace tremor::explicit_fe {

namespace {

// The run continues from a checkpoint, read or not yet.
bool resumes(const RunOptions& options) { return options.resume != nullptr || options.resuming; }

// Why a resumed run must step one shot at a time on the whole model: its checkpoint is within a
// shot, which it holds alone. Empty where it is not.
std::string resumed_within_a_shot(const RunOptions& options) {
  if (!options.resume || options.resume->at_rest) return {};
  return str("the run resumes from a checkpoint within shot ", options.resume->shot + 1,
             " (which holds that shot alone)");
}

}  // namespace

std::string why_one_shot_at_a_time(const Model& model, const RunOptions& options) {
  if (model.shots.size() < 2) return str("the model has ", model.shots.size(), " shot", model.shots.size() == 1 ? "" : "s");
  return resumed_within_a_shot(options);
}

bool fluid_in_columns(const FluidSetup& fluid) {
  const Mesh& mesh = fluid.mesh.model.mesh;
  return std::all_of(mesh.blocks.begin(), mesh.blocks.end(), [](const ElementBlock& block) {
    return block.n_elements() == 0 || (block.type == ElementType::HexGLL && block.order >= 2);
  });
}

std::string applied_one_by_one(const Preflight& p) {
  if (p.pml.any()) return "the PML's term applies them one by one";
  if (!p.attenuation.empty()) return "the memory variables of attenuation make the operator apply them one by one";
  return {};
}

bool choose_shots_parallel(Preflight& p, const Model& whole, const RunOptions& options, std::size_t one_domain,
                           const std::function<std::size_t()>& free_gpu_bytes) {
  const int processes = p.processes;
  const auto n_shots = static_cast<int>(whole.shots.size());
  if (processes <= 1) {
    TREMOR_CHECK(!options.shots_parallel.value_or(false), whole.source, ": whole shots side by side "
                 "(--shots-parallel) need several GPUs (--gpus N) or processes (mpirun -np N)");
    return false;
  }
  const char* members = p.threaded ? "GPUs" : "processes";
  std::string stop;
  if (n_shots < 2)
    stop = str("the model has ", n_shots, " shot", n_shots == 1 ? "" : "s");
  else if (std::string within = resumed_within_a_shot(options); !within.empty())
    stop = std::move(within);
  else if (!options.decomposition.empty())
    stop = str("a decomposition file (", options.decomposition, ") was given");
  if (options.shots_parallel == true) {
    TREMOR_CHECK(stop.empty(), whole.source, ": whole shots side by side over the ", processes, " ", members,
                 " (--shots-parallel) asked for, but ", stop, ": decompose the model instead (--no-shots-parallel)");
    p.shots_parallel_why = "asked for";
    return true;
  }
  const auto gb = [](std::size_t bytes) { return str(static_cast<double>(bytes) / 1e9, " GB"); };
  if (options.shots_parallel == false) {
    p.shots_parallel_why = "asked for (--no-shots-parallel)";
  } else if (!stop.empty()) {
    p.shots_parallel_why = stop;
  } else if (options.checkpoint_every > 0 || resumes(options)) {
    // Side by side, a run checkpoints only between rounds: the interval asked for holds where the
    // model is decomposed (docs/running.md, "Checkpoints and resuming").
    p.shots_parallel_why = "the run writes or resumes from checkpoints, which shots side by side write only between "
                           "rounds (--shots-parallel asks for it)";
  } else if (p.backend != Backend::Cuda) {
    p.shots_parallel_why = str("on ", to_string(p.backend), ", where each process would hold the whole model; ",
                               "--shots-parallel asks for it");
  } else if (const int rounds = (n_shots + processes - 1) / processes; 8 * rounds * processes > 9 * n_shots) {
    p.shots_parallel_why = str(n_shots, " shots over ", processes, " ", members, " would leave some idle; ",
                               "--shots-parallel asks for it");
  } else {
    const std::size_t room =
        p.threaded ? free_gpu_bytes() : memory_info(process_exec(p.backend, options, false)).total_bytes;
    if (one_domain > room / 10 * 8) {
      p.shots_parallel_why = str("the whole model (", gb(one_domain), " estimated) would not fit one GPU (",
                                 gb(room), p.threaded ? " free" : "", ")");
    } else {
      p.shots_parallel_why = str("the whole model (", gb(one_domain), " estimated) fits one GPU (", gb(room),
                                 p.threaded ? " free" : "", "); --no-shots-parallel decomposes it");
      return true;
    }
  }
  return false;
}

std::size_t choose_shots_together(Preflight& p, const Model& model, const RunOptions& options, std::size_t run,
                                  std::size_t real_size, std::size_t state, std::size_t once,
                                  const std::function<std::size_t()>& free_gpu_bytes) {
  TREMOR_CHECK(options.shots_together >= 0, "shots stepped together: ", options.shots_together,
               "; give 0 (chosen by the pre-flight), 1 (one after another) or more");
  const std::string stop = why_one_shot_at_a_time(model, options);
  const auto n_shots = static_cast<int>(model.shots.size());
  const bool fuses = p.op->fuses(model.mesh, p.assembly == sparse::RaceStrategy::Colouring);
  // Per shot stepped beside the first: U_prev, U_curr and K u, and its receivers' buffer; a fluid's
  // chi twice, K_f chi and the pressure; stiffness-proportional damping's velocity (and the product
  // of an operator that does not add).
  const std::size_t fluid_nodes = p.fluid ? static_cast<std::size_t>(p.fluid->mesh.n_nodes()) : 0;
  const std::size_t per_shot = (3 * static_cast<std::size_t>(p.n_dofs) + 4 * fluid_nodes) * real_size +
                               recorder_bytes(model, real_size) + state +
                               (largest_beta(model) > 0.0 ? static_cast<std::size_t>(p.n_dofs) * real_size *
                                                                (p.op->needs_assembly ? 2 : 1)
                                                          : 0);
  // Fields of k shots, and a fluid's element-and-shot pairs, are counted by 32-bit indices.
  const Size per_column = std::max<Size>(
      {p.n_dofs, p.fluid ? static_cast<Size>(p.fluid->mesh.elements.size()) : 0, static_cast<Size>(fluid_nodes), 1});
  const auto most =
      static_cast<int>(std::clamp<Size>(std::numeric_limits<Index>::max() / per_column, 1, Size(1) << 20));
  p.shots_together = 1;
  if (options.shots_together > 1 && n_shots < 2) {
    p.shots_why = stop;
  } else if (options.shots_together > 1) {
    TREMOR_CHECK(stop.empty(), model.source, ": ", options.shots_together, " shots stepped together asked for, but ",
                 stop, ": step them one after another (--shots-together 1)");
    TREMOR_CHECK(std::min(options.shots_together, n_shots) <= most, model.source, ": ", options.shots_together,
                 " shots stepped together of ", per_column, " values each (DOFs, or a fluid's elements) exceed the ",
                 "2^31 - 1 a field's index counts: at most ", most, " at once");
    p.shots_together = std::min(options.shots_together, n_shots);
    const std::string terms = applied_one_by_one(p);
    p.shots_why = str("asked for", fuses ? "" : str("; ", p.op->name, " applies them one by one, reading ",
                                                    "its data for each"),
                      terms.empty() ? "" : str("; ", terms));
  } else if (options.shots_together == 1 && n_shots > 1) {
    p.shots_why = "asked for";
  } else if (options.shots_together == 0 && n_shots > 1) {
    if (!stop.empty()) {
      p.shots_why = stop;
    } else if (options.checkpoint_every > 0 || resumes(options)) {
      // Stepped together, a run checkpoints only between batches: the interval asked for holds
      // where shots are stepped one by one (docs/running.md, "Checkpoints").
      p.shots_why = "the run writes or resumes from checkpoints, which shots stepped together write only between "
                    "batches (--shots-together K asks for it)";
    } else if (p.decomposed()) {
      p.shots_why = "the run is decomposed (--shots-together K steps them together in every subdomain)";
    } else if (p.backend != Backend::Cuda) {
      p.shots_why = str("on ", to_string(p.backend), " (stepped together on a GPU; --shots-together K asks for it)");
    } else if (const std::string one_by_one = applied_one_by_one(p); !one_by_one.empty()) {
      p.shots_why = str(one_by_one, " (--shots-together K asks for it)");
    } else if (p.fluid && !fluid_in_columns(*p.fluid)) {
      // (An immersed capture of GLL hexahedra of order 4, 16 together, ran 2.1 times as fast as one
      // after another on an H100: docs/benchmarks.md, "Shots stepped together with fluids".)
      p.shots_why = "with a fluid not all of hexahedra of GLL order 2 and more, stepping them together is not "
                    "measured faster on a GPU (--shots-together K asks for it)";
    } else if (!fuses) {
      p.shots_why = str(p.op->name, " reads its data once per shot on this mesh (block_ell, block_csr and assembled ",
                        "read it once for all, sem on hexahedra of GLL order 2 and more without --deterministic)");
    } else if (p.op->batch_gains && !p.op->batch_gains(real_size)) {
      p.shots_why = str(p.op->name, " in ", real_size == sizeof(float) ? "float" : "double",
                        " steps shots together no faster than one after another (docs/benchmarks.md, \"Shots stepped ",
                        "together\"); --shots-together K asks for it");
    } else {
      const std::size_t free_bytes = free_gpu_bytes();
      const std::size_t room = free_bytes > run ? (free_bytes - run) * 9 / 10 : 0;
      const auto fit = static_cast<int>(std::min<std::size_t>(room / std::max<std::size_t>(per_shot, 1), 15)) + 1;
      p.shots_together = std::min({16, n_shots, fit, most});
      p.shots_why = p.shots_together == std::min(16, n_shots)
                        ? str("the ", p.op->name, p.op->needs_assembly ? " matrix" : " elements' data",
                              " read once for all of them")
                        : str("as many as the GPU's free memory holds (", static_cast<double>(free_bytes) / 1e9, " GB free)");
    }
  }
  return static_cast<std::size_t>(p.shots_together - 1) * per_shot + (p.shots_together > 1 ? once : 0);
}

void prefer_a_kind_for_shots(Preflight& p, const Model& whole, const Mesh& mesh, const RunOptions& options,
                             bool k_fits, const op::BytesOf& run_bytes,
                             const std::function<std::size_t()>& free_gpu_bytes) {
  if (!p.operator_auto || p.backend != Backend::Cuda ||
      p.op->fuses(mesh, p.assembly == sparse::RaceStrategy::Colouring) || p.op->auto_where_it_takes ||
      whole.shots.size() < 16 || options.shots_together == 1 ||
      (options.shots_together == 0 && (options.checkpoint_every > 0 || resumes(options))) || !k_fits ||
      !applied_one_by_one(p).empty() || p.fluid ||
      !why_one_shot_at_a_time(whole, options).empty())
    return;
  const op::OperatorEntry* batch = operators().find("block_ell");
  if (!batch || !batch->takes(mesh) || run_bytes(*batch) >= free_gpu_bytes() / 2) return;
  p.operator_why = str("the model's ", whole.shots.size(), " shots, stepped together on block_ell, read K once for up "
                       "to 16: measured 2.1x ", p.op->name, "'s speed one after another on the examples/array-tfm-2d "
                       "capture (docs/benchmarks.md)");
  p.op = batch;
}

ShotBytes shot_state_bytes(const Preflight& p, const Model& model, Size nnz, std::size_t real_size,
                           const PmlBytes& pml) {
  ShotBytes out{pml.state, p.pml.any() ? 3 * static_cast<std::size_t>(p.n_dofs) * real_size : 0};
  if (p.fluid && p.fluid->pml.any()) {
    out.state += pml_term_bytes(p.fluid->mesh.model, p.fluid->pml, real_size, 0, PmlField::Fluid).state;
    out.once += 3 * static_cast<std::size_t>(p.fluid->mesh.n_nodes()) * real_size;
  }
  const std::size_t values = memory_per_point(model);
  if (values > 0) {
    const auto loop = [&](std::size_t per_point) {
      return estimate(model.mesh, *p.op, nnz, real_size, p.assembly == sparse::RaceStrategy::Colouring,
                      is_damped(model), p.max_neighbours, p.geometry_values, false, p.backend != Backend::Cuda, {},
                      per_point, {});
    };
    const std::size_t with = loop(values), without = loop(0);
    out.state += with - std::min(with, without);
  }
  if (values > 0 || !p.op->fuses(model.mesh, p.assembly == sparse::RaceStrategy::Colouring))
    out.once += 2 * static_cast<std::size_t>(p.n_dofs) * real_size;
  return out;
}

}  // namespace tremor::explicit_fe
