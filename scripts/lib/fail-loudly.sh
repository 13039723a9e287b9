# Sourced by the build, image and check scripts (bash), after their own `set` line:
#   source "$(dirname "${BASH_SOURCE[0]}")/lib/fail-loudly.sh"      (path relative to the script)
# Makes a failure that stops a script under `set -e` say where it happened, never a bare
# `Error 1`: on stderr,
#   <script>: line <N>: FAILED (exit <S>): <command>
# (cut at 300 characters) and, for a pipeline (whose BASH_COMMAND names one of its commands,
# not necessarily the one that failed), its source line and exit statuses; for a failure inside
# a function, the function and its caller.
# errtrace (set -E) makes the ERR trap fire inside functions, subshells and pipeline elements
# too; a failure in a subshell (`( … )`, `… | while …`) is reported there and again by the
# command that ran it, innermost first, and a failing child script is reported by itself and
# by the script that called it. Where errexit is off (after `set +e`, inside a command
# substitution, in `if`/`&&`/`||` conditions) nothing is reported: the script handles the status.
# Sets no other option: each script keeps its own `set -eu[o pipefail]`.
set -o errtrace
fail_loudly_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
fail_loudly() {
  local status="$1" line="$2" command="$3" statuses="$4"
  case $- in *e*) ;; *) return 0 ;; esac
  local file="${BASH_SOURCE[1]:-$0}" source_line="" caller=""
  [ ! -r "$file" ] || source_line="$(sed -n "${line}p" "$file" | sed -E 's/^[[:space:]]+//')"
  file="${file#"$fail_loudly_root"/}"
  # After a function that ended with `return N`, BASH_COMMAND still says `return N`: the line says more.
  case "$command" in return|"return "*) [ -z "$source_line" ] || command="$source_line (returned $status)" ;; esac
  command="${command//$'\n'/ }"
  [ "${#command}" -le 300 ] || command="${command:0:300}…"
  printf '%s: line %s: FAILED (exit %s): %s\n' "$file" "$line" "$status" "$command" >&2
  case "$statuses" in *" "*) printf '  pipeline (exit statuses %s) at: %s\n' "$statuses" "${source_line:0:300}" >&2 ;; esac
  case "${FUNCNAME[1]:-main}" in
    main|source) ;;
    *) caller="${BASH_SOURCE[2]:-$0}"
       printf '  in %s(), called from %s line %s\n' "${FUNCNAME[1]}" "${caller#"$fail_loudly_root"/}" "${BASH_LINENO[1]}" >&2 ;;
  esac
  exit "$status"
}
trap 'fail_loudly "$?" "$LINENO" "$BASH_COMMAND" "${PIPESTATUS[*]}"' ERR
