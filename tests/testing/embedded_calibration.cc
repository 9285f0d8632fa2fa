#include "testing/embedded_calibration.h"

#include <gtest/gtest.h>

#include "io/calibration_csv.h"

namespace gpuplan::testing {

const Calibration& EmbeddedCalibration() {
  static const Calibration* cal = [] {
    Result<Calibration> loaded = io::LoadCalibration();
    EXPECT_TRUE(loaded.ok()) << loaded.status().message();
    return new Calibration(loaded.ok() ? *loaded : Calibration{});
  }();
  return *cal;
}

}  // namespace gpuplan::testing
