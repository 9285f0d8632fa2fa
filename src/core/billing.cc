// Parsing and listing billing modes from the one table (include/gpuplan/billing.h).
#include "gpuplan/billing.h"

#include "gpuplan/enum_names.h"

namespace gpuplan {

std::optional<Billing> ParseBilling(std::string_view name, BillingUse use) {
  for (const BillingMode& m : kBillingModes) {
    if (!BillingAllowed(m, use))
      continue;
    if (internal::SameName(m.name, name, NameCase::kIgnore) ||
        (!m.alias.empty() && internal::SameName(m.alias, name, NameCase::kIgnore))) {
      return m.billing;
    }
  }
  return std::nullopt;
}

std::vector<Billing> BillingModes(BillingUse use) {
  std::vector<Billing> out;
  for (const BillingMode& m : kBillingModes) {
    if (BillingAllowed(m, use))
      out.push_back(m.billing);
  }
  return out;
}

std::vector<std::string_view> BillingNames(BillingUse use) {
  std::vector<std::string_view> out;
  for (const BillingMode& m : kBillingModes) {
    if (BillingAllowed(m, use))
      out.push_back(m.name);
  }
  return out;
}

std::string BillingChoices(BillingUse use) {
  std::vector<std::string> items;
  for (const BillingMode& m : kBillingModes) {
    if (!BillingAllowed(m, use))
      continue;
    std::string item(m.name);
    if (!m.alias.empty())
      item += " (or " + std::string(m.alias) + ")";
    items.push_back(std::move(item));
  }
  return JoinChoices(items);
}

}  // namespace gpuplan
