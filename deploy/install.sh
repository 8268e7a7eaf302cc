#!/bin/sh
# Installs fleetls-agent as a systemd service from a built checkout:
#   npm ci && npm run build && sudo deploy/install.sh
# Copies the agent to /opt/fleetls, creates the 'fleetls' system user, installs
# /etc/fleetls/agent.yaml from the example (never overwriting an existing one) and
# the systemd unit, then enables the service. Edit agent.yaml (allow, tls_*) and
# `systemctl restart fleetls-agent`.
set -eu

PREFIX=${PREFIX:-/opt/fleetls}
ETC=${ETC:-/etc/fleetls}
UNIT_DIR=${UNIT_DIR:-/etc/systemd/system}
SRC=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: run as root" >&2
  exit 1
fi
if [ ! -f "$SRC/packages/agent/dist/main.js" ]; then
  echo "install.sh: build first: npm ci && npm run build" >&2
  exit 1
fi
command -v node >/dev/null 2>&1 || { echo "install.sh: node (>= 20) is required" >&2; exit 1; }

echo "installing into $PREFIX"
mkdir -p "$PREFIX/packages"
# Only what the agent needs at run time.
rm -rf "$PREFIX/proto" "$PREFIX/packages/core" "$PREFIX/packages/agent" "$PREFIX/node_modules"
cp -R "$SRC/proto" "$PREFIX/proto"
cp -R "$SRC/packages/core" "$PREFIX/packages/core"
cp -R "$SRC/packages/agent" "$PREFIX/packages/agent"
cp -R "$SRC/node_modules" "$PREFIX/node_modules"
# Workspace links point at the copies above.
rm -rf "$PREFIX/node_modules/@fleetls"
mkdir -p "$PREFIX/node_modules/@fleetls"
ln -s ../../proto "$PREFIX/node_modules/@fleetls/proto"
ln -s ../../packages/core "$PREFIX/node_modules/@fleetls/core"
ln -s ../../packages/agent "$PREFIX/node_modules/@fleetls/agent"
chmod 0755 "$PREFIX/packages/agent/dist/main.js"

if ! id fleetls >/dev/null 2>&1; then
  useradd --system --no-create-home --home-dir /nonexistent --shell /usr/sbin/nologin fleetls
fi

mkdir -p "$ETC/tls"
if [ ! -f "$ETC/agent.yaml" ]; then
  install -m 0640 -g fleetls "$SRC/deploy/agent.example.yaml" "$ETC/agent.yaml"
  echo "wrote $ETC/agent.yaml: set allow and tls_* before starting"
fi
install -m 0644 "$SRC/deploy/systemd/fleetls-agent.service" "$UNIT_DIR/fleetls-agent.service"
systemctl daemon-reload
systemctl enable fleetls-agent.service
echo "enabled fleetls-agent; start it with: systemctl start fleetls-agent"
