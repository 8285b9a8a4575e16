#include "server/session/reply_queue.hpp"

#include <catch2/catch.hpp>

namespace gridftp::server {
namespace {

using Batch = std::vector<std::string>;

TEST_CASE("ReplyQueue asks for a writer only while none runs", "[session][control]") {
  ReplyQueue queue;
  CHECK(queue.is_idle());
  CHECK(queue.push("150 a\r\n"));
  CHECK(queue.push("226 b\r\n"));  // the writer may not have started yet: starting twice is safe
  CHECK(queue.try_begin_writing());
  CHECK_FALSE(queue.try_begin_writing());
  CHECK_FALSE(queue.push("112 c\r\n"));
  CHECK_FALSE(queue.is_idle());
}

TEST_CASE("ReplyQueue hands out everything queued, oldest first, in one batch",
          "[session][control]") {
  ReplyQueue queue;
  for (const auto* reply : {"150 a\r\n", "112 b\r\n", "111 c\r\n", "226 d\r\n"})
    (void)queue.push(reply);
  REQUIRE(queue.try_begin_writing());
  Batch batch;
  queue.take_batch(batch);
  CHECK(batch == Batch{"150 a\r\n", "112 b\r\n", "111 c\r\n", "226 d\r\n"});
  CHECK(queue.is_empty());
}

TEST_CASE("Replies queued during a write follow in the next batch", "[session][control]") {
  ReplyQueue queue;
  (void)queue.push("150 a\r\n");
  REQUIRE(queue.try_begin_writing());
  Batch batch;
  queue.take_batch(batch);
  CHECK(batch == Batch{"150 a\r\n"});
  (void)queue.push("226 b\r\n");  // while the 150 is on its way
  (void)queue.push("221 c\r\n");
  queue.take_batch(batch);
  CHECK(batch == Batch{"226 b\r\n", "221 c\r\n"});
  queue.end_writing();
  CHECK(queue.is_idle());
}

TEST_CASE("ReplyQueue drops what is left when a write fails", "[session][control]") {
  ReplyQueue queue;
  (void)queue.push("150 a\r\n");
  (void)queue.push("226 b\r\n");
  REQUIRE(queue.try_begin_writing());
  queue.discard();
  CHECK(queue.is_empty());
  queue.end_writing();
  CHECK(queue.is_idle());
}

TEST_CASE("Closing after the drain needs a writer only when none runs", "[session][control]") {
  ReplyQueue idle;
  CHECK(idle.close_when_drained());
  CHECK(idle.is_closing());

  ReplyQueue busy;
  (void)busy.push("221 bye\r\n");
  REQUIRE(busy.try_begin_writing());
  CHECK_FALSE(busy.close_when_drained());  // the running writer closes when it finishes
  CHECK(busy.is_closing());
}

}  // namespace
}  // namespace gridftp::server
