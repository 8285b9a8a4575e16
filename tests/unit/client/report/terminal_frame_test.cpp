#include "client/report/terminal_frame.hpp"

#include <catch2/catch.hpp>

using gridftp::client::report::erase_frame;
using gridftp::client::report::redraw_frame;

TEST_CASE("erase_frame moves up over the drawn lines and clears below", "[client][report]") {
  CHECK(erase_frame(0).empty());
  CHECK(erase_frame(1) == "\r\x1b[1A\x1b[J");
  CHECK(erase_frame(12) == "\r\x1b[12A\x1b[J");
}

TEST_CASE("redraw_frame erases, then writes each line with a newline", "[client][report]") {
  CHECK(redraw_frame(0, {"a", "bc"}) == "a\nbc\n");
  CHECK(redraw_frame(2, {"x"}) == "\r\x1b[2A\x1b[Jx\n");
  CHECK(redraw_frame(3, {}) == "\r\x1b[3A\x1b[J");
}
