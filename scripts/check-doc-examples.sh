#!/usr/bin/env bash
# Runs every gpuplan example in README.md and docs/*.md with the built binary and fails, naming
# FILE:LINE, on any example that exits with a code other than the one the docs expect (0 unless
# marked). ctest runs it as `doc_examples` (CMakeLists.txt), so `make test` does too.
# Usage: scripts/check-doc-examples.sh BUILD/gpuplan [SOURCE_DIR]
#
# What is an example:
#   - in a fenced block tagged ```sh: every line that starts with `gpuplan ` or `$ gpuplan `;
#   - in any other fenced block (a transcript: commands after `$ `, then what they print): every
#     line that starts with `$ gpuplan `. Lines there without `$ ` are output, not commands.
#   A line ending in `\` continues on the next line. A trailing `   # comment` is dropped.
#   - every ```python block (docs/python.md), when the Python module was built beside the binary:
#     the blocks of one doc run in order as one script (see "Python examples" below).
# What is not an example but a synopsis: a command with a placeholder, that is one containing `[`,
# `...`, or an all-capitals word of two letters or more (WORKLOAD.yaml, TYPE, FILE.csv). Such
# lines are listed as "synopsis" and counted, never run. A `|` between spaces is a pipe (run with
# pipefail); `a|b` without spaces is an alternative, so it sits inside `[...]` in a synopsis.
# Markers, an HTML comment on the line just before the opening fence, for the whole block:
#   <!-- doc-example: skip (REASON) -->   not run (needs a GPU, the network, a cloud account, a
#                                         server that runs until stopped, a file not in the repo);
#                                         the reason is printed: no silent skips
#   <!-- doc-example: exit N (REASON) --> expected to exit with N (an example of a refusal)
# How each block runs: in a fresh directory holding links to the repository's examples/, tests/
# and data/ (so `--out DIR` writes there, not in the tree), with `gpuplan` on PATH as the built
# binary, GPUPLAN_TODAY=2026-12-01 and a private HOME and XDG cache as scripts/cli-snapshot.sh
# sets them, no GPUPLAN_CATALOG and no cloud credentials. In a transcript, `$ cat FILE` followed
# by lines up to the next `$ ` writes those lines to FILE first, so `$ gpuplan estimate FILE`
# after it reads what the docs show. Each command gets 300 s.
set -uo pipefail
if [ $# -lt 1 ]; then
  echo "usage: $0 BUILD/gpuplan [SOURCE_DIR]" >&2
  exit 2
fi
gp=$(realpath "$1")
root=$(realpath "${2:-$(dirname "$0")/..}")
[ -x "$gp" ] || { echo "$0: $gp: not an executable" >&2; exit 2; }

work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
mkdir -p "$work/bin" "$work/home"
ln -s "$gp" "$work/bin/gpuplan"
export PATH="$work/bin:$PATH" GPUPLAN_TODAY=2026-12-01
export HOME="$work/home" XDG_CACHE_HOME="$work/home/.cache" XDG_CONFIG_HOME="$work/home/.config"
export XDG_DATA_HOME="$work/home/.local/share"
unset GPUPLAN_CATALOG ALIBABA_CLOUD_ACCESS_KEY_ID ALIBABA_CLOUD_ACCESS_KEY_SECRET

cd "$root" || exit 2
docs=(README.md docs/*.md)

# One record per line, fields separated by the ASCII unit separator (\037; a tab would let
# read(1) merge empty fields):
#   C  block  file  line  mode  arg  command     (mode: run | skip | exit | synopsis)
#   F  block  name  text                         (a line of a `$ cat FILE` in a transcript)
manifest=$work/manifest
awk '
  function flush_cmd(   c, mode, arg) {
    if (pending == "") return
    c = pending; pending = ""
    sub(/[ \t]+#[ \t].*$/, "", c)
    sub(/[ \t]+$/, "", c)
    mode = bmode; arg = barg
    if (c ~ /\[/ || c ~ /\.\.\./ || c ~ /(^|[^A-Za-z0-9_])[A-Z][A-Z][A-Z0-9_]*([^A-Za-z0-9_]|$)/) {
      mode = "synopsis"; arg = "placeholder"
    }
    printf "C\037%d\037%s\037%d\037%s\037%s\037%s\n", block, FILENAME, pline, mode, arg, c
  }
  FNR == 1 { inb = 0; prev = ""; catfile = "" }
  /^```/ {
    if (inb) { flush_cmd(); inb = 0; catfile = ""; prev = ""; next }
    inb = 1; block++; lang = substr($0, 4); bmode = "run"; barg = ""; catfile = ""
    if (prev ~ /^<!-- doc-example: skip/) {
      bmode = "skip"; barg = prev
      sub(/^<!-- doc-example: skip *\(?/, "", barg); sub(/\)? *-->.*$/, "", barg)
    } else if (prev ~ /^<!-- doc-example: exit [0-9]+/) {
      bmode = "exit"; barg = prev
      sub(/^<!-- doc-example: exit /, "", barg); sub(/[^0-9].*$/, "", barg)
    } else if (prev ~ /^<!-- doc-example/) {
      printf "X\037%s\037%d\037unknown doc-example marker: %s\n", FILENAME, FNR - 1, prev
    }
    next
  }
  !inb { if ($0 !~ /^[ \t]*$/) prev = $0; next }
  {
    line = $0
    if (pending != "") {                       # continuation of the previous command
      cont = (line ~ /\\$/); sub(/\\$/, "", line); sub(/^[ \t]+/, "", line)
      pending = pending " " line
      if (!cont) flush_cmd()
      next
    }
    if (line ~ /^\$ /) catfile = ""
    if (catfile != "") { printf "F\037%d\037%s\037%s\n", block, catfile, line; next }
    if (line ~ /^\$ cat [A-Za-z0-9._\/-]+$/ && lang == "") { catfile = substr(line, 7); next }
    is_cmd = (line ~ /^\$ gpuplan /) || (lang == "sh" && line ~ /^gpuplan /)
    if (!is_cmd) next
    sub(/^\$ /, "", line)
    pline = FNR
    cont = (line ~ /\\$/); sub(/\\$/, "", line)
    pending = line
    if (!cont) flush_cmd()
  }
' "${docs[@]}" >"$manifest"

ran=0 skipped=0 synopses=0 failed=0 current_block=""
# shellcheck disable=SC2094  # the loop reads the manifest; the awk inside only reads it too
while IFS=$'\037' read -r kind block a b c d e; do
  case $kind in
    X) echo "FAIL $block:$a: $b"; failed=$((failed + 1)); continue ;;  # X FILE LINE MESSAGE
    F) continue ;;
  esac
  file=$a line=$b mode=$c arg=$d cmd=$e
  case $mode in
    synopsis) echo "syn  $file:$line: (a placeholder: not run) $cmd"; synopses=$((synopses + 1)); continue ;;
    skip)
      echo "skip $file:$line: ${arg:-no reason given}: $cmd"
      skipped=$((skipped + 1))
      if [ -z "$arg" ]; then failed=$((failed + 1)); echo "FAIL $file:$line: skip without a reason"; fi
      continue ;;
  esac
  if [ "$block" != "$current_block" ]; then  # a fresh directory per block
    current_block=$block
    dir=$work/block-$block
    mkdir -p "$dir"
    for d in examples tests data; do ln -s "$root/$d" "$dir/$d"; done
    awk -F'\037' -v blk="$block" -v dir="$dir" \
      '$1 == "F" && $2 == blk { f = dir "/" $3; print $4 > f }' "$manifest"
  fi
  want=0
  [ "$mode" = exit ] && want=$arg
  out=$work/out
  (cd "$dir" && timeout 300 bash -o pipefail -c "$cmd") >"$out" 2>&1 </dev/null
  rc=$?
  ran=$((ran + 1))
  if [ "$rc" -ne "$want" ]; then
    failed=$((failed + 1))
    echo "FAIL $file:$line: exit $rc (want $want): $cmd"
    sed -n '1,15p' "$out" | sed 's/^/    /'
  else
    echo "ok   $file:$line: $cmd"
  fi
done <"$manifest"

# Python examples: the ```python blocks of each doc, in order, run as one script (a notebook:
# a later block uses what an earlier one defined) with the module built beside the binary
# (BUILD/python, python/CMakeLists.txt) on PYTHONPATH, in a fresh directory as above. The script
# keeps the doc's line numbers (other lines become blank), so a traceback's line is the doc's.
# A block marked skip is left out. Without the module (no pybind11) they are listed as skipped.
pydir=$(dirname "$gp")/python
python=${GPUPLAN_PYTHON:-/usr/bin/python3}
[ -x "$python" ] || python=$(command -v python3 || true)
for doc in "${docs[@]}"; do
  script=$work/py-$(basename "$doc" .md).py
  awk '
    /^```/ {
      if (inb) { inb = 0; print ""; next }
      inb = (substr($0, 4) == "python" && prev !~ /^<!-- doc-example: skip/); print ""; next
    }
    { print (inb ? $0 : "") }
    !inb && $0 !~ /^[ \t]*$/ { prev = $0 }
  ' "$doc" >"$script"
  grep -q '[^[:space:]]' "$script" || continue
  # The skipped blocks, each said with its reason; the others are counted as run.
  while IFS= read -r marked; do
    echo "skip $marked"
    skipped=$((skipped + 1))
  done < <(awk '/^```python/ && prev ~ /^<!-- doc-example: skip/ { print FILENAME ":" FNR ": " prev }
                !/^[ \t]*$/ { prev = $0 }' "$doc")
  blocks=$(awk '/^```python/ && prev !~ /^<!-- doc-example: skip/ { n++ }
                !/^[ \t]*$/ { prev = $0 } END { print n + 0 }' "$doc")
  if [ ! -d "$pydir/gpuplan" ] || [ -z "$python" ]; then
    echo "skip $doc: $blocks python block(s): the Python module was not built"
    skipped=$((skipped + blocks)); continue
  fi
  dir=$work/py-$(basename "$doc" .md)
  mkdir -p "$dir"
  for d in examples tests data; do ln -s "$root/$d" "$dir/$d"; done
  (cd "$dir" && PYTHONPATH=$pydir timeout 600 "$python" "$script") >"$work/out" 2>&1 </dev/null
  rc=$?
  ran=$((ran + blocks))
  if [ "$rc" -ne 0 ]; then
    failed=$((failed + 1))
    line=$(grep -o "File \"$script\", line [0-9]*" "$work/out" | tail -1 | grep -o '[0-9]*$')
    echo "FAIL $doc:${line:-?}: python exited $rc"
    tail -15 "$work/out" | sed 's/^/    /'
  else
    echo "ok   $doc: $blocks python block(s)"
  fi
done

echo "doc examples: $ran run, $skipped skipped (marked), $synopses synopsis lines not run, $failed failed"
[ "$failed" -eq 0 ]
