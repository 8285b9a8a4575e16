// Result<T>: a value or a std::error_code, shaped like C++23 std::expected so that moving to it
// is a rename. Pure code returns this instead of throwing across module boundaries.
#pragma once

#include <system_error>
#include <utility>
#include <variant>

namespace gridftp {

struct Unexpected {
  std::error_code error;
};

inline Unexpected make_error(std::error_code ec) { return Unexpected{ec}; }

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : storage_(std::in_place_index<0>, std::move(value)) {}      // NOLINT: implicit
  Result(Unexpected error) : storage_(std::in_place_index<1>, error.error) {}  // NOLINT: implicit

  bool has_value() const { return storage_.index() == 0; }
  explicit operator bool() const { return has_value(); }
  T& value() & { return std::get<0>(storage_); }
  const T& value() const& { return std::get<0>(storage_); }
  T&& value() && { return std::get<0>(std::move(storage_)); }
  T& operator*() & { return value(); }
  const T& operator*() const& { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  std::error_code error() const { return has_value() ? std::error_code{} : std::get<1>(storage_); }

 private:
  std::variant<T, std::error_code> storage_;
};

template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Unexpected error) : error_(error.error) {}  // NOLINT: implicit
  bool has_value() const { return !error_; }
  explicit operator bool() const { return has_value(); }
  std::error_code error() const { return error_; }

 private:
  std::error_code error_;
};

}  // namespace gridftp
