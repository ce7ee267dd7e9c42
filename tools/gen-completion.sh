#!/bin/sh
# tools/gen-completion.sh: bash or zsh completion for servesim, made from the
# commands' --help (so a new command or option completes without an edit
# here); `make install` installs both (tools/install.sh).
#
#   tools/gen-completion.sh BIN bash >servesim.bash
#   tools/gen-completion.sh BIN zsh  >_servesim
set -eu
bin=$1
shell=$2
# The commands: the "commands:" list of `servesim --help`.
cmds=$("$bin" --help | sed -n '/^commands:/,/^$/p' | awk 'NR > 1 && NF { print $1 }' | tr '\n' ' ' | sed 's/ $//')
# A command's options: the --words (and -x) of its usage lines and of the lines that begin with one.
opts() {
    { "$bin" "$1" --help || true; } 2>&1 | grep -E '^ *(usage:|-|\[)' |
        grep -oE '(^|[[ ,])--?[a-zA-Z][a-zA-Z0-9-]*' | sed 's/^[[ ,]*//' |
        awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}
common="--help --max-input-bytes --max-memory"
kinds=$("$bin" plot --help | grep -E '^  [a-z]+ ([A-Z]|\[)' | awk '{ print $1 }' | tr '\n' ' ' | sed 's/ $//')

case $shell in
bash)
    cat <<HEAD
# bash completion for servesim, generated from its --help by tools/gen-completion.sh
# (installed as share/bash-completion/completions/servesim; or: source this file).
_servesim()
{
    local cur=\${COMP_WORDS[COMP_CWORD]} cmd=\${COMP_WORDS[1]} words=
    if [ "\$COMP_CWORD" -eq 1 ]; then
        COMPREPLY=(\$(compgen -W "$cmds --help --version" -- "\$cur"))
        return
    fi
    if [ "\$cmd" = plot ] && [ "\$COMP_CWORD" -eq 2 ]; then
        COMPREPLY=(\$(compgen -W "$kinds" -- "\$cur"))
        return
    fi
    case \$cur in
    -*) ;;
    *) return ;; # a file: the default completion
    esac
    case \$cmd in
HEAD
    for c in $cmds; do
        printf '    %s) words="%s" ;;\n' "$c" "$(opts "$c")"
    done
    cat <<TAIL
    esac
    COMPREPLY=(\$(compgen -W "\$words $common" -- "\$cur"))
}
complete -o bashdefault -o default -F _servesim servesim
TAIL
    ;;
zsh)
    cat <<HEAD
#compdef servesim
# zsh completion for servesim, generated from its --help by tools/gen-completion.sh
# (installed as share/zsh/site-functions/_servesim).
local -a cmds opts
cmds=(${cmds} --help --version)
if (( CURRENT == 2 )); then
    compadd -a cmds
    return
fi
if [[ \$words[2] == plot && CURRENT == 3 ]]; then
    compadd $kinds
    return
fi
if [[ \$PREFIX != -* ]]; then
    _files
    return
fi
case \$words[2] in
HEAD
    for c in $cmds; do
        printf '    %s) opts=(%s) ;;\n' "$c" "$(opts "$c")"
    done
    cat <<TAIL
esac
opts+=($common)
compadd -a opts
TAIL
    ;;
*)
    echo "usage: tools/gen-completion.sh BIN bash|zsh" >&2
    exit 2
    ;;
esac
