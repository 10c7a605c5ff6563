// The Abaqus reader's keyword table (abaqus_keywords.hpp).
#include "tremor/io/abaqus_reader.hpp"

namespace tremor::io::abaqus {

namespace {

constexpr std::string_view parts_refused =
    ": parts and assemblies are not supported; write the input without them (Abaqus/CAE: Model attributes, "
    "'Do not use parts and assemblies in input files')";
constexpr std::string_view generators_refused =
    " is not supported: it generates or transforms mesh data; write the nodes and elements out explicitly";
constexpr std::string_view result_file_request =
    "a result-file request; in a *STATIC step the warning says the static solver writes its own result file";

}  // namespace

std::span<const Keyword> keywords() {
  using R = Reader;
  static constexpr Keyword table[] = {
      {.name = "INCLUDE", .display = "*INCLUDE", .use = Use::Read, .why = "followed by the line source"},
      {.name = "HEADING", .display = "*HEADING", .use = Use::Read, .place = Place::Model, .read = &R::heading},
      {.name = "NODE", .display = "*NODE", .use = Use::Read, .place = Place::Model, .read = &R::node},
      {.name = "ELEMENT", .display = "*ELEMENT", .use = Use::Read, .place = Place::Model, .read = &R::element},
      {.name = "NSET", .display = "*NSET", .use = Use::Read, .place = Place::Model, .read = &R::node_set_keyword},
      {.name = "ELSET", .display = "*ELSET", .use = Use::Read, .place = Place::Model, .read = &R::element_set_keyword},
      {.name = "MATERIAL", .display = "*MATERIAL", .use = Use::Read, .place = Place::Model, .read = &R::material},
      {.name = "ELASTIC",
       .display = "*ELASTIC",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::elastic},
      {.name = "DENSITY",
       .display = "*DENSITY",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::density},
      {.name = "ACOUSTICMEDIUM",
       .display = "*ACOUSTIC MEDIUM",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::acoustic_medium},
      {.name = "DAMPING",
       .display = "*DAMPING",
       .use = Use::Read,
       .place = Place::Model,
       .material_option = true,
       .read = &R::damping},
      {.name = "DISTRIBUTIONTABLE",
       .display = "*DISTRIBUTION TABLE",
       .use = Use::Read,
       .place = Place::Model,
       .read = &R::distribution_table},
      {.name = "DISTRIBUTION",
       .display = "*DISTRIBUTION",
       .use = Use::Read,
       .place = Place::Model,
       .read = &R::distribution},
      {.name = "SOLIDSECTION",
       .display = "*SOLID SECTION",
       .use = Use::Read,
       .place = Place::Model,
       .read = &R::solid_section},
      {.name = "BOUNDARY", .display = "*BOUNDARY", .use = Use::Read, .read = &R::boundary},
      {.name = "AMPLITUDE", .display = "*AMPLITUDE", .use = Use::Read, .read = &R::amplitude},
      {.name = "SURFACE", .display = "*SURFACE", .use = Use::Read, .place = Place::Model, .read = &R::surface},
      {.name = "CLOAD", .display = "*CLOAD", .use = Use::Read, .place = Place::Step, .read = &R::cload},
      {.name = "DSLOAD", .display = "*DSLOAD", .use = Use::Read, .place = Place::Step, .read = &R::dsload},
      {.name = "DLOAD", .display = "*DLOAD", .use = Use::Read, .place = Place::Step, .read = &R::dload},
      {.name = "STEP", .display = "*STEP", .use = Use::Read, .read = &R::step},
      {.name = "ENDSTEP", .display = "*END STEP", .use = Use::Read, .place = Place::Step, .read = &R::end_step},
      {.name = "DYNAMIC", .display = "*DYNAMIC", .use = Use::Read, .place = Place::Step, .read = &R::dynamic},
      {.name = "STATIC", .display = "*STATIC", .use = Use::Read, .place = Place::Step, .read = &R::static_procedure},
      {.name = "OUTPUT", .display = "*OUTPUT", .use = Use::Read, .place = Place::Step, .read = &R::output},
      {.name = "NODEOUTPUT",
       .display = "*NODE OUTPUT",
       .use = Use::Read,
       .place = Place::Step,
       .read = &R::node_output},
      {.name = "NODEPRINT", .display = "*NODE PRINT", .use = Use::Read, .place = Place::Step, .read = &R::node_output},
      // Requests for result files that tremor's own result file stands for.
      {.name = "ELPRINT",
       .display = "*EL PRINT",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "NODEFILE",
       .display = "*NODE FILE",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "ELFILE",
       .display = "*EL FILE",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      {.name = "ELEMENTOUTPUT",
       .display = "*ELEMENT OUTPUT",
       .use = Use::Ignored,
       .why = result_file_request,
       .read = &R::result_request},
      // Keywords that change the mesh or its numbering: ignoring them would leave a different mesh
      // than the file describes.
      {.name = "PART", .display = "*PART", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDPART", .display = "*END PART", .use = Use::Refused, .why = parts_refused},
      {.name = "ASSEMBLY", .display = "*ASSEMBLY", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDASSEMBLY", .display = "*END ASSEMBLY", .use = Use::Refused, .why = parts_refused},
      {.name = "INSTANCE", .display = "*INSTANCE", .use = Use::Refused, .why = parts_refused},
      {.name = "ENDINSTANCE", .display = "*END INSTANCE", .use = Use::Refused, .why = parts_refused},
      {.name = "NGEN", .display = "*NGEN", .use = Use::Refused, .why = generators_refused},
      {.name = "NFILL", .display = "*NFILL", .use = Use::Refused, .why = generators_refused},
      {.name = "NCOPY", .display = "*NCOPY", .use = Use::Refused, .why = generators_refused},
      {.name = "NMAP", .display = "*NMAP", .use = Use::Refused, .why = generators_refused},
      {.name = "ELGEN", .display = "*ELGEN", .use = Use::Refused, .why = generators_refused},
      {.name = "ELCOPY", .display = "*ELCOPY", .use = Use::Refused, .why = generators_refused},
      {.name = "SYSTEM", .display = "*SYSTEM", .use = Use::Refused, .why = generators_refused},
      {.name = "PARAMETER", .display = "*PARAMETER", .use = Use::Refused, .why = generators_refused},
  };
  return table;
}

const Keyword* find_keyword(std::string_view name) {
  for (const Keyword& keyword : keywords())
    if (keyword.name == name) return &keyword;
  return nullptr;
}

}  // namespace tremor::io::abaqus
