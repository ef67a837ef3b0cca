# bash completion for kbackport, installed by `make install` to
# share/bash-completion/completions/kbackport (or: source this file).
#
# Commands and each command's options are read from kbackport's own --help
# texts, so they never drift from the binary; the values of --branch from
# the branches file (--config, else $KBACKPORT_CONFIG, else the nearest
# branches.yaml upward, as kbackport finds it; both YAML styles), of --fix
# from the fixes under backports/ beside it (ids and directories), and of
# an option whose --help shows `--opt a|b` from that list.

# the branch names of branches file $1: its "- name: X" lines and its
# flow-style "- {name: X, ...}" ones
_kbackport_branches() {
	[ -r "$1" ] || return 0
	sed -n -e "s/^[[:space:]]*-[[:space:]]*name:[[:space:]]*//p" \
		-e "s/^[[:space:]]*-[[:space:]]*{[[:space:]]*name:[[:space:]]*\(\"[^\"]*\"\|'[^']*'\|[^,}]*\).*/\1/p" "$1" |
		sed -e "s/[[:space:]]*#.*//" -e "s/[[:space:]]*\$//" -e "s/^\"\(.*\)\"\$/\1/" -e "s/^'\(.*\)'\$/\1/"
}

# the branches file kbackport would read: --config, else $KBACKPORT_CONFIG,
# else the nearest branches.yaml from here upward
_kbackport_config() {
	local dir=$PWD
	[ -n "${KBACKPORT_CONFIG:-}" ] && { printf '%s\n' "$KBACKPORT_CONFIG"; return; }
	while :; do
		[ -f "$dir/branches.yaml" ] && { printf '%s\n' "$dir/branches.yaml"; return; }
		[ "$dir" = / ] || [ -z "$dir" ] && break
		dir=$(dirname -- "$dir")
	done
	printf 'branches.yaml\n'
}

# the fix directories (holding a fix.yaml) under backports/ beside $1
_kbackport_fixes() {
	local dir f
	dir=$(dirname -- "$1")
	for f in "$dir"/backports/*/fix.yaml; do
		[ -e "$f" ] && printf '%s\n' "${f%/fix.yaml}"
	done
	return 0
}

_kbackport() {
	local kb cur prev cmd help config i opts values
	kb=${COMP_WORDS[0]}
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	COMPREPLY=()

	# the options before the command: -C DIR (kbackport's directory then),
	# --color[=WHEN], --no-pager
	local ci=1 cdir=.
	while [ "$ci" -lt "$COMP_CWORD" ]; do
		case ${COMP_WORDS[ci]} in
		-C) cdir=${COMP_WORDS[ci+1]/#\~/$HOME}; ci=$((ci + 2)) ;;
		--color|--color=*|--no-pager) ci=$((ci + 1)) ;;
		*) break ;;
		esac
	done
	if [ "$prev" = -C ]; then
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0
	fi
	if [ "$COMP_CWORD" -eq "$ci" ]; then
		opts=$("$kb" --help 2>/dev/null | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$opts --help --version -C --color --no-pager" -- "$cur"))
		return 0
	fi
	cmd=${COMP_WORDS[ci]}
	if [ "$cmd" = help ] && [ "$COMP_CWORD" -eq $((ci + 1)) ]; then
		opts=$("$kb" --help 2>/dev/null | sed -n '/^commands:$/,/^$/s/^  \([a-z][a-z-]*\) .*/\1/p')
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	# `fix` takes its subcommand first
	if [ "$cmd" = fix ] && [ "$COMP_CWORD" -eq $((ci + 1)) ]; then
		COMPREPLY=($(compgen -W "new" -- "$cur"))
		return 0
	fi
	help=$("$kb" "$cmd" --help 2>/dev/null) || return 0

	config=$(cd "$cdir" 2>/dev/null && _kbackport_config)
	for ((i = ci + 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		-c|--config) config=${COMP_WORDS[i+1]} ;;
		--config=*) config=${COMP_WORDS[i]#--config=} ;;
		esac
	done
	config=${config/#\~/$HOME}
	case $config in /*) ;; *) config=$cdir/$config ;; esac

	case $prev in
	-b|--branch)
		local IFS=$'\n'
		COMPREPLY=($(compgen -W "$(_kbackport_branches "$config")" -- "$cur"))
		return 0 ;;
	-f|--fix)
		local IFS=$'\n'
		if [ "$cmd" = prune ]; then	# a fix id, not a directory
			COMPREPLY=($(compgen -W "$(_kbackport_fixes "$config" | sed 's|.*/||')" -- "$cur"))
		else	# a fix id, a fix directory, or any directory
			COMPREPLY=($({ compgen -W "$(_kbackport_fixes "$config" | sed 's|.*/||')" -- "$cur";
				       compgen -W "$(_kbackport_fixes "$config")" -- "$cur";
				       compgen -d -- "$cur"; } | sort -u))
		fi
		return 0 ;;
	-c|--config|--cases|--fragment|--queue|--from-mbox)
		COMPREPLY=($(compgen -f -- "$cur"))
		return 0 ;;
	-w|--workdir|-r|--reports|--repo|-d|--downloads|-o|--output|--overlay|-m|--merge|--backports)
		COMPREPLY=($(compgen -d -- "$cur"))
		return 0 ;;
	--*)
		# `--opt a|b|c` in the --help text: those values
		values=$(printf '%s\n' "$help" |
			sed -n "s/.*$prev \([a-z][a-z0-9]*\(|[a-z][a-z0-9]*\)\{1,\}\).*/\1/p" | head -1)
		if [ -n "$values" ]; then
			COMPREPLY=($(compgen -W "${values//|/ }" -- "$cur"))
			return 0
		fi ;;
	esac

	if [[ $cur == -* ]]; then
		# the option table: "  -b, --branch NAME ..." or "      --json ..."
		opts=$(printf '%s\n' "$help" |
			sed -n 's/^ \{1,\}\(-[a-zA-Z], \)\{0,1\}\(--[a-z][a-z-]*\).*/\2/p' | sort -u)
		COMPREPLY=($(compgen -W "$opts" -- "$cur"))
		return 0
	fi
	COMPREPLY=($(compgen -f -- "$cur"))
}
complete -F _kbackport kbackport
