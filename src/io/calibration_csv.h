// Loads the performance model's calibration (data/calibration.csv, embedded): one fitted
// parameter per row with its scope, source and how it was fitted.
#ifndef GPUPLAN_SRC_IO_CALIBRATION_CSV_H_
#define GPUPLAN_SRC_IO_CALIBRATION_CSV_H_

#include <string>
#include <string_view>

#include "gpuplan/calibration.h"
#include "gpuplan/status.h"

namespace gpuplan::io {

// Parses calibration CSV text (columns parameter,scope,value,unit,source,fitted); starts from
// Calibration's defaults and sets every row's parameter. Unknown parameters are errors.
Result<Calibration> ParseCalibration(std::string_view text, const std::string& file);

// The embedded calibration.
Result<Calibration> LoadCalibration();

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CALIBRATION_CSV_H_
