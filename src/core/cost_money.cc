// Money, currencies and dates for the cost model (include/gpuplan/cost.h).
#include <charconv>
#include <cmath>
#include <string>

#include "gpuplan/cost.h"
#include "gpuplan/strings.h"

namespace gpuplan {
namespace {

std::string Fixed(double v, int decimals) {
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::fixed, decimals);
  if (ec != std::errc())
    return "?";
  return std::string(buf, end);
}

Status Mismatch(const char* verb, const Money& a, const Money& b) {
  return Status::InvalidArgument(std::string("cannot ") + verb + " " + a.ToString() + " and " +
                                 b.ToString() +
                                 ": currencies differ (CNY and USD are never mixed)");
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
long DaysFromCivil(int y, int m, int d) {
  y -= m <= 2 ? 1 : 0;
  const int era = (y >= 0 ? y : y - 399) / 400;
  const int yoe = y - era * 400;
  const int doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const int doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return static_cast<long>(era) * 146097 + doe - 719468;
}

std::optional<long> ParseDay(std::string_view s) {
  auto digits = [&](size_t pos, size_t n, int* out) {
    if (pos + n > s.size())
      return false;
    auto [p, ec] = std::from_chars(s.data() + pos, s.data() + pos + n, *out);
    return ec == std::errc() && p == s.data() + pos + n;
  };
  int y = 0, m = 0, d = 1;
  if (s.size() < 7 || s[4] != '-' || !digits(0, 4, &y) || !digits(5, 2, &m))
    return std::nullopt;
  if (s.size() >= 10) {
    if (s[7] != '-' || !digits(8, 2, &d))
      return std::nullopt;
  } else if (s.size() != 7) {
    return std::nullopt;
  }
  if (m < 1 || m > 12 || d < 1 || d > 31)
    return std::nullopt;
  return DaysFromCivil(y, m, d);
}

}  // namespace

Result<Money> Money::Plus(const Money& other) const {
  if (!SameCurrency(other))
    return Mismatch("add", *this, other);
  return Money(amount_ + other.amount_, currency_);
}

Result<Money> Money::Minus(const Money& other) const {
  if (!SameCurrency(other))
    return Mismatch("subtract", *this, other);
  return Money(amount_ - other.amount_, currency_);
}

Result<double> Money::Ratio(const Money& other) const {
  if (!SameCurrency(other))
    return Mismatch("divide", *this, other);
  if (other.amount_ == 0)
    return Status::InvalidArgument("cannot divide by " + other.ToString());
  return amount_ / other.amount_;
}

Result<int> Money::Compare(const Money& other) const {
  if (!SameCurrency(other))
    return Mismatch("compare", *this, other);
  return amount_ < other.amount_ ? -1 : (amount_ > other.amount_ ? 1 : 0);
}

std::string Money::ToString() const {
  return std::string(CurrencyName(currency_)) + " " +
         Fixed(amount_, std::fabs(amount_) < 1 && amount_ != 0 ? 4 : 2);
}

Result<Money> operator+(const Money& a, const Money& b) { return a.Plus(b); }

Result<Money> operator+(const Result<Money>& a, const Money& b) {
  if (!a.ok())
    return a.status();
  return a->Plus(b);
}

Result<Money> operator-(const Money& a, const Money& b) { return a.Minus(b); }

std::optional<int> DaysBetween(std::string_view from, std::string_view to) {
  std::optional<long> a = ParseDay(from), b = ParseDay(to);
  if (!a || !b)
    return std::nullopt;
  return static_cast<int>(*b - *a);
}

}  // namespace gpuplan
