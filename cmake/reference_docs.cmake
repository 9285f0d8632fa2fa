# The man page and the bash, zsh and fish completions, written at build time by the built binary
# from its own command table (`gpuplan man`, `gpuplan completion SHELL`: src/cli/reference_*.cc),
# so no hand-kept copy can drift from the flags. cmake/install.cmake installs them.
set(gpuplan_reference_dir ${PROJECT_BINARY_DIR}/reference)
set(gpuplan_man_page ${gpuplan_reference_dir}/gpuplan.1)
set(gpuplan_bash_completion ${gpuplan_reference_dir}/gpuplan.bash)
set(gpuplan_zsh_completion ${gpuplan_reference_dir}/_gpuplan)
set(gpuplan_fish_completion ${gpuplan_reference_dir}/gpuplan.fish)
add_custom_command(
  OUTPUT ${gpuplan_man_page} ${gpuplan_bash_completion} ${gpuplan_zsh_completion}
         ${gpuplan_fish_completion}
  COMMAND ${CMAKE_COMMAND} -E make_directory ${gpuplan_reference_dir}
  COMMAND gpuplan man --out ${gpuplan_man_page}
  COMMAND gpuplan completion bash --out ${gpuplan_bash_completion}
  COMMAND gpuplan completion zsh --out ${gpuplan_zsh_completion}
  COMMAND gpuplan completion fish --out ${gpuplan_fish_completion}
  DEPENDS gpuplan
  COMMENT "Generating the man page and shell completions from gpuplan's command table"
  VERBATIM)
add_custom_target(gpuplan_reference ALL
  DEPENDS ${gpuplan_man_page} ${gpuplan_bash_completion} ${gpuplan_zsh_completion}
          ${gpuplan_fish_completion})
