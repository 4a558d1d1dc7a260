#!/usr/bin/env bash
# Add ML Capacity Planner to the desktop's application menu for the current user (Linux).
#
#   ./install-desktop.sh                 # from the bundle folder (dist/desktopapp/)
#   packaging/install-desktop.sh         # from a checkout: uses `desktopapp` found on PATH
#   install-desktop.sh --exec /path/to/desktopapp   # any install (wheel in a venv, bundle)
#   install-desktop.sh --uninstall       # remove what an install added
#
# Installs, under ${XDG_DATA_HOME:-~/.local/share} (or --prefix DIR):
#   applications/desktopapp.desktop   (Exec = the absolute path of the program)
#   icons/hicolor/<N>x<N>/apps/io.github.desktopapp.MLCapacityPlanner.png  (each PNG size)
#   icons/hicolor/scalable/apps/io.github.desktopapp.MLCapacityPlanner.svg (if there is one)
#   metainfo/io.github.desktopapp.MLCapacityPlanner.metainfo.xml
# The app icon is taken from the app's resources/icons/ folder (bundle, checkout, or the
# installed package of the --exec program); --icons DIR picks another folder.
# Nothing outside that data folder is touched; no root needed.
set -euo pipefail

APP_ID=io.github.desktopapp.MLCapacityPlanner  # AppStream id, also the installed icon name
# Desktop-file id: matches QGuiApplication.setDesktopFileName("desktopapp") in desktopapp/app.py,
# which is how Wayland compositors match the window to this entry (and its icon).
DESKTOP_ID=desktopapp
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
DATA_HOME=${XDG_DATA_HOME:-$HOME/.local/share}
EXEC=""
ICON_DIR=""
UNINSTALL=0
QUIET=0
# Sizes the hicolor theme looks up (index.theme of hicolor-icon-theme).
HICOLOR_SIZES=" 16 22 24 32 36 48 64 72 96 128 192 256 384 512 "

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; }
say() { [ "$QUIET" = 1 ] || echo "install-desktop: $*"; }
die() { echo "install-desktop: error: $*" >&2; exit 2; }

while (($#)); do
    case "$1" in
        --uninstall) UNINSTALL=1 ;;
        --exec) (($# >= 2)) || die "--exec needs a path"; EXEC=$2; shift ;;
        --icons) (($# >= 2)) || die "--icons needs a folder"; ICON_DIR=$2; shift ;;
        --prefix) (($# >= 2)) || die "--prefix needs a folder"; DATA_HOME=$2; shift ;;
        -q|--quiet) QUIET=1 ;;
        -h|--help) usage; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done

APPS="$DATA_HOME/applications"
ICONS="$DATA_HOME/icons/hicolor"
METAINFO="$DATA_HOME/metainfo"

refresh_caches() {
    if command -v update-desktop-database >/dev/null 2>&1; then
        update-desktop-database -q "$APPS" 2>/dev/null || true
    fi
    if command -v gtk-update-icon-cache >/dev/null 2>&1 && [ -f "$ICONS/index.theme" ]; then
        gtk-update-icon-cache -q -t -f "$ICONS" 2>/dev/null || true
    fi
}

if [ "$UNINSTALL" = 1 ]; then
    removed=0
    for f in "$APPS/$DESKTOP_ID.desktop" "$METAINFO/$APP_ID.metainfo.xml" \
        "$ICONS"/*/apps/"$APP_ID".png "$ICONS"/*/apps/"$APP_ID".svg; do
        if [ -e "$f" ]; then
            rm -f -- "$f"
            removed=$((removed + 1))
        fi
    done
    [ -d "$APPS" ] && refresh_caches
    say "removed $removed file(s) from $DATA_HOME"
    exit 0
fi

# ------------------------------------------------------------------ which program to start
if [ -z "$EXEC" ]; then
    if [ -x "$HERE/desktopapp" ] && [ -d "$HERE/_internal" ]; then
        EXEC="$HERE/desktopapp"  # running from the bundle folder
    elif command -v desktopapp >/dev/null 2>&1; then
        EXEC=$(command -v desktopapp)
    else
        die "no desktopapp program found: run this from the bundle folder, put desktopapp on PATH, or pass --exec PATH"
    fi
fi
[ -x "$EXEC" ] || die "$EXEC is not an executable file"
EXEC=$(cd "$(dirname "$EXEC")" && pwd)/$(basename "$EXEC")
case "$EXEC" in
    *[\"\`\$\\]*) die "the program path must not contain \", \`, \$ or \\: $EXEC" ;;
esac
case "$EXEC" in
    *[[:space:]]*) EXEC_FIELD="\"$EXEC\"" ;;
    *) EXEC_FIELD=$EXEC ;;
esac

# ------------------------------------------------------------------ where the icons are
if [ -z "$ICON_DIR" ]; then
    for candidate in "$HERE/_internal/desktopapp/resources/icons" "$HERE/../resources/icons"; do
        if [ -d "$candidate" ]; then ICON_DIR=$candidate; break; fi
    done
fi
if [ -z "$ICON_DIR" ]; then
    # A pip-installed console script starts with "#!<venv python>": ask that interpreter.
    shebang=$(head -c 300 "$EXEC" | head -n 1 || true)
    if [[ "$shebang" == '#!'*python* ]]; then
        py=${shebang#\#!}
        ICON_DIR=$($py -c 'from desktopapp.resources import resource_path; print(resource_path("icons"))' 2>/dev/null || true)
    fi
fi

png_size() {  # prints N for an NxN PNG, nothing otherwise
    local w h
    [ "$(od -An -tx1 -N8 "$1" | tr -d ' \n')" = 89504e470d0a1a0a ] || return 0
    read -r w h < <(od -An -tu1 -j16 -N8 "$1" | awk '{print $1*16777216+$2*65536+$3*256+$4, $5*16777216+$6*65536+$7*256+$8}')
    [ "$w" = "$h" ] && echo "$w"
    return 0
}

declare -A by_size=()
svg=""
if [ -n "$ICON_DIR" ] && [ -d "$ICON_DIR" ]; then
    mapfile -t files < <(find "$ICON_DIR" -maxdepth 2 -type f \( -name '*.png' -o -name '*.svg' \) | LC_ALL=C sort)
    # Prefer files named after the app: other icons (tabs, toolbar) may share the folder.
    named=()
    for f in "${files[@]}"; do
        case "$(basename "$f")" in
            *desktopapp*|*MLCapacityPlanner*|*app*|*logo*) named+=("$f") ;;
        esac
    done
    ((${#named[@]})) && files=("${named[@]}")
    for f in "${files[@]}"; do
        case "$f" in
            *.svg) [ -n "$svg" ] || svg=$f ;;
            *.png)
                n=$(png_size "$f")
                if [ -n "$n" ] && [[ "$HICOLOR_SIZES" == *" $n "* ]] && [ -z "${by_size[$n]:-}" ]; then
                    by_size[$n]=$f
                fi
                ;;
        esac
    done
fi

# ------------------------------------------------------------------ install
DESKTOP_SRC="$HERE/desktopapp.desktop"
METAINFO_SRC="$HERE/$APP_ID.metainfo.xml"
[ -f "$DESKTOP_SRC" ] || die "$DESKTOP_SRC is missing"

mkdir -p "$APPS"
tmp=$(mktemp "$APPS/.$DESKTOP_ID.XXXXXX")
sed -e "s|^Exec=desktopapp\b|Exec=$EXEC_FIELD|" -e "s|^TryExec=.*|TryExec=$EXEC|" \
    "$DESKTOP_SRC" >"$tmp"
chmod 644 "$tmp"
mv -f "$tmp" "$APPS/$DESKTOP_ID.desktop"
say "installed $APPS/$DESKTOP_ID.desktop (Exec=$EXEC_FIELD)"

if [ -f "$METAINFO_SRC" ]; then
    mkdir -p "$METAINFO"
    install -m 644 "$METAINFO_SRC" "$METAINFO/$APP_ID.metainfo.xml"
fi

count=0
for n in "${!by_size[@]}"; do
    mkdir -p "$ICONS/${n}x${n}/apps"
    install -m 644 "${by_size[$n]}" "$ICONS/${n}x${n}/apps/$APP_ID.png"
    count=$((count + 1))
done
if [ -n "$svg" ]; then
    mkdir -p "$ICONS/scalable/apps"
    install -m 644 "$svg" "$ICONS/scalable/apps/$APP_ID.svg"
    count=$((count + 1))
fi
if [ "$count" = 0 ]; then
    say "warning: no app icon found (looked in ${ICON_DIR:-nowhere}); the menu shows a generic icon"
else
    say "installed $count icon file(s) under $ICONS"
fi
refresh_caches
say "done; remove with: $0 --uninstall"
