#include "security/key_pool.hpp"

#include <openssl/crypto.h>
#include <openssl/pem.h>
#include <openssl/rsa.h>
#include <sys/resource.h>
#include <unistd.h>

#include "security/openssl_error.hpp"
#include "security/pem.hpp"
#include "security/security_errors.hpp"

namespace gridftp::security {

KeyPool::KeyPool(DelegationKeyType type, int bits, std::size_t depth)
    : type_(type), bits_(bits), depth_(depth) {
  if (depth_ > 0) maker_ = std::thread([this] { refill(); });
}

KeyPool::~KeyPool() {
  {
    const std::lock_guard lock(mutex_);
    stopping_ = true;
  }
  wanted_.notify_all();
  if (maker_.joinable()) maker_.join();
}

EvpPkeyPtr KeyPool::take() {
  EvpPkeyPtr key;
  {
    const std::lock_guard lock(mutex_);
    if (ready_.empty()) return key;
    key = std::move(ready_.front());
    ready_.pop_front();
  }
  wanted_.notify_one();
  return key;
}

void KeyPool::put(EvpPkeyPtr key) {
  if (!key) return;
  const std::lock_guard lock(mutex_);
  ready_.push_back(std::move(key));
}

void KeyPool::refill() {
  // Spare cycles only: a key made while transfers run must not slow them (Linux applies a
  // nice value to the calling thread alone).
  (void)::setpriority(PRIO_PROCESS, static_cast<id_t>(::gettid()), 19);
  std::unique_lock lock(mutex_);
  while (!stopping_) {
    wanted_.wait(lock, [this] { return stopping_ || ready_.size() < depth_; });
    if (stopping_) break;
    lock.unlock();
    EvpPkeyPtr key = make_delegation_key(type_, bits_);
    lock.lock();
    if (key) ready_.push_back(std::move(key));
  }
}

Result<std::string> private_key_pem(EVP_PKEY* key) {
  const BioPtr out(BIO_new(BIO_s_mem()));
  if (!out ||
      PEM_write_bio_PrivateKey(out.get(), key, nullptr, nullptr, 0, nullptr, nullptr) != 1) {
    return make_error(openssl_error());
  }
  char* data = nullptr;
  const long length = BIO_get_mem_data(out.get(), &data);
  return std::string(data, static_cast<std::size_t>(length));
}

void wipe_secret(std::string& text) { OPENSSL_cleanse(text.data(), text.size()); }

void wipe_secret(std::vector<std::uint8_t>& bytes) { OPENSSL_cleanse(bytes.data(), bytes.size()); }

Result<EvpPkeyPtr> parse_private_key_pem(std::string_view pem) {
  auto contents = parse_pem(pem);
  if (!contents) return make_error(contents.error());
  if (!contents->key) return make_error(make_error_code(Errc::MalformedPem));
  return std::move(contents->key);
}

}  // namespace gridftp::security
