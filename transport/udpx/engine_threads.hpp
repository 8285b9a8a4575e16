// The threads UDPX transfers run on (run_udpx_transfer_on_thread), for the whole process. A
// transfer's thread may outlive the session that started it (the session is destroyed at
// shutdown while the thread notices its stop flag), and what the thread touches last (a post to
// the session's io_context) must happen before that io_context is destroyed: its owner calls
// join_engine_threads() first.
#pragma once

#include <functional>

namespace gridftp::transport::udpx {

// Runs `work` on a new thread that join_engine_threads() waits for.
void start_engine_thread(std::function<void()> work);

// Waits for every engine thread started so far. Their transfers must have been told to stop.
void join_engine_threads();

}  // namespace gridftp::transport::udpx
