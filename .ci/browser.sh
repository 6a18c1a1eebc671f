#!/usr/bin/env bash
# Installs what the real-browser test (tests/browser/) needs: Debian's Chromium and, into .venv,
# JupyterLab and Playwright's Python driver (the `ci` extra). Playwright's own browser download is never used
# (no `playwright install`): the test launches /usr/bin/chromium through `executable_path`.
# Idempotent; safe to call on every CI run. Run from anywhere, as root (CI) or with sudo rights.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PY:-.venv/bin/python}"

if [ ! -x /usr/bin/chromium ]; then
    SUDO=""
    if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
fi

if ! "$PY" -c 'import jupyterlab, playwright' 2>/dev/null; then
    # the `ci` extra of pyproject.toml pins them (with the other CI-only tools)
    "$PY" -m pip install --quiet -e '.[ci]'
fi

/usr/bin/chromium --version
"$PY" -c 'import jupyterlab, playwright; print("jupyterlab", jupyterlab.__version__)'
