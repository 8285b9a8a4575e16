#!/usr/bin/env bash
# Checks packaging/completion/{gridcp,gridftpd}: each script sources cleanly, registers its
# function, and completes partial words and option values; and its static option list matches
# what the built binaries accept, both ways, so a renamed, dropped or new option shows here
# rather than as a completion that leads to an error (or a missing one).
#
# Usage: tests/package/test_completion.sh BUILD_DIR   (e.g. build/release)
# An option counts as accepted by gridcp when `gridcp --help` lists it or
# client/flag_spelling.cpp's table has it with no refusal reason; by gridftpd when
# `gridftpd -help` lists it among its own options or the Globus options it takes with their
# meaning. Exits 1 after printing every failure.
set -euo pipefail

[[ $# -eq 1 ]] || { echo "usage: $0 BUILD_DIR" >&2; exit 2; }
build_dir=$(realpath "$1")  # before the cd, so a path relative to the caller works
cd "$(dirname "$0")/../.."
for program in gridcp gridftpd; do
  [[ -x $build_dir/$program ]] || { echo "FAIL: $build_dir/$program is not an executable" >&2; exit 1; }
done

work=$(mktemp -d /tmp/gridftpd-completion-XXXXXX)
trap 'rm -rf "$work"' EXIT
failures=0
fail() {
  echo "FAIL: $*" >&2
  failures=$((failures + 1))
}

# complete SCRIPT FUNCTION WORD... : the candidates, one a line, that FUNCTION offers for the
# last WORD, run in a fresh bash as the completion machinery would call it.
complete_words() {
  local script=$1 function=$2
  shift 2
  bash -c 'source "$1"; shift; f=$1; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
           "$f"; printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$function" "$@"
}

# expect_has DESCRIPTION WANTED CANDIDATES
expect_has() {
  grep -qxF -- "$2" <<< "$3" || fail "$1: '$2' not offered (got: $(tr '\n' ' ' <<< "$3"))"
}
expect_lacks() {
  ! grep -qxF -- "$2" <<< "$3" || fail "$1: '$2' offered but should not be"
}

touch "$work/file.conf"
mkdir "$work/dir"

echo "== completion scripts source and register"
for program in gridcp gridftpd; do
  registered=$(bash -c 'source "$1" && complete -p "$2"' _ "packaging/completion/$program" "$program") \
    || fail "$program: sourcing the script or registering its completion failed"
  [[ $registered == "complete -F _$program $program" ]] \
    || fail "$program: registered as '$registered', not with -F _$program"
done

echo "== partial words complete"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp -tcp)
expect_has "gridcp -tcp" -tcp-bs "$got"
expect_has "gridcp -tcp" -tcp-buffer-size "$got"
expect_lacks "gridcp -tcp" -p "$got"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp -vb -policy f)
[[ $got == $'fixed\nfair' ]] || fail "gridcp -policy f: got '$got', want fixed and fair"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp --checksum-alg AD)
[[ $got == ADLER32 ]] || fail "gridcp --checksum-alg AD: got '$got'"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp -cred "$work/fi")
expect_has "gridcp -cred PATH" "$work/file.conf" "$got"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp "file://$work/fi")
expect_has "gridcp file://PATH" "file://$work/file.conf" "$got"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp gsi)
[[ $got == gsiftp:// ]] || fail "gridcp gsi: got '$got', want gsiftp://"
got=$(complete_words packaging/completion/gridcp _gridcp gridcp -p "")
[[ -z $got ]] || fail "gridcp -p: offered '$got' for a number"

got=$(complete_words packaging/completion/gridftpd _gridftpd gridftpd -anon)
expect_has "gridftpd -anon" -anonymous-user "$got"
got=$(complete_words packaging/completion/gridftpd _gridftpd gridftpd --check)
[[ $got == --check-config ]] || fail "gridftpd --check: got '$got'"
got=$(complete_words packaging/completion/gridftpd _gridftpd gridftpd -c "$work/")
expect_has "gridftpd -c PATH" "$work/file.conf" "$got"
got=$(complete_words packaging/completion/gridftpd _gridftpd gridftpd -C "$work/")
expect_has "gridftpd -C DIR" "$work/dir" "$got"
expect_lacks "gridftpd -C DIR" "$work/file.conf" "$got"
got=$(complete_words packaging/completion/gridftpd _gridftpd gridftpd --log-module s)
[[ $got == $'stdio\nsyslog' ]] || fail "gridftpd --log-module s: got '$got'"

# Option names the binaries accept, one a line, with their dashes.
echo "== static lists against the binaries"
"$build_dir/gridcp" --help > "$work/gridcp-help.txt" 2>&1 || fail "gridcp --help failed"
{
  # Option lines of the help start with two spaces and a dash: "  -p,--parallel UINT ...".
  grep -E '^  -' "$work/gridcp-help.txt" | awk '{print $1}' | tr ',' '\n'
  # The table's accepted entries (no refusal reason), in the one-dash spelling.
  grep -oE 'FlagSpec\{"[^"]+", (true|false), \{\}\}' client/flag_spelling.cpp \
    | sed -E 's/FlagSpec\{"([^"]+)".*/-\1/'
} | sort -u > "$work/gridcp-accepted.txt"
"$build_dir/gridftpd" -help > "$work/gridftpd-help.txt" 2>&1 || fail "gridftpd -help failed"
# Only the sections before "Accepted, with nothing to do:": ignored and refused options are
# not worth completing. Each option line lists its spellings: "  -port, -p   control port".
sed -n '/^gridftpd options:/,/^Accepted, with nothing to do:/p' "$work/gridftpd-help.txt" \
  | grep -E '^  -' | sed -E 's/^  ((-[A-Za-z0-9-]+)(, -[A-Za-z0-9-]+)*).*/\1/; s/, /\n/g' \
  | sort -u > "$work/gridftpd-accepted.txt"
# Each section's first spelling per line: the long name the completion should offer.
sed -n '/^gridftpd options:/,/^Accepted, with nothing to do:/p' "$work/gridftpd-help.txt" \
  | grep -E '^  -' | awk '{sub(",", "", $1); print $1}' | sort -u > "$work/gridftpd-main.txt"
[[ -s $work/gridcp-accepted.txt && -s $work/gridftpd-accepted.txt ]] \
  || fail "found no accepted options in the binaries' help"

for program in gridcp gridftpd; do
  variable=_${program}_flags
  [[ $program == gridftpd ]] && variable=_gridftpd_options
  bash -c 'source "$1"; printf "%s\n" ${!2}' _ "packaging/completion/$program" "$variable" \
    | sort -u > "$work/$program-completed.txt"
  [[ -s $work/$program-completed.txt ]] || fail "$program: \$$variable is empty"
  while read -r option; do
    grep -qxF -- "$option" "$work/$program-accepted.txt" \
      || fail "$program: the completion offers $option, which $program does not accept"
  done < "$work/$program-completed.txt"
done
# And the other way: nothing accepted is missing from the completion.
while read -r option; do
  grep -qxF -- "$option" "$work/gridcp-completed.txt" \
    || fail "gridcp accepts $option (flag_spelling.cpp), but the completion does not offer it"
done < <(grep -oE 'FlagSpec\{"[^"]+", (true|false), \{\}\}' client/flag_spelling.cpp \
  | sed -E 's/FlagSpec\{"([^"]+)".*/-\1/')
while read -r option; do
  grep -qxF -- "$option" "$work/gridftpd-completed.txt" \
    || fail "gridftpd -help lists $option, but the completion does not offer it"
done < "$work/gridftpd-main.txt"

if ((failures)); then
  echo "$failures failure(s)" >&2
  exit 1
fi
echo "PASS: completion scripts complete and match the binaries' options"
