#!/usr/bin/env bash
# Installs what ListServer needs on Debian 12, and nothing twice.
#   scripts/setup.sh server   build and run: C libraries, WebKitGTK for the publish gate
#   scripts/setup.sh test     the above plus test and benchmark tools and a Python venv
set -euo pipefail
mode="${1:-server}"
cd "$(dirname "$0")/.."

# Build: libcurl (fetch), zlib (gzip), libssl (SHA-256, constant-time compare), libidn2 (punycode).
packages=(libcurl4-openssl-dev zlib1g-dev libssl-dev libidn2-dev)
packages+=(libzstd-dev)  # patches: dcz patches between list versions
# The publish gate compiles every list with WebKit's real content-blocker compiler (loaded at run
# time: the server builds and runs without it, and "auto" skips the gate then).
packages+=(libwebkit2gtk-4.1-0)
# `listserver explain`: registrable domains (Public Suffix List) for third-party decisions.
packages+=(publicsuffix)
if [ "$mode" = test ]; then
  # Tests: venv for the adblock-rust reference and REDbot; the public suffix list for
  # third-party decisions; Varnish as a real CDN; nginx/wrk/hyperfine for benchmarks; Xvfb for WebView checks;
  # systemd-analyze to check deploy/listserver.service.
  packages+=(python3-venv python3-pip varnish nginx wrk hyperfine xvfb util-linux time curl systemd)
  # Signed manifests: minisign and Python's cryptography as independent verifiers, openssl to read our PEM keys.
  packages+=(minisign python3-cryptography openssl)
  packages+=(zstd)  # patches: the zstd CLI as an independent decoder of our patches
  packages+=(chromium fonts-dejavu-core)  # the status page in a real headless browser, with readable screenshots
  # GNOME Web on the stable list URLs: the browser, a private D-Bus session, gsettings with a keyfile
  # backend, GNOME's proxy settings, GIO's proxy resolver that reads them, xauth for xvfb-run.
  packages+=(epiphany-browser dbus-daemon libglib2.0-bin gsettings-desktop-schemas glib-networking xauth)
  # The WebKit test tools under scripts/webkit (WebView checks, evaluate.py, compile.py) drive WebKit from Python.
  packages+=(gir1.2-webkit2-4.1 python3-gi)
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  echo "setup: installing ${missing[*]}"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

if [ "$mode" = test ]; then
  if [ ! -x .venv/bin/python ]; then
    /usr/bin/python3 -m venv --system-site-packages .venv
  fi
  if ! .venv/bin/python -c "import adblock, redbot" 2>/dev/null; then
    .venv/bin/pip install -q --disable-pip-version-check adblock==0.6.0 redbot
  fi
fi

if ! command -v swift >/dev/null 2>&1; then
  echo "setup: the Swift toolchain is not on PATH (expected /opt/swift/usr/bin)" >&2
  exit 1
fi
