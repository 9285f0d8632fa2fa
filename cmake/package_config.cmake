# The CMake package an embedder finds with `find_package(gpuplan)`: gpuplan::core (the planner,
# include/gpuplan) and gpuplan::io (the loaders of the embedded catalog, model zoo, calibration
# and workload YAML, and the JSON and text renderers; headers under include/gpuplan-io/io). See
# examples/embed/ and docs/install.md.
include(CMakePackageConfigHelpers)

set_target_properties(gpuplan_core PROPERTIES EXPORT_NAME core)
set_target_properties(gpuplan_io PROPERTIES EXPORT_NAME io)
install(TARGETS gpuplan_core gpuplan_io EXPORT gpuplanTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR} COMPONENT dev)
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/gpuplan DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
        COMPONENT dev FILES_MATCHING PATTERN "*.h")
install(DIRECTORY ${PROJECT_SOURCE_DIR}/src/io DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/gpuplan-io
        COMPONENT dev FILES_MATCHING PATTERN "*.h")

set(gpuplan_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/gpuplan)
install(EXPORT gpuplanTargets NAMESPACE gpuplan:: DESTINATION ${gpuplan_cmake_dir}
        COMPONENT dev)
configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/gpuplanConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/gpuplanConfig.cmake
                              INSTALL_DESTINATION ${gpuplan_cmake_dir})
write_basic_package_version_file(${PROJECT_BINARY_DIR}/gpuplanConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/gpuplanConfig.cmake
              ${PROJECT_BINARY_DIR}/gpuplanConfigVersion.cmake
        DESTINATION ${gpuplan_cmake_dir} COMPONENT dev)
