// libFuzzer target: the catalog CSV parser and row readers must never crash on any input.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/catalog_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  // The same bytes as each of the five files, so every row parser sees them.
  auto catalog = gpuplan::io::ParseCatalog({.gpus = text,
                                            .families = text,
                                            .instances = text,
                                            .prices = text,
                                            .architectures = text,
                                            .dir = "fuzz/"});
  if (catalog.ok())
    (void)catalog->Validate();
  return 0;
}
