// The shipped calibration (data/calibration.csv, embedded), loaded once per test binary: the one
// set of fitted values the model has (gpuplan/calibration.h holds none). Core tests use it too,
// though they reach no other embedded data: a test of the model runs the model users run, and
// says which value it changes and why where it changes one.
//
//   Calibration cal = testing::EmbeddedCalibration();
//   cal.eager_launch_us = 0;  // no host launch cost: the GPU time alone
#ifndef GPUPLAN_TESTS_TESTING_EMBEDDED_CALIBRATION_H_
#define GPUPLAN_TESTS_TESTING_EMBEDDED_CALIBRATION_H_

#include "gpuplan/calibration.h"

namespace gpuplan::testing {

// The embedded calibration; a load error fails the test that first asks (and every value is
// then NaN).
const Calibration& EmbeddedCalibration();

}  // namespace gpuplan::testing

#endif  // GPUPLAN_TESTS_TESTING_EMBEDDED_CALIBRATION_H_
