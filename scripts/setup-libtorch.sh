#!/usr/bin/env bash
# Installs the libtorch that burn's tch backend builds against: PyTorch 2.9.0
# (what burn-tch 0.22 → tch 0.22 expects) from PyPI into a Python virtual
# environment, then prints the environment to build and run with.
#
#   scripts/setup-libtorch.sh [VENV_DIR]     (default: .venv-libtorch)
#   eval "$(scripts/setup-libtorch.sh)"      (sets the environment here)
#   cargo build --release --features tch
#
# Progress goes to stderr; stdout holds only the `export` lines. Running it
# again skips the install when torch 2.9.0 is already in the environment.
# The Linux wheel is the CUDA build: about 6.7 GB with its nvidia-*
# dependencies, which libtorch loads even on CPU.
set -euo pipefail

TORCH_VERSION=2.9.0
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${1:-$root/.venv-libtorch}"
python="${PYTHON:-python3}"

say() { echo "setup-libtorch: $*" >&2; }

installed_version() {
    "$venv/bin/python" - <<'EOF' 2>/dev/null || true
import importlib.metadata
print(importlib.metadata.version("torch"))
EOF
}

if [[ ! -x "$venv/bin/python" ]]; then
    command -v "$python" >/dev/null || { say "$python not found: install Python 3 (with venv)"; exit 1; }
    say "creating the virtual environment $venv"
    "$python" -m venv "$venv"
fi
venv="$(cd "$venv" && pwd)"

version="$(installed_version)"
if [[ "$version" == "$TORCH_VERSION" || "$version" == "$TORCH_VERSION+"* ]]; then
    say "torch $version already in $venv"
else
    say "installing torch==$TORCH_VERSION from PyPI into $venv (about 6.7 GB)"
    "$venv/bin/python" -m pip install --quiet "torch==$TORCH_VERSION" >&2
fi

torch_lib="$("$venv/bin/python" - <<'EOF'
import pathlib, sysconfig
print(pathlib.Path(sysconfig.get_paths()["purelib"]) / "torch" / "lib")
EOF
)"
[[ -f "$torch_lib/libtorch_cpu.so" ]] || { say "no libtorch_cpu.so in $torch_lib: the torch install is broken"; exit 1; }

cat <<EOF
export VIRTUAL_ENV="$venv"
export PATH="$venv/bin:\$PATH"
export LIBTORCH_USE_PYTORCH=1
export LD_LIBRARY_PATH="$torch_lib\${LD_LIBRARY_PATH:+:\$LD_LIBRARY_PATH}"
EOF
