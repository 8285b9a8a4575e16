#!/usr/bin/env bash
# clang-tidy over the project's own sources with the tree's .clang-tidy; fails (exit 1) on any
# finding. Usage: check_tidy.sh <repo_root> [build_dir]   (build_dir: build/asan by default, whose
# compile_commands.json the CMake presets export).
#
# A file's result is cached under ${GRIDFTP_TIDY_CACHE:-~/.cache/gridftpd-tidy}, keyed by the
# sha256 of its preprocessed text (with the checkout's path taken out, so a fresh clone hits it),
# its compile flags, .clang-tidy and clang-tidy's version: a clean file is not checked again until
# one of those changes. Only clean results are stored. docs/TESTING.md, "Static checks".
set -euo pipefail
root="${1:?usage: check_tidy.sh <repo_root> [build_dir]}"
cd "$root"
root=$PWD
build="${2:-build/asan}"
db="$build/compile_commands.json"
command -v clang-tidy >/dev/null || { echo "check_tidy: clang-tidy is not installed" >&2; exit 2; }
[[ -f "$db" ]] || { echo "check_tidy: no $db (run scripts/build.sh asan first)" >&2; exit 2; }
cache="${GRIDFTP_TIDY_CACHE:-$HOME/.cache/gridftpd-tidy}"
mkdir -p "$cache"
jobs="${GRIDFTP_TIDY_JOBS:-2}"

# What is checked: the five modules' translation units (headers through them). Not tests/: the
# 130 test files are Catch2 macros over the checked code and would triple the cold time.
exclude='^(tests|bench)/'

salt=$( (clang-tidy --version; cat .clang-tidy) | sha256sum | cut -d' ' -f1)

# The build's precompiled headers are GCC's (.gch), which clang cannot read: a copy of the
# compile database without them (each source includes what it uses, so nothing is lost).
filtered=$(mktemp -d)
trap 'rm -rf "$filtered"' EXIT
python3 - "$db" "$filtered/compile_commands.json" <<'PY'
import json, shlex, sys
entries = json.load(open(sys.argv[1]))
for e in entries:
    args = e.get("arguments") or shlex.split(e["command"])
    kept, i = [], 0
    while i < len(args):
        if args[i] == "-include" and i + 1 < len(args) and "cmake_pch" in args[i + 1]:
            i += 2  # CMake's "-include <dir>/cmake_pch.hxx", which finds the .gch beside it
            continue
        if args[i] != "-Winvalid-pch":
            kept.append(args[i])
        i += 1
    e.pop("command", None)
    e["arguments"] = kept
json.dump(entries, open(sys.argv[2], "w"))
PY
db="$filtered/compile_commands.json"
export root db cache salt

# One file: its key, then clang-tidy unless a stamp for that key exists.
check_one() {
  local file=$1 key
  key=$(python3 - "$file" <<'PY'
import hashlib, json, os, shlex, subprocess, sys
root, db, salt = os.environ["root"], os.environ["db"], os.environ["salt"]
path = os.path.join(root, sys.argv[1])
entry = next(e for e in json.load(open(db)) if os.path.realpath(e["file"]) == os.path.realpath(path))
args = entry.get("arguments") or shlex.split(entry["command"])
pre, skip = [], False
for a in args:
    if skip:
        skip = False
        continue
    if a in ("-o", "-c"):
        skip = a == "-o"
        continue
    pre.append(a)
text = subprocess.run(pre + ["-E", "-P"], cwd=entry["directory"], check=True,
                      stdout=subprocess.PIPE, stderr=subprocess.DEVNULL).stdout
h = hashlib.sha256(salt.encode())
h.update(" ".join(pre).replace(root, "@ROOT@").encode())
h.update(text.replace(root.encode(), b"@ROOT@"))
print(h.hexdigest())
PY
)
  [[ -f "$cache/$key" ]] && return 0
  if clang-tidy -p "$db" --quiet \
      --extra-arg=-Wno-unknown-warning-option \
      --extra-arg=-DBOOST_ASIO_HAS_CO_AWAIT --extra-arg=-DBOOST_ASIO_HAS_STD_COROUTINE \
      "$file" > "$cache/$key.out.$$" 2>&1; then
    touch "$cache/$key"
    rm -f "$cache/$key.out.$$"
  else
    grep -E ': (warning|error):' "$cache/$key.out.$$" || cat "$cache/$key.out.$$"
    rm -f "$cache/$key.out.$$"
    return 1
  fi
}
export -f check_one
# The two -D: Boost 1.74's Asio enables co_await for clang only with the Coroutines TS
# (__cpp_coroutines), which clang 14 leaves undefined in C++20; GCC, which builds the tree, needs
# neither.

started=$SECONDS
mapfile -t files < <(git ls-files '*.cpp' | grep -Ev "$exclude" \
  | grep -E '^(protocol|security|transport|server|client)/')
if printf '%s\0' "${files[@]}" | xargs -0 -n 1 -P "$jobs" bash -c 'check_one "$1"' _; then
  echo "check_tidy: ok (${#files[@]} files, $((SECONDS - started))s)"
else
  echo "check_tidy: findings above (.clang-tidy; fix them, or NOLINT(check) with the reason where one is wrong)" >&2
  exit 1
fi
