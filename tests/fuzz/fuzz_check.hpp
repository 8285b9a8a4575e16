// What a fuzz target asserts beyond "no crash, no sanitizer report": a property of the parser
// (split invariance, round trip, bounds) that must hold for every input. A broken property aborts,
// which libFuzzer records as a crash and saves the input that caused it.
#pragma once

#include <cstdio>
#include <cstdlib>
#include <string_view>

namespace gridftp::fuzz {

[[noreturn]] inline void property_broken(const char* what, const char* file, int line) {
  std::fprintf(stderr, "%s:%d: property broken: %s\n", file, line, what);
  std::abort();
}

inline std::string_view as_text(const unsigned char* data, std::size_t size) {
  return {reinterpret_cast<const char*>(data), size};
}

}  // namespace gridftp::fuzz

#define FUZZ_CHECK(condition)         \
  ((condition) ? static_cast<void>(0) \
               : ::gridftp::fuzz::property_broken(#condition, __FILE__, __LINE__))
