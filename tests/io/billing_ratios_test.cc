// Each billing mode's `ratio` names a row of data/price_ratios.csv, where its source lives.
#include <gtest/gtest.h>

#include <string>

#include "gpuplan/billing.h"
#include "io/csv.h"
#include "io/embedded_data.h"

namespace gpuplan::io {
namespace {

TEST(BillingRatiosTest, EveryNamedRatioIsARowWithASource) {
  Result<CsvTable> table =
      CsvTable::Parse(EmbeddedData("price_ratios.csv"), "data/price_ratios.csv");
  ASSERT_TRUE(table.ok()) << table.status().message();
  const int name = table->ColumnIndex("name");
  const int source = table->ColumnIndex("source");
  ASSERT_GE(name, 0);
  ASSERT_GE(source, 0);
  for (const BillingMode& m : kBillingModes) {
    if (m.ratio.empty())
      continue;
    SCOPED_TRACE(std::string(m.ratio));
    bool found = false;
    for (const CsvRow& row : table->rows()) {
      if (row.fields[static_cast<size_t>(name)] != m.ratio)
        continue;
      found = true;
      EXPECT_FALSE(row.fields[static_cast<size_t>(source)].empty());
    }
    EXPECT_TRUE(found) << m.name << " names a ratio that data/price_ratios.csv lacks";
  }
}

}  // namespace
}  // namespace gpuplan::io
