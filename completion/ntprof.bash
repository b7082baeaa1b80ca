# bash completion for ntprof, ntprof-collect and ntprof-shell.
# Installed as share/bash-completion/completions/ntprof, with
# ntprof-collect and ntprof-shell as links to it (bash-completion loads a
# command's file by its name); or source it from ~/.bashrc.
#
# Options are listed here by hand; tests/cli.sh checks that they are
# exactly the long options each program's --help names.

_ntprof_commands="probe record report compare plot merge export shell help"
_ntprof_report_opts="-d --detail -a --all -g --group -p --portable -j --json --csv --summary --per-host
	--timeline --no-check --no-cache --strict --min-match --max-lost -h --help"
_ntprof_compare_opts="-l --label -g --group -d --detail -m --min-effect -p --portable -j --json
	--csv --fail-on-change --no-check --no-cache --sql -h --help"
_ntprof_plot_opts="-o --output -l --label -g --group -p --portable --no-check --no-cache --timeline -h
	--help"
_ntprof_merge_opts="-o --output --no-check --no-cache -h --help"
_ntprof_export_opts="-l --label -t --table -o --output -j --jsonl --csv --clickhouse --no-check -h
	--help"
_ntprof_shell_opts="-c -json --json -jsonl --jsonl -csv --csv -header --header -noheader --noheader --sql --portable --no-check --no-cache --label -h --help --version"
_ntprof_probe_opts="-r --role -t --transport --spdk-target --spdk-host --btf -j --json
	-h --help --version"
_ntprof_record_opts="-r --role -t --transport -s --sample -i --interval -d --duration
	-o --output -f --force --spdk-target --spdk-host --btf --ring-kb -q --quiet --wait
	--no-arrivals -h --help --version"

# Set cur and prev from COMP_WORDS, taking --opt=value as --opt value
# (bash splits it at the '=').
_ntprof_words()
{
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	if [[ $cur == = ]]; then
		cur=
	elif [[ $prev == = && COMP_CWORD -ge 2 ]]; then
		prev=${COMP_WORDS[COMP_CWORD - 2]}
	fi
}

# Add the words of $1 that start with $cur.
_ntprof_words_of()
{
	local IFS=$' \t\n'
	COMPREPLY+=($(compgen -W "$1" -- "$cur"))
}

# Add files (and directories) named like $cur; with $1, only files ending
# in one of its extensions ("db ntp").
_ntprof_files()
{
	local exts=($1) ext
	local IFS=$'\n'
	compopt -o filenames 2>/dev/null
	if ((${#exts[@]} == 0)); then
		COMPREPLY+=($(compgen -f -- "$cur"))
		return
	fi
	COMPREPLY+=($(compgen -d -- "$cur"))
	for ext in "${exts[@]}"; do
		COMPREPLY+=($(compgen -f -X "!*.$ext" -- "$cur"))
	done
}

# [options] DB... (ntprof report, ntprof-shell): $1 the options; $2 and
# $3 the option whose argument is free text (-g, -c), left to the user.
_ntprof_db_args()
{
	[[ $prev == "$2" || $prev == "$3" ]] && return
	if [[ $cur == -* ]]; then
		_ntprof_words_of "$1"
	else
		_ntprof_files "db ntp"
	fi
}

# ntprof-collect probe|record [options]: $1 is the command.
_ntprof_collect_args()
{
	case $prev in
	-r | --role) _ntprof_words_of "host target"; return ;;
	-t | --transport) _ntprof_words_of "tcp rdma"; return ;;
	-o | --output) _ntprof_files "db ntp"; return ;;
	--spdk-target | --spdk-host | --btf) _ntprof_files; return ;;
	-s | --sample | -i | --interval | -d | --duration | --ring-kb) return ;;
	esac
	if [[ $1 == probe ]]; then
		_ntprof_words_of "$_ntprof_probe_opts"
	else
		_ntprof_words_of "$_ntprof_record_opts"
	fi
}

# The ntprof command WORD names, by its whole name or a unique prefix, as
# ntprof itself reads it.
_ntprof_command_of()
{
	local c hit=
	for c in $_ntprof_commands; do
		[[ $c == "$1" ]] && { echo "$c"; return; }
		if [[ $c == "$1"* ]]; then
			[[ -n $hit ]] && return
			hit=$c
		fi
	done
	echo "$hit"
}

_ntprof()
{
	local cur prev
	COMPREPLY=()
	_ntprof_words
	if ((COMP_CWORD == 1)); then
		if [[ $cur == -* ]]; then
			_ntprof_words_of "-h --help --version"
		else
			_ntprof_words_of "$_ntprof_commands"
		fi
		return
	fi
	case $(_ntprof_command_of "${COMP_WORDS[1]}") in
	report)
		# a number follows these: left to the user
		[[ $prev == --timeline || $prev == --min-match || $prev == --max-lost ]] && return
		_ntprof_db_args "$_ntprof_report_opts" -g --group ;;
	compare)
		[[ $prev == -l || $prev == --label || $prev == -m || $prev == --min-effect ]] &&
			return
		_ntprof_db_args "$_ntprof_compare_opts" -g --group ;;
	plot)
		case $prev in
		-o | --output) compopt -o dirnames 2>/dev/null; COMPREPLY=($(compgen -d -- "$cur"))
			return ;;
		-l | --label | --timeline) return ;;
		esac
		_ntprof_db_args "$_ntprof_plot_opts" -g --group ;;
	merge) _ntprof_db_args "$_ntprof_merge_opts" ;;
	export)
		case $prev in
		-t | --table) _ntprof_words_of "command recording interval lost"; return ;;
		-o | --output) _ntprof_files; return ;;
		-l | --label | --clickhouse) return ;;
		esac
		_ntprof_db_args "$_ntprof_export_opts" ;;
	shell)
		[[ $prev == --label ]] && return
		_ntprof_db_args "$_ntprof_shell_opts" -c --command ;;
	probe) _ntprof_collect_args probe ;;
	record) _ntprof_collect_args record ;;
	esac
}

_ntprof_collect()
{
	local cur prev sub=record
	COMPREPLY=()
	_ntprof_words
	if ((COMP_CWORD == 1)) && [[ $cur != -* ]]; then
		_ntprof_words_of "probe record"
		return
	fi
	[[ ${COMP_WORDS[1]} == probe ]] && sub=probe
	_ntprof_collect_args $sub
}

_ntprof_shell()
{
	local cur prev
	COMPREPLY=()
	_ntprof_words
	[[ $prev == --label ]] && return
	_ntprof_db_args "$_ntprof_shell_opts" -c --command
}

complete -F _ntprof ntprof
complete -F _ntprof_collect ntprof-collect
complete -F _ntprof_shell ntprof-shell
