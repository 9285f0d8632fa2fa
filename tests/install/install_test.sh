#!/usr/bin/env bash
# `cmake --install BUILD --prefix P` into a fresh temporary P, then: P/bin/gpuplan plans an
# example; the man page and the bash, zsh and fish completions are where their tools look and
# name every subcommand `gpuplan --help` lists; bash completes "pl" to "plan" and "plan --to" to
# "--top"; the CUDA plugin is in lib/gpuplan when it was built; the Python module imports from
# P and answers the issue's question. ctest runs it as `install_tree` (cmake/install_tests.cmake).
# Usage: tests/install/install_test.sh BUILD SOURCE_DIR [PYTHON]
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$2")
python=${3:-}
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
fail() { echo "install_test: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$prefix" >"$prefix/install.log" || {
  cat "$prefix/install.log"; fail "cmake --install"; }
gp=$prefix/bin/gpuplan
[ -x "$gp" ] || fail "no $gp"

out=$("$gp" plan "$src/examples/llm-lora-finetune.yaml" --top 1) || fail "gpuplan plan exited $?"
grep -q "ecs\." <<<"$out" || fail "plan printed no instance: $out"
echo "ok: $gp plan examples/llm-lora-finetune.yaml"

# The subcommands `gpuplan --help` lists (the indented lines under "Subcommands:").
mapfile -t commands < <("$gp" --help | awk '/^Subcommands:/ {on = 1; next} on && /^  [a-z]/ {print $1}')
[ "${#commands[@]}" -ge 10 ] || fail "gpuplan --help lists ${#commands[@]} subcommands"
for c in plan estimate explain campaign; do
  grep -qx "$c" <<< "$(printf '%s\n' "${commands[@]}")" || fail "gpuplan --help does not list $c"
done

man_page=$prefix/share/man/man1/gpuplan.1
bash_file=$prefix/share/bash-completion/completions/gpuplan
zsh_file=$prefix/share/zsh/vendor-completions/_gpuplan
fish_file=$prefix/share/fish/vendor_completions.d/gpuplan.fish
for f in "$man_page" "$bash_file" "$zsh_file" "$fish_file"; do
  [ -s "$f" ] || fail "missing or empty: ${f#"$prefix"/}"
done
for c in "${commands[@]}"; do
  grep -qF ".SS \"gpuplan ${c//-/\\-}\"" "$man_page" || fail "man page has no section for $c"
  grep -q "'$c:" "$zsh_file" || fail "zsh completion lacks $c"
  grep -q "__fish_use_subcommand' -a '$c'" "$fish_file" || fail "fish completion lacks $c"
done
grep -q '^\.TP' "$man_page" || fail "man page lists no flags"
if command -v man >/dev/null; then
  grep -q "gpuplan plan" <<< "$(MANWIDTH=100 man -l "$man_page" 2>/dev/null)" || fail "man -l renders no 'gpuplan plan'"
fi
echo "ok: man page and zsh, fish completions name ${#commands[@]} subcommands"

# bash: complete for real. Each offer list is read whole before grep -q looks at it: under
# pipefail a grep that stops at its first match can kill the writer with SIGPIPE (a flake).
complete_words() {  # WORD... : what bash completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _gpuplan
           printf "%s\n" "${COMPREPLY[@]}"' _ "$bash_file" "$@"
}
grep -qx plan <<< "$(complete_words gpuplan pl)" || fail "bash: 'gpuplan pl<Tab>' does not offer plan"
grep -qx -- --top <<< "$(complete_words gpuplan plan --to)" || fail "bash: 'gpuplan plan --to<Tab>' does not offer --top"
grep -qx gpus <<< "$(complete_words gpuplan catalog "")" || fail "bash: 'gpuplan catalog <Tab>' does not offer gpus"
echo "ok: bash completes plan, --top and catalog gpus"
if command -v zsh >/dev/null; then zsh -n "$zsh_file" || fail "zsh -n $zsh_file"; fi
if command -v fish >/dev/null; then
  fish -n "$fish_file" || fail "fish -n $fish_file"
  fish_offers() { fish -c "source '$fish_file'; complete -C '$1'" | cut -f1; }
  grep -qx plan <<< "$(fish_offers "gpuplan pl")" || fail "fish: 'gpuplan pl<Tab>' does not offer plan"
  grep -qx -- --top <<< "$(fish_offers "gpuplan plan --to")" || fail "fish: 'gpuplan plan --to<Tab>' does not offer --top"
  grep -qx gpus <<< "$(fish_offers "gpuplan catalog ")" || fail "fish: 'gpuplan catalog <Tab>' does not offer gpus"
  echo "ok: fish completes plan, --top and catalog gpus"
fi

if [ -e "$build/libgpuplan_cuda_probe.so" ]; then
  [ -e "$prefix/lib/gpuplan/libgpuplan_cuda_probe.so" ] || fail "CUDA plugin not in lib/gpuplan"
  echo "ok: CUDA probe plugin in lib/gpuplan"
fi

if [ -n "$python" ]; then
  site=$(find "$prefix/lib" -path '*/dist-packages/gpuplan/__init__.py' | head -1)
  [ -n "$site" ] || fail "Python package not installed under lib/python*/dist-packages"
  site=$(dirname "$(dirname "$site")")
  PYTHONPATH=$site "$python" -c "import gpuplan; print(gpuplan.plan(model='qwen2.5-7b', task='finetune', method='lora', tokens='200M'))" \
    >"$prefix/py.out" || fail "python: gpuplan.plan(...) failed"
  grep -q "'candidates'" "$prefix/py.out" || fail "python: no candidates in $(head -c 300 "$prefix/py.out")"
  echo "ok: python3 -c 'import gpuplan; print(gpuplan.plan(...))' from ${site#"$prefix"/}"
fi
echo "install_test: all passed"
