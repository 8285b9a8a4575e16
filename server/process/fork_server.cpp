#include "server/process/fork_server.hpp"

#include <array>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace gridftp::server {

namespace {

constexpr int kForkServerFd = 3;
// The connection, the key pipe and the two shared pages.
constexpr std::size_t kMostHandedDescriptors = 4;

// One request, as it travels: which optional descriptors follow the connection in the
// SCM_RIGHTS array, in SessionHandOff's order.
struct SpawnRequest {
  std::uint64_t number = 0;
  std::uint8_t has_key = 0;
  std::uint8_t has_udpx_pool = 0;
  std::uint8_t has_metrics = 0;
};

std::error_code last_error() { return {errno, std::generic_category()}; }

// The fork server's own name in ps and /proc/PID/comm, so it is told apart from its sessions.
constexpr const char* kForkServerName = "gridftpd-fork";

bool send_report(int fd, const ForkServerReport& report) {
  for (;;) {
    if (::send(fd, &report, sizeof report, MSG_NOSIGNAL) == sizeof report) return true;
    if (errno != EINTR) return false;
  }
}

// Reaps every ended child and reports it; false once the listener is gone.
bool report_ended_sessions(int fd) {
  int status = 0;
  for (pid_t pid = ::waitpid(-1, &status, WNOHANG); pid > 0;
       pid = ::waitpid(-1, &status, WNOHANG)) {
    ForkServerReport report;
    report.kind = ForkServerReport::Kind::Ended;
    report.pid = pid;
    report.value = status;
    if (!send_report(fd, report)) return false;
  }
  return true;
}

// One request and its descriptors (close-on-exec in this process). nullopt at end of file or
// on an error the fork server cannot go on from; a malformed request is answered as Failed.
struct ReceivedRequest {
  SpawnRequest request;
  std::vector<int> fds;
};

std::optional<ReceivedRequest> receive_request(int fd) {
  ReceivedRequest received;
  iovec payload{&received.request, sizeof received.request};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kMostHandedDescriptors)> control{};
  msghdr message{};
  message.msg_iov = &payload;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = control.size();
  ssize_t got = 0;
  do {
    got = ::recvmsg(fd, &message, MSG_CMSG_CLOEXEC);
  } while (got < 0 && errno == EINTR);
  if (got <= 0) return std::nullopt;
  for (cmsghdr* header = CMSG_FIRSTHDR(&message); header != nullptr;
       header = CMSG_NXTHDR(&message, header)) {
    if (header->cmsg_level != SOL_SOCKET || header->cmsg_type != SCM_RIGHTS) continue;
    const std::size_t count = (header->cmsg_len - CMSG_LEN(0)) / sizeof(int);
    for (std::size_t i = 0; i < count; ++i) {
      int handed = -1;
      std::memcpy(&handed, CMSG_DATA(header) + i * sizeof(int), sizeof handed);
      received.fds.push_back(handed);
    }
  }
  if (got != sizeof received.request || (message.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0)
    received.fds.push_back(-1);  // marks it malformed: the count check below fails
  return received;
}

// The hand-off a request describes, or nullopt when its descriptors do not match it.
std::optional<SessionHandOff> hand_off_of(const ReceivedRequest& received) {
  const auto& request = received.request;
  const std::size_t expected = 1u + request.has_key + request.has_udpx_pool + request.has_metrics;
  if (received.fds.size() != expected) return std::nullopt;
  SessionHandOff hand_off;
  std::size_t next = 0;
  hand_off.session_fd = received.fds[next++];
  if (request.has_key) hand_off.key_fd = received.fds[next++];
  if (request.has_udpx_pool) hand_off.pages.udpx_pool = received.fds[next++];
  if (request.has_metrics) hand_off.pages.metrics = received.fds[next++];
  return hand_off;
}

void close_all(const std::vector<int>& fds) {
  for (const int fd : fds)
    if (fd >= 0) ::close(fd);
}

}  // namespace

Result<ForkServerLink> ForkServerLink::start(const std::vector<std::string>& arguments) {
  int ends[2];
  if (::socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, ends) != 0)
    return make_error(last_error());
  std::vector<std::string> command{"/proc/self/exe"};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.emplace_back("--fork-server-fd");
  command.push_back(std::to_string(kForkServerFd));
  const auto child = spawn_self(command, {{ends[1], kForkServerFd}});
  ::close(ends[1]);
  if (!child) {
    ::close(ends[0]);
    return make_error(child.error());
  }
  return ForkServerLink(*child, ends[0]);
}

ForkServerLink::ForkServerLink(ForkServerLink&& other) noexcept : pid_(other.pid_), fd_(other.fd_) {
  other.fd_ = -1;
}

ForkServerLink::~ForkServerLink() {
  if (fd_ >= 0) ::close(fd_);
}

Result<void> ForkServerLink::request(std::uint64_t number, const SessionHandOff& hand_off) {
  SpawnRequest request;
  request.number = number;
  std::vector<int> fds{hand_off.session_fd};
  if (hand_off.key_fd) {
    request.has_key = 1;
    fds.push_back(*hand_off.key_fd);
  }
  if (hand_off.pages.udpx_pool) {
    request.has_udpx_pool = 1;
    fds.push_back(*hand_off.pages.udpx_pool);
  }
  if (hand_off.pages.metrics) {
    request.has_metrics = 1;
    fds.push_back(*hand_off.pages.metrics);
  }
  iovec payload{&request, sizeof request};
  alignas(cmsghdr) std::array<char, CMSG_SPACE(sizeof(int) * kMostHandedDescriptors)> control{};
  msghdr message{};
  message.msg_iov = &payload;
  message.msg_iovlen = 1;
  message.msg_control = control.data();
  message.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
  cmsghdr* header = CMSG_FIRSTHDR(&message);
  header->cmsg_level = SOL_SOCKET;
  header->cmsg_type = SCM_RIGHTS;
  header->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
  std::memcpy(CMSG_DATA(header), fds.data(), sizeof(int) * fds.size());
  for (;;) {
    if (::sendmsg(fd_, &message, MSG_NOSIGNAL) == sizeof request) return {};
    if (errno != EINTR) return make_error(last_error());
  }
}

Result<std::optional<ForkServerReport>> ForkServerLink::receive_report() {
  ForkServerReport report;
  for (;;) {
    const ssize_t got = ::recv(fd_, &report, sizeof report, MSG_DONTWAIT);
    if (got == sizeof report) return std::optional<ForkServerReport>(report);
    if (got == 0) return make_error(std::make_error_code(std::errc::connection_reset));
    if (got > 0) return make_error(std::make_error_code(std::errc::bad_message));
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) return std::optional<ForkServerReport>();
    return make_error(last_error());
  }
}

void ForkServerLink::retire() { ::shutdown(fd_, SHUT_WR); }

std::optional<SessionHandOff> serve_fork_requests(int fd) {
  // SIGCHLD, SIGTERM and SIGINT arrive through a signalfd beside the requests (the listener
  // blocked the last two before starting us); sessions get the mask back. SIGTERM or SIGINT (a
  // service manager stopping every process of the service) ends the fork server.
  sigset_t watched_signals;
  sigemptyset(&watched_signals);
  sigaddset(&watched_signals, SIGCHLD);
  sigaddset(&watched_signals, SIGTERM);
  sigaddset(&watched_signals, SIGINT);
  sigset_t session_mask;
  ::pthread_sigmask(SIG_BLOCK, &watched_signals, &session_mask);
  const int exits = ::signalfd(-1, &watched_signals, SFD_CLOEXEC | SFD_NONBLOCK);
  ::prctl(PR_SET_NAME, kForkServerName, 0, 0, 0);
  for (;;) {
    std::array<pollfd, 2> watched{{{fd, POLLIN, 0}, {exits, POLLIN, 0}}};
    if (::poll(watched.data(), exits >= 0 ? 2 : 1, exits >= 0 ? -1 : 1000) < 0) {
      if (errno == EINTR) continue;
      break;
    }
    bool stop = false;
    if (exits >= 0 && (watched[1].revents & POLLIN) != 0) {
      signalfd_siginfo drained;
      while (::read(exits, &drained, sizeof drained) == sizeof drained)
        stop = stop || drained.ssi_signo != SIGCHLD;
    }
    if (stop) break;
    if (!report_ended_sessions(fd)) break;  // without a signalfd, polled every second
    if ((watched[0].revents & (POLLIN | POLLHUP | POLLERR)) == 0) continue;
    auto received = receive_request(fd);
    if (!received) break;  // retired, or the listener is gone
    const auto hand_off = hand_off_of(*received);
    ForkServerReport report;
    report.request = received->request.number;
    const pid_t child = hand_off ? ::fork() : -1;
    if (child == 0) {
      ::close(fd);
      if (exits >= 0) ::close(exits);
      ::pthread_sigmask(SIG_SETMASK, &session_mask, nullptr);
      return hand_off;
    }
    if (child > 0) {
      report.kind = ForkServerReport::Kind::Spawned;
      report.pid = child;
    } else {
      report.kind = ForkServerReport::Kind::Failed;
      report.value = hand_off ? errno : EBADMSG;
    }
    close_all(received->fds);
    if (!send_report(fd, report)) break;
  }
  // Sessions still running become the listener's (a child subreaper) when this process ends.
  if (exits >= 0) ::close(exits);
  return std::nullopt;
}

}  // namespace gridftp::server
