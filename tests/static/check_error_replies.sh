#!/usr/bin/env bash
# Error-reply check: fails (exit 1, one "file:line: text" per site) when server/ sends a negative
# (4xx/5xx) reply that does not come from the error map, protocol/control/reply_for_error.cpp.
# A site is any server/ line naming a 4xx/5xx constant of protocol/control/reply_codes.hpp,
# holding a reply literal such as "530 " or "421-", or handing a bare 4xx/5xx number to send(),
# Reply{} or make_reply(). Handlers say what went wrong (a Condition, through send_error) and the
# map picks the code, so one condition cannot drift to two codes (docs/ARCHITECTURE.md, "Life of
# a command"). At most 5 sites may stay outside the map, each marked on its line or the line
# above with "error-map exception:" and the reason.
# Usage: check_error_replies.sh <repo_root>
set -euo pipefail

root="${1:?usage: check_error_replies.sh <repo_root>}"
cd "$root"

codes=protocol/control/reply_codes.hpp
max_exceptions=5
marker='error-map exception:'

# The negative reply codes' names, read from the header so a new constant is covered at once.
names="$(sed -nE 's/^[[:space:]]*constexpr int (k[A-Za-z0-9_]+) = [45][0-9][0-9];.*/\1/p' "$codes" |
           paste -sd '|' -)"
if [[ -z "$names" ]]; then
  echo "check_error_replies: no 4xx/5xx constants found in $codes" >&2
  exit 2
fi
[[ -d server ]] || { echo "check_error_replies: no server/ under $root" >&2; exit 2; }

site_pattern="\\b($names)\\b|\"[45][0-9][0-9][ -]|(send|make_reply|Reply[[:space:]]*\\{)[[:space:]]*\\(?[[:space:]]*\\{?[[:space:]]*[45][0-9][0-9]\\b"

violations=0
exceptions=0
while IFS= read -r hit; do
  file="${hit%%:*}"
  rest="${hit#*:}"
  line="${rest%%:*}"
  text="${rest#*:}"
  # Comment lines may quote replies ("500 Command not supported."); they send nothing.
  [[ "$text" =~ ^[[:space:]]*(//|\*|/\*) ]] && continue
  previous=""
  ((line > 1)) && previous="$(sed -n "$((line - 1))p" "$file")"
  if [[ "$text" == *"$marker"* || "$previous" == *"$marker"* ]]; then
    exceptions=$((exceptions + 1))
    continue
  fi
  printf '%s:%s: 4xx/5xx reply outside the error map (use send_error): %s\n' "$file" "$line" \
    "$(sed -E 's/^[[:space:]]+//' <<<"$text")"
  violations=$((violations + 1))
done < <(find server -type f \( -name '*.hpp' -o -name '*.cpp' \) -print0 | sort -z |
           xargs -0 -r grep -nHE "$site_pattern" || true)

status=0
if ((violations > 0)); then
  echo "check_error_replies: $violations reply site(s) outside the error map" >&2
  status=1
fi
if ((exceptions > max_exceptions)); then
  echo "check_error_replies: $exceptions sites marked '$marker', at most $max_exceptions allowed" >&2
  status=1
fi
((status == 0)) && echo "check_error_replies: ok ($exceptions marked exception(s))"
exit "$status"
