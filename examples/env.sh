# Source this (`. ./env.sh`) in a copy of examples/ to run the README's examples:
# the tools then take ./agent as pi's agent directory (PI_CODING_AGENT_DIR), and
# this directory as the project whose sessions are those of /home/dev/src/app, as
# if pi had been run here: `pi-ls`, `pi-grep` and session-id prefixes find them.
export PI_CODING_AGENT_DIR="$PWD/agent"
unset PI_CODING_AGENT_SESSION_DIR
# pi's name for this directory's sessions: the path, / and : turned into -, in --...--.
here="agent/sessions/--$(pwd | sed 's|^/||; s|[/\\:]|-|g')--"
if [ -d agent/sessions/--home-dev-src-app-- ] && [ ! -e "$here" ]; then
  mv agent/sessions/--home-dev-src-app-- "$here"
  # the fork names its parent by its path (pi's parentSession)
  for f in "$here"/*.jsonl; do
    sed "1s|\"parentSession\":\"[^\"]*/|\"parentSession\":\"$PWD/$here/|" "$f" > "$f.tmp" && mv "$f.tmp" "$f"
  done
fi
