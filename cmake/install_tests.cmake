# Tests of what `cmake --install` and `cpack` produce (tests/install/*.sh). Each installs or
# packs this build directory into a fresh temporary directory, so they may run in parallel.
# The Python module's interpreter, when python/ built it (the tests then import it too).
set(gpuplan_test_python "")
if(TARGET gpuplan_python)
  set(gpuplan_test_python ${GPUPLAN_PYTHON_EXECUTABLE})
endif()
set(gpuplan_install_test_env
    "GPUPLAN_TODAY=2026-12-01;XDG_CACHE_HOME=${PROJECT_BINARY_DIR}/install-test-cache")
add_test(NAME install_tree
         COMMAND ${PROJECT_SOURCE_DIR}/tests/install/install_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${gpuplan_test_python})
add_test(NAME install_embed_example
         COMMAND ${PROJECT_SOURCE_DIR}/tests/install/embed_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${CMAKE_MAKE_PROGRAM})
add_test(NAME install_deb
         COMMAND ${PROJECT_SOURCE_DIR}/tests/install/deb_test.sh ${PROJECT_BINARY_DIR}
                 ${PROJECT_SOURCE_DIR} ${gpuplan_test_python})
# One at a time: each installs from the same build tree, and cpack's preinstall step builds in it
# (a clean clone's CI run saw install_tree read a completion file while install_deb ran).
set_tests_properties(install_tree install_embed_example install_deb PROPERTIES
                     ENVIRONMENT "${gpuplan_install_test_env}" TIMEOUT 900
                     RESOURCE_LOCK gpuplan_build_tree_install)
# 77: a tool the test needs is missing (dpkg-deb, a C++ compiler); said on its output.
set_tests_properties(install_deb install_embed_example PROPERTIES SKIP_RETURN_CODE 77)
