# `cpack -G DEB` in the build directory: one .deb per install component (cmake/install.cmake):
#   gpuplan             the program, man page, completions and Python module; Depends from
#                       dpkg-shlibdeps (libfmt, libyaml-cpp, libssl, libglpk, libc ...) plus the
#                       python3 the module was built for
#   gpuplan-dev         headers, static libraries and the CMake package config
#   gpuplan-cuda-probe  the on-instance CUDA plugin (only when cuda/ built it); no shlibdeps: the
#                       CUDA runtime comes from NVIDIA's installer, not from a Debian package
# tests/install/deb_test.sh builds them and runs the extracted binary (docs/install.md).
set(CPACK_PACKAGE_NAME gpuplan)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "which Alibaba Cloud GPU instances to rent for a deep-learning job, and why")
set(CPACK_PACKAGE_CONTACT "gpuplan maintainers <maintainers@users.noreply.a-seed-ab394f09.example>")
set(CPACK_PACKAGE_INSTALL_DIRECTORY gpuplan)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_STRIP_FILES ON)  # the program and module without their debug sections
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION science)

set(CPACK_COMPONENTS_ALL gpuplan dev)
set(CPACK_DEBIAN_GPUPLAN_PACKAGE_NAME gpuplan)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME gpuplan-dev)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS
    "libfmt-dev, nlohmann-json3-dev, libyaml-cpp-dev")

find_program(GPUPLAN_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(GPUPLAN_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_GPUPLAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "gpuplan: dpkg-shlibdeps not found (Debian dpkg-dev): the .deb's Depends will "
                 "miss the shared libraries")
endif()
if(GPUPLAN_PYTHON_DEB_DEPENDS)  # python/CMakeLists.txt
  set(CPACK_DEBIAN_GPUPLAN_PACKAGE_DEPENDS ${GPUPLAN_PYTHON_DEB_DEPENDS})
endif()

if(TARGET gpuplan_cuda_probe)
  list(APPEND CPACK_COMPONENTS_ALL cuda_probe)
  set(CPACK_DEBIAN_CUDA_PROBE_PACKAGE_NAME gpuplan-cuda-probe)
  set(CPACK_DEBIAN_CUDA_PROBE_PACKAGE_DEPENDS "gpuplan (= ${PROJECT_VERSION})")
  set(CPACK_DEBIAN_CUDA_PROBE_PACKAGE_SHLIBDEPS OFF)
endif()

include(CPack)
