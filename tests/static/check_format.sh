#!/usr/bin/env bash
# Format check: fails (exit 1, one file per line) when clang-format, run with the tree's one
# .clang-format, would change a tracked C++ file. Usage: check_format.sh <repo_root>
set -euo pipefail
root="${1:?usage: check_format.sh <repo_root>}"
cd "$root"
command -v clang-format >/dev/null || { echo "check_format: clang-format is not installed" >&2; exit 2; }
[[ -f .clang-format ]] || { echo "check_format: no .clang-format at $root" >&2; exit 2; }
unformatted=()
while IFS= read -r -d '' file; do
  clang-format --dry-run --Werror "$file" >/dev/null 2>&1 || unformatted+=("$file")
done < <(git ls-files -z '*.cpp' '*.hpp' '*.h')
if ((${#unformatted[@]} > 0)); then
  printf '%s: not clang-formatted (run clang-format -i)\n' "${unformatted[@]}"
  echo "check_format: ${#unformatted[@]} file(s) differ from .clang-format" >&2
  exit 1
fi
echo "check_format: ok"
