// Loads the catalog from CSV text: the embedded data/*.csv, then a user's overlay directory.
#ifndef GPUPLAN_SRC_IO_CATALOG_LOADER_H_
#define GPUPLAN_SRC_IO_CATALOG_LOADER_H_

#include <string>
#include <string_view>

#include "gpuplan/catalog.h"
#include "gpuplan/status.h"

namespace gpuplan::io {

// The catalog files, each optional in an overlay: gpus.csv, families.csv, instances.csv,
// prices.csv, architectures.csv. Fields are documented in data/SOURCES.md and
// docs/catalog-and-prices.md.
struct CatalogTexts {
  std::string_view gpus, families, instances, prices;
  std::string_view architectures = {};  // one row per compute capability; may be omitted
  // Disk and file system classes (data/storage.csv); embedded only: an overlay keeps them.
  std::string_view storage = {};
  std::string dir;  // prefix for file names in errors, e.g. "data/" or "/home/u/cat/"
};

// Parses the texts into a Catalog (no cross-row validation; call Catalog::Validate()).
// Errors name file:line:column, the field and the expected form.
Result<Catalog> ParseCatalog(const CatalogTexts& texts);

// The embedded catalog with the overlay from `overlay_dir` applied ("" = none). Files missing
// from the overlay are skipped; a directory that does not exist is an error.
Result<Catalog> LoadCatalog(const std::string& overlay_dir);

}  // namespace gpuplan::io

#endif  // GPUPLAN_SRC_IO_CATALOG_LOADER_H_
