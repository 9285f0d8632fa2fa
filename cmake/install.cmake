# `cmake --install build --prefix P`: the program and what comes with it, in their FHS places.
# Components: gpuplan (the program, its man page, completions and Python module), cuda_probe (the
# on-instance CUDA plugin, when cuda/ built it) and dev (headers, static libraries and the CMake
# package config: cmake/package_config.cmake). The .deb makes one package of each
# (cmake/deb_package.cmake).
install(TARGETS gpuplan RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR} COMPONENT gpuplan)

# `gpuplan probe` looks for the plugin next to the binary, then in ../lib and ../lib/gpuplan
# (src/agent/cuda_probe.cc): a private library, so lib/gpuplan, not the multiarch libdir.
if(TARGET gpuplan_cuda_probe)
  install(TARGETS gpuplan_cuda_probe LIBRARY DESTINATION lib/gpuplan COMPONENT cuda_probe)
endif()

install(FILES ${gpuplan_man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT gpuplan)
install(FILES ${gpuplan_bash_completion}
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/bash-completion/completions RENAME gpuplan
        COMPONENT gpuplan)
install(FILES ${gpuplan_zsh_completion}
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/zsh/vendor-completions COMPONENT gpuplan)
install(FILES ${gpuplan_fish_completion}
        DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/fish/vendor_completions.d COMPONENT gpuplan)
