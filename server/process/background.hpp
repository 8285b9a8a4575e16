// -S (Globus's -detach): the server goes to the background once it listens. The fork happens
// early, before any thread or helper process exists: a forked child keeps only the calling
// thread, so threads started before it would be missing in the server that goes on, and waiting
// for them at exit would hang it (daemon(3) after start-up did exactly that). The parent stays in
// the foreground until the child says it is listening, then exits 0; if the child fails first,
// the parent exits 1, so `gridftpd -S` still fails visibly when it cannot serve.
#pragma once

#include "protocol/core/result.hpp"

namespace gridftp::server {

class Background {
 public:
  // In the parent, never returns. In the child (a new session, no controlling terminal), returns
  // the handle for ready(). Errors: errno from pipe/fork.
  static Result<Background> enter();
  Background(Background&& other) noexcept;
  Background& operator=(Background&&) = delete;
  ~Background();
  // The server listens: the parent may exit 0. Standard input, output and error then become
  // /dev/null, as Globus's -S leaves them, so a server log on standard error is off
  // (man globus-gridftp-server, -logfile).
  void ready();

 private:
  explicit Background(int ready_fd) : ready_fd_(ready_fd) {}
  int ready_fd_;
};

}  // namespace gridftp::server
