#include "transport/error_conversion.hpp"

#include <string>

#include "protocol/core/errors.hpp"

namespace gridftp::transport {
namespace {

class TransportCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.transport"; }
  std::string message(int value) const override {
    switch (static_cast<TransportErrc>(value)) {
      case TransportErrc::PeerClosed:
        return "connection closed by peer";
      case TransportErrc::TimedOut:
        return "connection timed out";
      case TransportErrc::HandshakeFailed:
        return "security handshake on the connection failed";
      case TransportErrc::EndOfStream:
        return "end of stream";
    }
    return "unknown transport error";
  }
  // Each is a failed data connection (425); a transfer already under way turns it into 426.
  std::error_condition default_error_condition(int value) const noexcept override {
    switch (static_cast<TransportErrc>(value)) {
      case TransportErrc::PeerClosed:
      case TransportErrc::TimedOut:
      case TransportErrc::HandshakeFailed:
      case TransportErrc::EndOfStream:
        return Condition::DataConnection;
    }
    return Condition::LocalError;
  }
};

// Asio's misc/netdb/addrinfo values are not errno values; keep their own text.
class AsioCategory final : public std::error_category {
 public:
  explicit AsioCategory(const boost::system::error_category& inner) : inner_(inner) {}
  const char* name() const noexcept override { return inner_.name(); }
  std::string message(int value) const override { return inner_.message(value); }
  std::error_condition default_error_condition(int) const noexcept override {
    return Condition::DataConnection;
  }

 private:
  const boost::system::error_category& inner_;
};

}  // namespace

const std::error_category& transport_category() {
  static const TransportCategory category;
  return category;
}

std::error_code make_error_code(TransportErrc e) {
  return {static_cast<int>(e), transport_category()};
}

std::error_code to_error_code(const boost::system::error_code& ec) {
  if (!ec) return {};
  if (ec == asio::error::eof) return make_error_code(TransportErrc::PeerClosed);
  if (ec == asio::error::operation_aborted)
    return std::make_error_code(std::errc::operation_canceled);
  if (ec.category() == boost::system::system_category() ||
      ec.category() == boost::system::generic_category()) {
    return {ec.value(), std::generic_category()};
  }
  if (ec.category() == asio::error::get_netdb_category() ||
      ec.category() == asio::error::get_addrinfo_category()) {
    return std::make_error_code(std::errc::host_unreachable);
  }
  static const AsioCategory misc(asio::error::get_misc_category());
  if (ec.category() == asio::error::get_misc_category()) return {ec.value(), misc};
  return std::make_error_code(std::errc::io_error);
}

}  // namespace gridftp::transport
