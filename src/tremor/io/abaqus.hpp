#pragma once
// Abaqus / CalculiX .inp reader.
//
// Reads flat decks (no *PART / *ASSEMBLY) with one *STEP of one procedure, *DYNAMIC, EXPLICIT or
// *STATIC (Model::static_settings). The keywords it reads, those it lists in its warning and those
// it refuses are one table (abaqus_keywords.hpp), which docs/readers.md follows keyword by keyword;
// the element types it reads are element_kinds (abaqus_mesh.cpp). *DSLOAD and *DLOAD face pressures
// become SurfaceLoads, *DLOAD GRAV and BX, BY, BZ BodyForces, and the history requests of an
// explicit step HistoryOutputs. Face numbers are Abaqus's (mesh/faces.hpp).
// Node and element labels are the file's ids. Names of sets, materials, amplitudes and the step
// are compared case-insensitively, as Abaqus does, and stored upper-cased ("Set-1" -> "SET-1").
// Nodes and elements must be defined before the sets and elements that use them. 2D element types
// give a 2D mesh; the CPE/CPS letter of the elements in a section's set picks its formulation.
// *DYNAMIC, EXPLICIT sets ExplicitStep::fixed_increment from the increment given with DIRECT USER
// CONTROL (Abaqus) or DIRECT (CalculiX), or with FIXED TIME INCREMENTATION when one is given;
// otherwise it is 0 (the solver's stable increment). Named boundary types (ENCASTRE, PINNED,
// XSYMM, ...) fix the translations they include. Degrees of freedom a solid lacks (rotations, and
// z in 2D), unsupported keywords, parameters and output variables are listed with counts and first
// lines in one warning at the end; keywords that would change the mesh (*PART, *NGEN, *SYSTEM,
// ...) are errors.
#include <string>
#include <string_view>

#include "tremor/model/model.hpp"

namespace tremor::io {

// Reads the model in `path`, following *INCLUDE relative to the including file. Keywords it does
// not support are listed in one warning (tremor::log::warn), never dropped silently. Errors name
// the file, the line and what was expected.
Model read_abaqus(const std::string& path);
// The mesh and sets of `path` alone, for a model file that takes its mesh from an .inp: materials,
// sections, conditions, loads, outputs and the step are parsed but neither built nor checked, and
// one warning lists them.
Mesh read_abaqus_mesh(const std::string& path);
// The same as read_abaqus from text in memory; `name` stands for the file in messages and *INCLUDE paths are
// resolved against `base_dir` (empty: *INCLUDE is an error).
Model read_abaqus_buffer(std::string_view text, const std::string& name, const std::string& base_dir = "");

}  // namespace tremor::io
