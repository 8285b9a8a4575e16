#!/usr/bin/env bash
# Layering check: fails (exit 1, one "file:line: reason: include" per violation) when a module
# includes something its layer may not see, or when a header above security/ names a raw OpenSSL
# type. The rules are docs/ARCHITECTURE.md's "Modules" table.
# Usage: check_layering.sh <repo_root>
set -euo pipefail

root="${1:?usage: check_layering.sh <repo_root>}"
cd "$root"

violations=0

report() {  # file line reason text
  printf '%s:%s: %s: %s\n' "$1" "$2" "$3" "$4"
  violations=$((violations + 1))
}

# Prints the reason a file may not include a target, or nothing if it may.
# $1: file path relative to the root; $2: include target with its <> or "" delimiters.
forbidden_reason() {
  local file="$1" target="$2"
  case "$file" in
    protocol/*)
      # Standard headers are bare lower-case names (<vector>, <cstdint>); anything with a slash
      # or extension (<sys/stat.h>, <boost/...>) is a third-party or OS header.
      # <immintrin.h> is the compiler's SIMD intrinsics, pure computation (the AVX2 Adler-32).
      if [[ "$target" == \<* ]] && ! [[ "$target" =~ ^\<[a-z_0-9]+\>$ ]] &&
         [[ "$target" != "<immintrin.h>" ]]; then
        echo "protocol/ may include only the standard library"; return
      fi
      if [[ "$target" == \"* && "$target" != \"protocol/* ]]; then
        echo "protocol/ may include only protocol/ headers"; return
      fi
      ;;
    security/*)
      case "$target" in
        \<boost/* | \<spdlog/* | \<fmt/*)
          echo "security/ may not use Boost or logging (it links only protocol and OpenSSL)"
          return ;;
        \"transport/* | \"server/* | \"client/*)
          echo "security/ may include only protocol/ and security/ headers"; return ;;
      esac
      ;;
    transport/*)
      case "$target" in
        \"server/* | \"client/*)
          echo "transport/ sits below server/ and client/"; return ;;
      esac
      ;;
    server/*)
      [[ "$target" == \"client/* ]] && { echo "server/ and client/ never include each other"; return; }
      ;;
    client/*)
      [[ "$target" == \"server/* ]] && { echo "server/ and client/ never include each other"; return; }
      ;;
  esac
  if [[ "$target" == \<boost/asio* && "$file" != transport/asio.hpp ]]; then
    echo "Boost.Asio is included only by transport/asio.hpp"; return
  fi
  if [[ "$target" == \<openssl/* && "$file" != security/* && "$file" != tests/* ]]; then
    echo "OpenSSL appears only in security/ (and tests/)"; return
  fi
  if [[ "$target" == \<toml* && "$file" != */config/* && "$file" != config/* ]]; then
    echo "toml++ appears only in */config/"; return
  fi
  if [[ "$target" == [\<\"]CLI/* && "${file##*/}" != main.cpp ]]; then
    echo "CLI11 appears only in main.cpp"; return
  fi
}

dirs=()
for dir in protocol security transport server client tests bench; do
  [[ -d "$dir" ]] && dirs+=("$dir")
done
[[ ${#dirs[@]} -eq 0 ]] && { echo "check_layering: no module folders under $root" >&2; exit 2; }

include_pattern='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"]'
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
  target="$(sed -E 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*([<"][^>"]*[>"]).*/\1/' <<<"$text")"
  reason="$(forbidden_reason "$file" "$target")"
  [[ -n "$reason" ]] && report "$file" "$line" "$reason" "$target"
done < <(find "${dirs[@]}" -type d \( -name 'build*' -o -name '.*' \) -prune -o -type f \
           \( -name '*.hpp' -o -name '*.h' -o -name '*.cpp' -o -name '*.cc' -o -name '*.in' \) \
           -print0 | sort -z | xargs -0 -r grep -nHE "$include_pattern" || true)

# Raw OpenSSL types stay inside security/: a header above it that names SSL_CTX*, X509_STORE*,
# SSL*, X509*, BIO* or EVP_*/X509_* pointers hands out an object nobody owns by type. Headers
# above security/ hold security::*Ptr owners (security/openssl_ptr.hpp) or security/ classes.
openssl_type_pattern='\b(SSL|SSL_CTX|SSL_SESSION|BIO|X509|X509_[A-Z_]+|EVP_[A-Z_]+)[[:space:]]*\*'
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  report "$file" "${rest%%:*}" "raw OpenSSL type in a header above security/" \
    "$(grep -oE "$openssl_type_pattern" <<<"${rest#*:}" | head -n 1)"
done < <(find transport server client -type d \( -name 'build*' -o -name '.*' \) -prune -o \
           -type f \( -name '*.hpp' -o -name '*.h' \) -print0 2>/dev/null | sort -z |
           xargs -0 -r grep -nHE "$openssl_type_pattern" | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' || true)

if [[ $violations -gt 0 ]]; then
  echo "check_layering: $violations violation(s)" >&2
  exit 1
fi
echo "check_layering: ok"
