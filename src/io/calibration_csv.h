// Loads the performance model's calibration (data/calibration.csv, embedded): one fitted
// parameter per row with its scope, source and how it was fitted.
#ifndef GPUPLAN_SRC_IO_CALIBRATION_CSV_H_
#define GPUPLAN_SRC_IO_CALIBRATION_CSV_H_

#include <string>
#include <string_view>

#include "gpuplan/calibration.h"
#include "gpuplan/status.h"

namespace gpuplan::io {

// Parses calibration CSV text (columns parameter,scope,value,unit,source,fitted) into a
// Calibration whose every value comes from a row: the file is the only source of them. Errors
// (InvalidArgument, naming the row or the parameter): an unknown parameter or scope, a value out
// of its range, a parameter given twice for one scope, and a missing row (each global parameter,
// scope "*", and each efficiency fraction of scope "fallback" but cudnn_attention_fraction
// needs one). Architectures take what their rows leave unset from the fallback row.
Result<Calibration> ParseCalibration(std::string_view text, const std::string& file);

// The embedded calibration.
Result<Calibration> LoadCalibration();

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CALIBRATION_CSV_H_
