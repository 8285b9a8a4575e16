#include "client/transfer/transfer_plan.hpp"

#include <algorithm>
#include <charconv>

#include "client/client_errors.hpp"
#include "protocol/core/decimal.hpp"

namespace gridftp::client {

Result<std::optional<PartialRange>> resolve_range(const RangeRequest& request,
                                                  std::optional<std::uint64_t> size_bytes) {
  if (!request.is_partial()) {
    return std::optional<PartialRange>{};
  }
  const std::uint64_t offset = request.offset.value_or(0);
  if (request.length) {
    return std::optional<PartialRange>{PartialRange{offset, *request.length}};
  }
  if (!size_bytes) {
    return make_error(make_error_code(ClientErrc::UnknownSize));
  }
  const std::uint64_t length = *size_bytes > offset ? *size_bytes - offset : 0;
  return std::optional<PartialRange>{PartialRange{offset, length}};
}

std::string net_stack_argument(const std::optional<UdpxRequest>& udpx) {
  if (!udpx) {
    return "default";
  }
  std::string options;
  const auto add = [&options](std::string_view key, const std::string& value) {
    options += (options.empty() ? "" : ";") + std::string(key) + "=" + value;
  };
  if (udpx->rate_bps) add("rate", std::to_string(*udpx->rate_bps));
  if (udpx->min_bps) add("min", std::to_string(*udpx->min_bps));
  if (udpx->policy) add("policy", *udpx->policy);
  return options.empty() ? "udpx" : "udpx:" + options;
}

std::string retrieve_command(const std::string& path, const std::optional<PartialRange>& range) {
  if (!range) {
    return "RETR " + path;
  }
  return "ERET P " + std::to_string(range->offset) + ' ' + std::to_string(range->length) + ' ' +
         path;
}

std::string store_command(const std::string& path, const std::optional<PartialRange>& range) {
  if (!range) {
    return "STOR " + path;
  }
  return "ESTO A " + std::to_string(range->offset) + ' ' + path;
}

std::optional<std::uint64_t> allocation_bytes(std::optional<std::uint64_t> size_bytes,
                                              const std::optional<PartialRange>& range) {
  if (!range) {
    return size_bytes;
  }
  if (!size_bytes) {
    return range->length;
  }
  // A window that runs past the end of the file carries only the bytes up to the end; a larger
  // ALLO would make the receiver (gridftpd) fail the upload as short.
  const std::uint64_t available = *size_bytes > range->offset ? *size_bytes - range->offset : 0;
  return std::min(range->length, available);
}

std::optional<std::uint32_t> parse_buffer_size(std::string_view text) {
  const auto bytes = parse_scaled_decimal(text, 1024);
  // SO_SNDBUF and SO_RCVBUF take an int.
  constexpr std::uint64_t kLargest = 0x7fffffff;
  if (!bytes || *bytes == 0 || *bytes > kLargest) return std::nullopt;
  return static_cast<std::uint32_t>(*bytes);
}

std::string buffer_size_command(std::uint32_t bytes, bool server_has_sbuf) {
  return (server_has_sbuf ? "SBUF " : "SITE RETRBUFSIZE ") + std::to_string(bytes);
}

std::string parallelism_command(unsigned streams) {
  const auto n = std::to_string(streams);
  return "OPTS RETR Parallelism=" + n + ',' + n + ',' + n + ';';
}

std::optional<std::string> retr_options_command(
    const std::optional<protocol::mode_e::StripeLayout>& layout, std::optional<unsigned> streams) {
  if (!layout) return streams ? std::optional(parallelism_command(*streams)) : std::nullopt;
  std::string command = "OPTS RETR ";
  command += layout->kind == protocol::mode_e::StripeLayout::Kind::Partitioned
                 ? std::string("StripeLayout=Partitioned;")
                 : "StripeLayout=Blocked;BlockSize=" + std::to_string(layout->block_size) + ';';
  if (streams) {
    const auto n = std::to_string(*streams);
    command += "Parallelism=" + n + ',' + n + ',' + n + ';';
  }
  return command;
}

std::string checksum_command(security::DigestAlgorithm algorithm, const std::string& path,
                             const std::optional<PartialRange>& range) {
  const std::string extent =
      range ? std::to_string(range->offset) + ' ' + std::to_string(range->length)
            : std::string("0 -1");
  return "CKSM " + std::string(security::digest_algorithm_name(algorithm)) + ' ' + extent + ' ' +
         path;
}

Result<std::string> parse_checksum_reply(std::string_view text) {
  const auto first = text.find_first_not_of(' ');
  if (first == std::string_view::npos) {
    return make_error(make_error_code(ClientErrc::ChecksumUnavailable));
  }
  text.remove_prefix(first);
  text = text.substr(0, text.find_first_of(" \r\n"));
  std::string hex(text);
  std::transform(hex.begin(), hex.end(), hex.begin(),
                 [](char c) { return (c >= 'A' && c <= 'F') ? static_cast<char>(c + 32) : c; });
  const bool is_hex = std::all_of(hex.begin(), hex.end(), [](char c) {
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
  });
  if (!is_hex) {
    return make_error(make_error_code(ClientErrc::ChecksumUnavailable));
  }
  return hex;
}

}  // namespace gridftp::client
