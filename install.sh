#!/bin/sh
# Install the tools, their man pages and shell completions under one prefix,
# where `man` finds the pages: PREFIX/bin and PREFIX/share/man/man1 (man-db
# and mandoc add X/share/man to the manual path for each X/bin on PATH);
# completions in PREFIX/share/{bash-completion/completions,zsh/site-functions,
# fish/vendor_completions.d}.
#
#   ./install.sh [--man-only] [PREFIX]
#
# PREFIX: the argument, else $ROOT, else cargo's install root
# ($CARGO_INSTALL_ROOT, else $CARGO_HOME, else ~/.cargo). --man-only installs
# the man pages and completions of tools already in PREFIX/bin, without
# building.
set -eu

man_only=
if [ "${1:-}" = "--man-only" ]; then
    man_only=1
    shift
fi
case "${1:-}" in
-h | --help)
    sed -n '2,13s/^# \{0,1\}//p' "$0"
    exit 0
    ;;
-*)
    echo "install.sh: unknown option $1 (usage: ./install.sh [--man-only] [PREFIX])" >&2
    exit 2
    ;;
esac
prefix=${1:-${ROOT:-${CARGO_INSTALL_ROOT:-${CARGO_HOME:-$HOME/.cargo}}}}
# An absolute prefix: the messages below name it, and cargo resolves a
# relative --root against another directory.
case $prefix in
/*) ;;
*) prefix=$(pwd)/$prefix ;;
esac
cd "$(dirname "$0")"

if [ -z "$man_only" ]; then
    cargo install --locked --path . --root "$prefix"
fi

mandir=$prefix/share/man/man1
mkdir -p "$mandir"
n=0
for page in man/*.1; do
    tool=$(basename "$page" .1)
    # The page the installed binary renders, so page and binary agree.
    "$prefix/bin/$tool" --generate man >"$mandir/$tool.1.tmp"
    mv "$mandir/$tool.1.tmp" "$mandir/$tool.1"
    n=$((n + 1))
done
echo "install.sh: $n man pages in $mandir"

# Completions: each tool prints its own script (COMPLETE=SHELL, see
# docs/conventions.md), which calls the installed binary by its full path.
share=$prefix/share
bashdir=$share/bash-completion/completions
zshdir=$share/zsh/site-functions
fishdir=$share/fish/vendor_completions.d
mkdir -p "$bashdir" "$zshdir" "$fishdir"
for page in man/*.1; do
    tool=$(basename "$page" .1)
    for f in "bash $bashdir/$tool" "zsh $zshdir/_$tool" "fish $fishdir/$tool.fish"; do
        sh=${f%% *}
        out=${f#* }
        COMPLETE=$sh "$prefix/bin/$tool" >"$out.tmp"
        mv "$out.tmp" "$out"
    done
done
echo "install.sh: completions for bash, zsh and fish in $share (bash-completion loads"
echo "    $bashdir when it is under a prefix it searches, as ~/.local/share or"
echo "    /usr/local/share; else add to ~/.bashrc: for f in $bashdir/*; do . \"\$f\"; done;"
echo "    zsh: fpath=($zshdir \$fpath) before compinit; fish reads $fishdir when"
echo "    the prefix is on its data path, else: source $fishdir/*.fish)"

# Does `man` find them? Ask it, as a user's shell will (PATH and MANPATH
# as they are now).
found() {
    command -v man >/dev/null 2>&1 &&
        [ "$(man -w pi-tree 2>/dev/null)" = "$mandir/pi-tree.1" ]
}
on_path=
case ":$PATH:" in
*":$prefix/bin:"*) on_path=1 ;;
esac
if ! command -v man >/dev/null 2>&1; then
    echo "install.sh: no man program here; the pages are in $mandir"
elif found; then
    echo "install.sh: man pi-tree shows the page"
elif [ -z "$on_path" ] && (PATH=$prefix/bin:$PATH found); then
    echo "install.sh: $prefix/bin is not on PATH; add it (and man finds the pages):"
    echo "    export PATH=\"$prefix/bin:\$PATH\""
else
    echo "install.sh: man does not find the pages; add to your shell's profile:"
    echo "    export MANPATH=\"$prefix/share/man:\$MANPATH\""
fi
