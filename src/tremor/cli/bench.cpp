// `tremor bench` and its subcommands `assembly`, `bem`, `exchange` and `fluid`: their options, parsed into the
// arguments of the benchmarks (bench/), which run them; the build's commit goes with them into the
// reports.
#include <CLI/CLI.hpp>

#include <memory>
#include <string>
#include <vector>

#include "tremor/bem/integration.hpp"
#include "tremor/bench/assembly.hpp"
#include "tremor/bench/bem.hpp"
#include "tremor/bench/exchange.hpp"
#include "tremor/bench/fluid.hpp"
#include "tremor/bench/operators.hpp"
#include "tremor/bench/tfm.hpp"
#include "tremor/cli/commands.hpp"
#include "tremor/cli/git_commit.hpp"
#include "tremor/cli/options.hpp"
#include "tremor/core/error.hpp"

namespace tremor::cli {

namespace {

// The options that end `bench assembly` and `bench bem`, in this order: where the report goes (as
// REPORT.json and REPORT.md), how long each case is timed, the copy measurement, the dry run and
// the note.
template <class Args>
void add_report_options(CLI::App* cmd, Args& args, const std::string& report, const std::string& copy_default,
                        const std::string& dry_run) {
  cmd->add_option("--output-dir", args.output_dir,
                  "folder to write " + report + ".json and " + report + ".md to (made when missing)");
  cmd->add_option("--min-seconds", args.min_seconds, "repeat each case until this long (0)")->check(non_negative());
  cmd->add_option("--repeats", args.repeats, "timed runs per case at least (3)")->check(positive());
  cmd->add_option("--copy-mb", args.copy_mb, "array size of the copy-bandwidth measurement, MiB (" + copy_default + ")")
      ->check(whole(1, 65536));
  cmd->add_flag("--dry-run", args.dry_run, dry_run);
  cmd->add_option("--note", args.note, "free text stored in the JSON");
}

// `tremor bench assembly`; returned so that bench's own callback can tell when it ran instead.
CLI::App* add_bench_assembly_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand("assembly", "Time element matrices and the two-kernel assembly of K on every backend");
  auto args = std::make_shared<bench::AssemblyArgs>();
  args->commit = git_commit;
  cmd->add_option("--backend", args->backends,
                  "backends to compare: cuda, openmp, serial (default: cuda when a GPU is present, and openmp)")
      ->delimiter(',')
      ->check(CLI::IsMember(backend_choice_names(false)));
  cmd->add_option("--sizes", args->sizes,
                  "nodes per direction of the structured hex8 grids assembled (default 20,30,40,60,80,101,128,160,200, "
                  "each where it fits)")
      ->delimiter(',');
  cmd->add_option("--element-cells", args->element_cells,
                  "cells per direction of the hex8 element-matrix boxes (default 32,48,64,96, and 150 on a GPU)")
      ->delimiter(',');
  cmd->add_option("--type-cells", args->type_cells,
                  "cells per direction of the tet4, tet10 and hex20 element-matrix boxes (24; 0: none)")
      ->check(non_negative());
  cmd->add_option("--tet4-cells", args->tet4_cells,
                  "cells per direction of the unstructured tet4 mesh assembled, 6 tetrahedra each (55: ~1M; 0: none)")
      ->check(non_negative());
  cmd->add_option("--cpu-max-elements", args->cpu_max_elements,
                  "largest mesh the host backends run, elements (120000)")
      ->check(non_negative());
  cmd->add_option("--precision", args->precision, "value type of the assembled matrices: float, double (double)")
      ->check(CLI::IsMember({"float", "double"}));
  add_report_options(cmd, *args, "assembly", "1024", "print what would run, with sizes and memory, and stop");
  cmd->callback([args] { bench::run_assembly(*args); });
  return cmd;
}

// `tremor bench bem`, likewise.
CLI::App* add_bench_bem_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "bem", "Time the boundary-element H and G assembly and the dense solve on every backend (the BEM paper's sizes)");
  auto args = std::make_shared<bench::BemArgs>();
  args->commit = git_commit;
  cmd->add_option("--backend", args->backends,
                  "backends to compare: serial, openmp, cuda (default: every one present, cuda when a GPU is)")
      ->delimiter(',')
      ->check(CLI::IsMember(backend_choice_names(false)));
  cmd->add_option("--sizes", args->sizes,
                  "elements of the half-space patches (default the paper's 240,960,2160,4000; at most 15,446)")
      ->delimiter(',');
  // bem_layout_names, or both of them.
  auto layout = std::make_shared<std::string>("both");
  std::vector<std::string> layouts = choice_names(bem_layout_names);
  layouts.emplace_back("both");
  cmd->add_option("--layout", *layout, "CUDA pair layouts: block (the paper's), thread, both (both)")
      ->check(CLI::IsMember(layouts));
  cmd->add_option("--large", args->large,
                  "elements of the large sphere case: auto (on a GPU, the most its free memory holds for H, G and the "
                  "solve, at most 15,446; none without a GPU), 0 (none), or N (on every backend of the run)");
  cmd->add_flag("--no-solve", args->no_solve, "time the assembly only");
  cmd->add_option("--hmatrix", args->hmatrix,
                  "instead of the paper's sizes: the compressed solver on the quadratic cavity at these sphere "
                  "divisions (162 D^2 unknowns each), against the dense solver where it fits")
      ->delimiter(',')
      ->check(whole(1, 200));
  cmd->add_option("--tolerance", args->tolerance, "the compressed solver's tolerance with --hmatrix (1e-5)");
  cmd->add_option("--gauss", args->gauss, "Gauss points per direction, regular and singular (8, the paper's)")
      ->check(whole(1, bem::max_gauss));
  cmd->add_option("--max-serial-seconds", args->max_serial_seconds,
                  "skip a serial size whose estimated time (previous size's x (n / n_prev)^2) passes this (120)")
      ->check(non_negative());
  add_report_options(cmd, *args, "bem", "1024 on a GPU, 256 on the host",
                     "print the sizes, memory and what runs where, and stop");
  cmd->callback([args, layout] {
    if (*layout != "both") args->layout = parse_named(*layout, bem_layout_names, "layout");
    bench::run_bem(*args);
  });
  return cmd;
}

// `tremor bench exchange`, under mpirun.
CLI::App* add_bench_exchange_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "exchange", "Time the shared nodes' exchange between processes (run under mpirun): NCCL and MPI, point to "
                  "point and all-reduce, against the number of shared nodes");
  auto args = std::make_shared<bench::ExchangeArgs>();
  args->commit = git_commit;
  cmd->add_option("--sizes", args->sizes,
                  "elements along each side of the GLL plates, order 4 (default 16,32,64,128,256,512)")
      ->delimiter(',')
      ->check(whole(2, 4096));
  cmd->add_option("--precision", args->precision, "value type exchanged: float, double (float)")
      ->check(CLI::IsMember({"float", "double"}));
  cmd->add_option("--repeats", args->repeats, "exchanges timed per case (500)")->check(whole(1, 1000000));
  cmd->add_option("--output-dir", args->output_dir, "folder to write exchange.json and exchange.md to");
  cmd->add_option("--note", args->note, "free text stored in the JSON");
  cmd->callback([args] { bench::run_exchange(*args); });
  return cmd;
}

// `tremor bench fluid`.
CLI::App* add_bench_fluid_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "fluid", "Time a fluid node's step against a solid node's: boxes of steel, of steel under water, of water");
  auto args = std::make_shared<bench::FluidArgs>();
  args->commit = git_commit;
  cmd->add_option("--sizes", args->sizes, "elements along each side of the box, 1 mm each (default 40)")
      ->delimiter(',')
      ->check(whole(2, 1024));
  cmd->add_option("--order", args->order, "GLL order of the hexahedra (4)")->check(whole(1, 8));
  cmd->add_option("--precision", args->precision, "float, double (float)")->check(CLI::IsMember({"float", "double"}));
  cmd->add_option("--backend", args->backend, "auto (the GPU when present), cuda, openmp, serial");
  cmd->add_option("--steps", args->steps, "timed steps of each run (300)")->check(whole(1, 1000000));
  cmd->add_option("--shape", args->shape,
                  "box (parallelepipeds), trilinear (the box sheared by a bilinear map: hexahedra on the trilinear "
                  "map of their vertices, as a hex8 mesh raised to order P) (box)")
      ->check(CLI::IsMember({"box", "trilinear"}));
  cmd->add_option("--output-dir", args->output_dir, "folder to write fluid.json and fluid.md to");
  cmd->add_option("--note", args->note, "free text stored in the JSON");
  cmd->callback([args] { bench::run_fluid(*args); });
  return cmd;
}

// `tremor bench tfm`.
CLI::App* add_bench_tfm_command(CLI::App& parent) {
  auto* cmd = parent.add_subcommand(
      "tfm", "Time the total focusing method on a capture made here: delay tables, and the sum over pairs at every "
             "pixel on each backend (pixel-pairs a second)");
  auto args = std::make_shared<bench::TfmArgs>();
  args->commit = git_commit;
  cmd->add_option("--elements", args->elements, "array elements N (64)")->check(whole(1, 1024));
  cmd->add_option("--samples", args->samples, "samples an A-scan (4000)")->check(whole(16, 1000000));
  cmd->add_option("--pixels", args->pixels, "pixels along each side of the image (256)")->check(whole(2, 8192));
  cmd->add_option("--backend", args->backends, "backends to time the sum on, comma-separated (default: openmp, and "
                                               "cuda when a GPU is usable)")
      ->delimiter(',')
      ->check(CLI::IsMember(backend_choice_names(false)));
  cmd->add_option("--min-seconds", args->min_seconds, "time each sum until this long, at least 3 times (1)")
      ->check(non_negative());
  cmd->add_option("--copy-mb", args->copy_mb, "array size of the copy-bandwidth measurement, MiB (1024)")
      ->check(whole(1, 65536));
  cmd->add_option("--output-dir", args->output_dir, "folder to write tfm.json and tfm.md to");
  cmd->add_option("--note", args->note, "free text stored in the JSON");
  cmd->callback([args] { bench::run_tfm(*args); });
  return cmd;
}

}  // namespace

void add_bench_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("bench", "Time the explicit step of every operator and precision on standard problems");
  auto args = std::make_shared<bench::OperatorArgs>();
  args->commit = git_commit;
  cmd->add_option("--problems", args->problems,
                  "tri2d (2D tri3, ~2M DOF), hex8 (plate, ~10M DOF), tet4 (~5M DOF); default: these three, "
                  "none when --model is given; gll1 .. gll8 (plates of GLL hexahedra of order 1 .. 8, ~20M DOF, "
                  "for the sem operator)")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::standard_problems()));
  cmd->add_option("--model", args->models, "model file (.toml, .inp, .msh) to time as a problem (repeatable)")
      ->check(CLI::ExistingFile);
  const CLI::Validator operator_name(
      [](std::string& name) {
        return bench::is_operator(name)
                   ? std::string()
                   : str("'", name, "' is not an operator: expected one of ", bench::operator_names());
      },
      "OPERATOR");
  cmd->add_option("--operators", args->operators,
                  "stiffness operators, partitioned:greedy and partitioned:aligned (= partitioned) included "
                  "(default: every one the backend runs, both partitioners)")
      ->delimiter(',')
      ->check(operator_name);
  cmd->add_option("--precisions", args->precisions, "float, double")->delimiter(',');
  cmd->add_option("--orderings", args->orderings,
                  "node orderings: none (as generated or read), rcm (reverse Cuthill-McKee), block (the aligned "
                  "partitioner's block order); default none,rcm")
      ->delimiter(',')
      ->check(CLI::IsMember(bench::known_orderings()));
  cmd->add_option("--backend", args->backend, "auto (the GPU when present), cuda, openmp, serial")
      ->check(CLI::IsMember(backend_choice_names()));
  cmd->add_option("--scale", args->scale, "problem size relative to the standard one (DOF count), in (0, 4]");
  cmd->add_option("--steps", args->steps, "timed steps per case")->check(positive());
  cmd->add_option("--shots", args->shots,
                  "time each case with one shot and with K shots stepped together (their fields side by side, one "
                  "operator apply for all); reports the aggregate DOF-steps/s of both (default 1: one)")
      ->check(whole(1, 4096));
  cmd->add_option("--warmup", args->warmup, "untimed steps before them")->check(non_negative());
  cmd->add_option("--min-seconds", args->min_seconds, "time more steps (in chunks of --steps) until this long (0)")
      ->check(non_negative());
  cmd->add_option("--copy-mb", args->copy_mb, "array size of the copy-bandwidth measurement, MiB (1024)")
      ->check(whole(1, 65536));
  cmd->add_flag("--dry-run", args->dry_run, "print the problems' sizes (nodes, DOF, non-zeros of K) and stop");
  cmd->add_option("-o,--json", args->json, "JSON file to write");
  cmd->add_option("--markdown", args->markdown, "markdown tables to write");
  cmd->add_option("--note", args->note, "free text stored in the JSON (e.g. what else the machine was doing)");
  const CLI::App* assembly = add_bench_assembly_command(*cmd);
  const CLI::App* bem = add_bench_bem_command(*cmd);
  const CLI::App* exchange = add_bench_exchange_command(*cmd);
  const CLI::App* fluid = add_bench_fluid_command(*cmd);
  const CLI::App* tfm = add_bench_tfm_command(*cmd);
  cmd->callback([args, assembly, bem, exchange, fluid, tfm] {
    if (!assembly->parsed() && !bem->parsed() && !exchange->parsed() && !fluid->parsed() && !tfm->parsed())
      bench::run_operators(*args);
  });
}

}  // namespace tremor::cli
