# What the CLI scenarios (tests/cli/*_scenario.cmake) share: include(${CMAKE_CURRENT_LIST_DIR}/checks.cmake).

# Fails naming the first pattern (a regex) that `all` does not match, and showing `all`.
function(check_output all)
  foreach(pattern IN LISTS ARGN)
    if(NOT all MATCHES "${pattern}")
      message(FATAL_ERROR "output does not match '${pattern}':\n${all}")
    endif()
  endforeach()
endfunction()
