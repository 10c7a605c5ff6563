#pragma once
// A solver's backend as its settings hold it: a name of backend_names (backend/exec.hpp) parsed
// where it enters, std::optional<Backend> with std::nullopt for "auto", resolved when the solver
// makes its Exec. An option that overrides the model's setting (a command line's --backend, a
// program's argument) is a BackendOverride, which tells "not given" from "auto".
#include <optional>
#include <string_view>

#include "tremor/backend/exec.hpp"
#include "tremor/core/choice.hpp"

namespace tremor {

// The backend a setting runs on: its own, or for "auto" (std::nullopt) the one parse_backend
// resolves "auto" to (CUDA when a GPU is usable, else OpenMP).
inline Backend resolve_backend(std::optional<Backend> setting) { return setting ? *setting : parse_backend("auto"); }

// A backend given over a model's own: default-constructed, not given (the model's stands);
// otherwise a setting, "auto" (std::nullopt) included.
class BackendOverride {
 public:
  BackendOverride() = default;
  // Implicit, for `options.backend = Backend::Serial`.
  BackendOverride(Backend backend) : given_(true), setting_(backend) {}
  // Given: `setting`, std::nullopt standing for "auto".
  static BackendOverride of(std::optional<Backend> setting) {
    BackendOverride out;
    out.given_ = true;
    out.setting_ = setting;
    return out;
  }
  // A name of backend_names; anything else throws "unknown backend ..." (the caller adds where).
  static BackendOverride named(std::string_view name) { return of(parse_named(name, backend_names, "backend")); }

  bool given() const { return given_; }
  // The setting a run uses: this one when given, else the model's `setting`.
  std::optional<Backend> over(std::optional<Backend> setting) const { return given_ ? setting_ : setting; }

 private:
  bool given_ = false;
  std::optional<Backend> setting_;
};

}  // namespace tremor
