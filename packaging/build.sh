#!/usr/bin/env bash
# Build the one-folder bundle dist/desktopapp/ with PyInstaller (Linux; macOS works the same
# way and also writes "dist/ML Capacity Planner.app", see packaging/macos/README.md).
#
#   packaging/build.sh                     # bundle without torch (small; benchmarks disabled)
#   BUNDLE_WITH_TORCH=1 packaging/build.sh # bundle the torch found/installed in the build venv
#   packaging/build.sh --smoke             # build, then run packaging/smoke_test.sh
#   packaging/build.sh --archive           # also write dist/desktopapp-<version>-<os>-<arch>.tar.gz
#
# The build runs in its own virtual environment (BUILD_VENV, default build/pyinstaller-venv),
# never in the project's .venv, so PyInstaller and its hooks do not disturb development.
# That venv gets PyInstaller plus the runtime dependencies listed in pyproject.toml (torch only
# with BUNDLE_WITH_TORCH=1: TORCH_SPEC, default torch==2.13.0; install a CUDA build there first
# to bundle CUDA). The frozen code is the checkout's desktopapp/, with resources/ inside the
# bundle at _internal/desktopapp/resources/.
#
# Variables: PYTHON (python3), BUILD_VENV, PYINSTALLER_SPEC ("pyinstaller>=6.10,<7"),
# TORCH_SPEC, DIST_DIR (dist), WORK_DIR (build/pyinstaller).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

PYTHON=${PYTHON:-python3}
BUILD_VENV=${BUILD_VENV:-build/pyinstaller-venv}
PYINSTALLER_SPEC=${PYINSTALLER_SPEC:-pyinstaller>=6.10,<7}
TORCH_SPEC=${TORCH_SPEC:-torch==2.13.0}
BUNDLE_WITH_TORCH=${BUNDLE_WITH_TORCH:-0}
DIST_DIR=${DIST_DIR:-dist}
WORK_DIR=${WORK_DIR:-build/pyinstaller}
SMOKE=0
ARCHIVE=0
for arg in "$@"; do
    case "$arg" in
        --smoke) SMOKE=1 ;;
        --archive) ARCHIVE=1 ;;
        -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
        *) echo "build.sh: unknown option $arg" >&2; exit 2 ;;
    esac
done
export BUNDLE_WITH_TORCH

start=$(date +%s)
mkdir -p "$(dirname "$BUILD_VENV")"
# One build at a time per build venv (pip and PyInstaller's caches are not safe to share).
if command -v flock >/dev/null 2>&1; then
    exec 9>"$BUILD_VENV.lock"
    flock 9
fi
# Exit status 3: the build tools could not be installed (offline?), not a problem of the app.
if [ ! -x "$BUILD_VENV/bin/python" ]; then
    echo "build: creating $BUILD_VENV"
    "$PYTHON" -m venv "$BUILD_VENV" || exit 3
fi
VPY="$BUILD_VENV/bin/python"
PIP=("$VPY" -m pip --disable-pip-version-check -q)

# Runtime dependencies from pyproject.toml, without torch (optional at run time).
# (A while-read loop, not mapfile: macOS ships bash 3.2.)
deps=()
while IFS= read -r dep; do
    deps+=("$dep")
done < <("$VPY" - <<'EOF'
import re, tomllib
with open("pyproject.toml", "rb") as f:
    deps = tomllib.load(f)["project"]["dependencies"]
for dep in deps:
    if re.split(r"[\s<>=!~\[;]", dep, maxsplit=1)[0].lower() != "torch":
        print(dep)
EOF
)
echo "build: installing $PYINSTALLER_SPEC and ${deps[*]} into $BUILD_VENV"
"${PIP[@]}" install "$PYINSTALLER_SPEC" "${deps[@]}" || exit 3
if [ "$BUNDLE_WITH_TORCH" = 1 ]; then
    if ! "$VPY" -c "import torch" >/dev/null 2>&1; then
        echo "build: installing $TORCH_SPEC into $BUILD_VENV"
        "${PIP[@]}" install "$TORCH_SPEC" || exit 3
    fi
    echo "build: bundling torch $("$VPY" -c 'import torch; print(torch.__version__)')"
fi
# A desktopapp installed in the build venv would shadow nothing (the spec puts the checkout
# first on sys.path) but would confuse a reader of the build log: keep it out.
"${PIP[@]}" uninstall -y desktopapp >/dev/null 2>&1 || true

echo "build: running PyInstaller (BUNDLE_WITH_TORCH=$BUNDLE_WITH_TORCH)"
pyi_start=$(date +%s)
"$VPY" -m PyInstaller --noconfirm --clean --log-level WARN \
    --distpath "$DIST_DIR" --workpath "$WORK_DIR" packaging/desktopapp.spec
pyi_end=$(date +%s)

BUNDLE="$DIST_DIR/desktopapp"
if [ "$(uname -s)" = Linux ]; then
    # Desktop integration files travel with the bundle: ./install-desktop.sh adds a menu entry.
    cp packaging/desktopapp.desktop packaging/io.github.desktopapp.MLCapacityPlanner.metainfo.xml \
        packaging/install-desktop.sh "$BUNDLE/"
    chmod +x "$BUNDLE/install-desktop.sh"
fi
if [ "$BUNDLE_WITH_TORCH" != 1 ] && [ -e "$BUNDLE/_internal/torch" ]; then
    echo "build: error: torch ended up in the bundle although BUNDLE_WITH_TORCH is not 1" >&2
    exit 1
fi

if [ "$ARCHIVE" = 1 ]; then
    version=$(sed -n 's/^__version__ = "\(.*\)"$/\1/p' desktopapp/__init__.py)
    os_name=$(uname -s | tr '[:upper:]' '[:lower:]')
    suffix=""
    if [ "$BUNDLE_WITH_TORCH" = 1 ]; then suffix="-torch"; fi
    archive="$DIST_DIR/desktopapp-$version-$os_name-$(uname -m)$suffix.tar.gz"
    tar -C "$DIST_DIR" -czf "$archive" desktopapp
    echo "build: archive $archive ($(du -sh "$archive" | cut -f1))"
fi

end=$(date +%s)
echo "build: bundle $(cd "$BUNDLE" && pwd) ($(du -sh "$BUNDLE" | cut -f1))"
echo "build: PyInstaller $((pyi_end - pyi_start)) s, total $((end - start)) s"
if [ "$SMOKE" = 1 ]; then
    exec bash packaging/smoke_test.sh "$BUNDLE"
fi
