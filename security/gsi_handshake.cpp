#include "security/gsi_handshake.hpp"

#include <array>

#include "protocol/core/errors.hpp"
#include "security/x509_identity.hpp"

namespace gridftp::security {
namespace {

constexpr char kSyncByte = '\0';
constexpr char kDelegateFlag = 'D';
constexpr char kNoDelegationFlag = '0';

class GsiCategory final : public std::error_category {
 public:
  const char* name() const noexcept override { return "gridftp.gsi"; }
  std::string message(int value) const override {
    switch (static_cast<GsiErrc>(value)) {
      case GsiErrc::BadFlag:
        return "GSI delegation flag is neither 'D' nor '0'";
      case GsiErrc::DelegationTooLarge:
        return "GSI delegation message too large";
      case GsiErrc::NoPeerCertificate:
        return "peer presented no certificate";
    }
    return "unknown GSI error";
  }
  std::error_condition default_error_condition(int) const noexcept override {
    return Condition::LoginFailed;
  }
};

// The issuers in a verified chain (which starts with the leaf itself), without owning them.
class IssuerView {
 public:
  IssuerView(STACK_OF(X509) * verified, X509* leaf)
      : stack_(verified != nullptr ? sk_X509_dup(verified) : nullptr) {
    if (stack_ != nullptr && sk_X509_num(stack_) > 0 && sk_X509_value(stack_, 0) == leaf)
      (void)sk_X509_shift(stack_);
  }
  ~IssuerView() { sk_X509_free(stack_); }
  IssuerView(const IssuerView&) = delete;
  IssuerView& operator=(const IssuerView&) = delete;
  STACK_OF(X509) * get() const { return stack_; }

 private:
  STACK_OF(X509) * stack_;
};

}  // namespace

const std::error_category& gsi_category() {
  static const GsiCategory category;
  return category;
}

std::error_code make_error_code(GsiErrc e) { return {static_cast<int>(e), gsi_category()}; }

Result<GsiHandshake> GsiHandshake::create(SSL_CTX* context, Role role, GsiOptions options) {
  auto engine = TlsEngine::create(context, role);
  if (!engine) return make_error(engine.error());
  return GsiHandshake(std::move(*engine), role, options);
}

X509* GsiHandshake::peer_certificate() const { return SSL_get0_peer_certificate(engine_.native()); }

STACK_OF(X509) * GsiHandshake::peer_chain() const {
  return SSL_get_peer_cert_chain(engine_.native());
}

std::optional<Credential> GsiHandshake::take_delegated_credential() {
  return std::exchange(delegated_, std::nullopt);
}

Result<std::string> GsiHandshake::step(std::span<const char> input) {
  if (auto fed = engine_.feed(input); !fed) return make_error(fed.error());
  if (auto moved = advance(); !moved) return make_error(moved.error());
  return engine_.take_output();
}

Result<void> GsiHandshake::write_all(std::span<const char> bytes) {
  while (!bytes.empty()) {
    auto written = engine_.write(bytes);
    if (!written) return make_error(written.error());
    if (*written == 0)
      return make_error(make_error_code(GsiErrc::DelegationTooLarge));  // ring full
    bytes = bytes.subspan(*written);
  }
  return {};
}

Result<void> GsiHandshake::read_available() {
  std::array<char, 4096> chunk{};
  for (;;) {
    auto got = engine_.read(chunk);
    if (!got) return make_error(got.error());
    if (*got == 0) return {};
    received_.insert(received_.end(), chunk.begin(),
                     chunk.begin() + static_cast<std::ptrdiff_t>(*got));
    if (received_.size() > kMaxDelegationMessageBytes)
      return make_error(make_error_code(GsiErrc::DelegationTooLarge));
  }
}

// The flag and sync bytes are single-byte records. Reading only that byte leaves whatever follows
// in the engine's input: under PROT C those are raw data bytes (take_unprocessed_input).
Result<std::optional<char>> GsiHandshake::read_one_byte() {
  char byte = 0;
  auto got = engine_.read({&byte, 1});
  if (!got) return make_error(got.error());
  if (*got == 0) return std::optional<char>{};
  return std::optional<char>{byte};
}

// True once `message` holds one whole DER object taken from the front of what was received.
Result<bool> GsiHandshake::take_der_message(std::vector<unsigned char>& message) {
  auto length = der_object_length(received_);
  if (!length) return make_error(length.error());
  if (!*length) return false;
  message.assign(received_.begin(), received_.begin() + static_cast<std::ptrdiff_t>(**length));
  received_.erase(received_.begin(), received_.begin() + static_cast<std::ptrdiff_t>(**length));
  return true;
}

Result<void> GsiHandshake::on_handshake_done() {
  if (peer_certificate() == nullptr) {
    if (options_.require_peer_certificate)
      return make_error(make_error_code(GsiErrc::NoPeerCertificate));
    state_ = State::Complete;  // plain TLS (FTPS): nobody to identify
    return {};
  }
  // OpenSSL verified the chain during the handshake; the proxy naming rules are ours to check.
  // The verified chain starts with the peer's own certificate; the rules want its issuers.
  const IssuerView issuers(SSL_get0_verified_chain(engine_.native()), peer_certificate());
  if (auto rules = check_proxy_chain_rules(peer_certificate(), issuers.get()); !rules)
    return make_error(rules.error());
  peer_identity_ = identity_of(peer_certificate(), issuers.get());
  if (options_.ssl_compatible) {
    state_ = State::Complete;
    return {};
  }
  if (role_ == Role::Server) {
    // TLS 1.3: the client spoke last, so we owe it a token: the sync byte.
    if (!engine_.has_output()) {
      if (auto ok = write_all({&kSyncByte, 1}); !ok) return ok;
    }
    state_ = State::AwaitFlag;
    return {};
  }
  // Initiator. Our last flight still pending (TLS 1.3) means a sync byte will come back first.
  if (engine_.has_output()) {
    state_ = State::AwaitSync;
    return {};
  }
  return send_flag();
}

Result<void> GsiHandshake::send_flag() {
  const char flag = options_.delegate_from != nullptr ? kDelegateFlag : kNoDelegationFlag;
  if (auto ok = write_all({&flag, 1}); !ok) return ok;
  state_ = flag == kDelegateFlag ? State::AwaitRequest : State::Complete;
  return {};
}

Result<void> GsiHandshake::advance() {
  // Loops because one input may finish several states (a handshake flight plus the flag byte).
  for (;;) {
    switch (state_) {
      case State::Handshake: {
        auto progress = engine_.handshake();
        if (!progress) return make_error(progress.error());
        if (*progress == TlsEngine::Progress::NeedInput) return {};
        if (auto ok = on_handshake_done(); !ok) return ok;
        break;
      }
      case State::AwaitSync: {
        // Exactly one record's byte: on a data channel raw data may follow it in the same read.
        auto sync = read_one_byte();
        if (!sync) return make_error(sync.error());
        if (!*sync) return {};  // its value carries no meaning
        if (auto ok = send_flag(); !ok) return ok;
        break;
      }
      case State::AwaitFlag: {
        auto read = read_one_byte();
        if (!read) return make_error(read.error());
        if (!*read) return {};
        const char flag = **read;
        if (flag == kNoDelegationFlag) {
          state_ = State::Complete;
        } else if (flag == kDelegateFlag && options_.accept_delegation) {
          EVP_PKEY* peer_key = X509_get0_pubkey(peer_certificate());
          KeyPool* pool = options_.delegation_keys;
          auto request =
              make_delegation_request(peer_key, pool != nullptr ? pool->take() : EvpPkeyPtr{},
                                      pool != nullptr ? pool->key_type() : DelegationKeyType::Rsa);
          if (!request) return make_error(request.error());
          const auto* der = reinterpret_cast<const char*>(request->der.data());
          if (auto ok = write_all({der, request->der.size()}); !ok) return ok;
          request_ = std::move(*request);
          state_ = State::AwaitDelegatedCert;
        } else {
          return make_error(make_error_code(GsiErrc::BadFlag));
        }
        break;
      }
      case State::AwaitRequest: {
        if (auto ok = read_available(); !ok) return ok;
        std::vector<unsigned char> request;
        auto whole = take_der_message(request);
        if (!whole) return make_error(whole.error());
        if (!*whole) return {};
        auto proxy =
            sign_delegation_request(*options_.delegate_from, request, options_.limited_delegation);
        if (!proxy) return make_error(proxy.error());
        if (auto ok = write_all({reinterpret_cast<const char*>(proxy->data()), proxy->size()}); !ok)
          return ok;
        state_ = State::Complete;
        break;
      }
      case State::AwaitDelegatedCert: {
        if (auto ok = read_available(); !ok) return ok;
        std::vector<unsigned char> cert;
        auto whole = take_der_message(cert);
        if (!whole) return make_error(whole.error());
        if (!*whole) return {};
        auto credential =
            complete_delegation(std::move(*request_), cert, peer_certificate(), peer_chain());
        request_.reset();
        if (!credential) return make_error(credential.error());
        delegated_ = std::move(*credential);
        state_ = State::Complete;
        break;
      }
      case State::Complete:
        return {};
    }
  }
}

Result<std::string> wrap_record(TlsEngine& engine, std::string_view plain) {
  std::span<const char> rest(plain.data(), plain.size());
  while (!rest.empty()) {
    auto written = engine.write(rest);
    if (!written) return make_error(written.error());
    if (*written == 0) return make_error(make_error_code(TlsErrc::InputOverflow));
    rest = rest.subspan(*written);
  }
  return engine.take_output();
}

Result<std::string> unwrap_records(TlsEngine& engine, std::span<const char> token) {
  if (auto fed = engine.feed(token); !fed) return make_error(fed.error());
  std::string plain;
  std::array<char, 4096> chunk{};
  for (;;) {
    auto got = engine.read(chunk);
    if (!got) return make_error(got.error());
    if (*got == 0) break;
    plain.append(chunk.data(), *got);
  }
  return plain;
}

}  // namespace gridftp::security
