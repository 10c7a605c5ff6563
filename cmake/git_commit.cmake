# Writes OUTPUT from TEMPLATE with TREMOR_GIT_COMMIT = the short HEAD commit of SOURCE, "-dirty"
# when tracked files have uncommitted changes, "unknown" outside a git checkout or without GIT.
# configure_file leaves OUTPUT untouched when its contents would not change.
#   cmake -DGIT=git -DSOURCE=dir -DTEMPLATE=in -DOUTPUT=out -P git_commit.cmake
set(TREMOR_GIT_COMMIT "unknown")
if(GIT)
  execute_process(COMMAND ${GIT} rev-parse --short=12 HEAD
                  WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE git_rc OUTPUT_VARIABLE git_head
                  ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
  if(git_rc EQUAL 0 AND git_head)
    set(TREMOR_GIT_COMMIT "${git_head}")
    execute_process(COMMAND ${GIT} status --porcelain --untracked-files=no
                    WORKING_DIRECTORY ${SOURCE} RESULT_VARIABLE git_rc OUTPUT_VARIABLE git_changes
                    ERROR_QUIET OUTPUT_STRIP_TRAILING_WHITESPACE)
    if(git_rc EQUAL 0 AND git_changes)
      string(APPEND TREMOR_GIT_COMMIT "-dirty")
    endif()
  endif()
endif()
configure_file(${TEMPLATE} ${OUTPUT} @ONLY)
