// Reading price data from outside: `aliyun` CLI / OpenAPI JSON responses of DescribePrice,
// DescribeSpotPriceHistory, DescribeAvailableResource and DescribeSpotAdvice (the shapes of
// alibaba_reference.md section 4), and data/price_ratios.csv.
//
//   ImportContext ctx;
//   ctx.as_of = "2026-11-30";
//   Result<PriceCache> got = ParseAliyunResponse(text, "spot.json", ctx);
//
// Which API produced a document is recognised from its keys (PriceInfo, SpotPrices,
// AvailableZones, AvailableSpotZones). An API error body ({"Code", "Message"}) is an error.
#ifndef GPUPLAN_SRC_IO_PRICE_IMPORT_H_
#define GPUPLAN_SRC_IO_PRICE_IMPORT_H_

#include <nlohmann/json_fwd.hpp>
#include <string>
#include <string_view>

#include "gpuplan/cost.h"
#include "gpuplan/status.h"
#include "io/price_cache.h"

namespace gpuplan::io {

// What a response does not say about itself.
struct ImportContext {
  std::string as_of;  // "YYYY-MM-DD" stamped on records without their own timestamp
  PriceSource origin = PriceSource::kImport;
  // DescribePrice responses carry no instance type, region or unit: the request's values.
  std::string instance;
  std::string region;
  std::string zone;
  std::string price_unit = "Hour";  // DescribePrice PriceUnit: Hour | Month | Year
  int period = 1;                   // DescribePrice Period (the quote covers `period` units)
  bool spot = false;                // DescribePrice with SpotStrategy (an hourly spot quote)
};

// One response (or a JSON list of responses, e.g. several pages) into cache rows. Errors name
// `file`, the JSON path and the expected form.
Result<PriceCache> ParseAliyunResponse(std::string_view text, const std::string& file,
                                       const ImportContext& ctx);

// The same for an already parsed document (the API client's pages).
Result<PriceCache> ParseAliyunJson(const nlohmann::json& doc, const std::string& file,
                                   const ImportContext& ctx);

// "cn-hangzhou-h" -> "cn-hangzhou", "us-east-1a" -> "us-east-1", "ap-southeast-1c" ->
// "ap-southeast-1". Returns the input when it has no zone suffix.
std::string RegionOfZone(std::string_view zone);

// data/price_ratios.csv (columns name,value,unit,source,as_of,trust,notes); every ratio the
// model uses must be present. Errors name file:line and the field.
Result<cost::PriceRatios> ParsePriceRatios(std::string_view csv_text, const std::string& file);
// The embedded data/price_ratios.csv.
Result<cost::PriceRatios> LoadPriceRatios();

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_PRICE_IMPORT_H_
