# Shared by the action's scripts (sourced). Plain bash: they run the same on a GitHub runner and
# locally, given the variables GitHub sets (GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, GITHUB_PATH,
# RUNNER_TEMP…); a variable that is unset locally is simply skipped.

# output NAME VALUE: a step output (multi-line safe), into $GITHUB_OUTPUT when set.
output() {
  [[ -n ${GITHUB_OUTPUT:-} ]] || return 0
  if [[ $2 != *$'\n'* ]]; then printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"; return; fi
  local delimiter="samlh_$RANDOM$RANDOM"
  printf '%s<<%s\n%s\n%s\n' "$1" "$delimiter" "$2" "$delimiter" >>"$GITHUB_OUTPUT"
}

# escape TEXT: a workflow command's message (% CR LF encoded, so a message may span lines).
escape() {
  local text="$1"
  text="${text//'%'/'%25'}"; text="${text//$'\r'/'%0D'}"; text="${text//$'\n'/'%0A'}"
  printf '%s' "$text"
}

# annotate LEVEL TITLE MESSAGE: ::error / ::warning / ::notice with a title.
annotate() {
  local title="${2//,/%2C}"; title="${title//:/%3A}"
  printf '::%s title=%s::%s\n' "$1" "$title" "$(escape "$3")"
}

# summary < TEXT: appended to the job summary when there is one.
summary() {
  if [[ -n ${GITHUB_STEP_SUMMARY:-} ]]; then cat >>"$GITHUB_STEP_SUMMARY"; else cat >/dev/null; fi
}

# sudo_if_needed CMD…: root runs it as is (containers), others through sudo.
sudo_if_needed() {
  if [[ $(id -u) -eq 0 ]]; then "$@"; else sudo "$@"; fi
}
