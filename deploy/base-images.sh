#!/usr/bin/env bash
# Makes the images the Dockerfile and docker-compose.yml name — mcr.microsoft.com/dotnet/{runtime-deps,
# aspnet,sdk}:10.0, node:20-bookworm-slim, postgres:15-bookworm, mcr.microsoft.com/dotnet/aspire-dashboard
# — on a machine that cannot pull them (no registry reachable): a Debian bookworm root made with
# debootstrap, this machine's CA certificates, the .NET runtime and SDK and Node.js this machine
# carries, Debian's PostgreSQL 15, and the Aspire dashboard from its NuGet package.
# With Docker and a registry, skip this: the Dockerfiles pull the real images.
#
#   deploy/base-images.sh            # podman (default) or ENGINE=docker
#
# Idempotent: an image that exists is kept (FORCE=1 remakes them). The root file system is cached
# in ${SALSA_ROOTFS_CACHE:-/var/tmp/salsa-bookworm-rootfs.tar}.
set -euo pipefail

ENGINE=${ENGINE:-podman}
DOTNET_ROOT=${DOTNET_ROOT:-$(dirname "$(readlink -f "$(command -v dotnet)")")}
CACHE=${SALSA_ROOTFS_CACHE:-/var/tmp/salsa-bookworm-rootfs.tar}
MIRROR=${DEBIAN_MIRROR:-http://deb.debian.org/debian}
TAG=10.0
RUNTIME_DEPS=mcr.microsoft.com/dotnet/runtime-deps:$TAG
ASPNET=mcr.microsoft.com/dotnet/aspnet:$TAG
SDK=mcr.microsoft.com/dotnet/sdk:$TAG
NODE=docker.io/library/node:20-bookworm-slim
POSTGRES=docker.io/library/postgres:15-bookworm
DASHBOARD_VERSION=13.6.5
DASHBOARD=mcr.microsoft.com/dotnet/aspire-dashboard:${DASHBOARD_VERSION%.*}
BUILD=($ENGINE build --runtime runc --ulimit nofile=1024:1024 --ulimit nproc=1024:1024)

have() { [ -z "${FORCE:-}" ] && $ENGINE image exists "$1" 2>/dev/null; }
context=$(mktemp -d)
trap 'rm -rf "$context"' EXIT

if ! have "$RUNTIME_DEPS"; then
  if [ ! -s "$CACHE" ]; then
    command -v debootstrap >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq debootstrap; }
    root=$(mktemp -d)
    echo "base-images: debootstrap bookworm (a few minutes) …"
    # What the .NET runtime-deps image holds: ICU, OpenSSL, zlib, CA certificates, time zones.
    debootstrap --variant=minbase --include=ca-certificates,libicu72,libssl3,zlib1g,tzdata,libgcc-s1,libstdc++6 \
      bookworm "$root" "$MIRROR" >/dev/null
    # The CAs this machine trusts (a TLS-inspecting proxy's included), so a build can restore packages.
    cp -r /etc/ssl/certs/. "$root/etc/ssl/certs/"
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar -C "$root" -cf "$CACHE" .
    rm -rf "$root"
  fi
  # Imported under a tag of its own: the final tag exists only once the image is whole, so a build
  # that failed half-way is made again the next time instead of being taken for done.
  rootfs=localhost/salsa-runtime-deps-rootfs:$TAG
  $ENGINE import --change 'ENV APP_UID=1654' --change 'CMD ["bash"]' "$CACHE" "$rootfs" >/dev/null
  # The user the .NET images run as: app (uid 1654).
  printf 'FROM %s\nRUN groupadd --gid 1654 app && useradd --uid 1654 --gid 1654 --create-home app\n' "$rootfs" \
    | "${BUILD[@]}" -t "$RUNTIME_DEPS" -f - "$context" >/dev/null
  $ENGINE untag "$rootfs" >/dev/null 2>&1 || $ENGINE rmi "$rootfs" >/dev/null 2>&1 || true
  echo "base-images: $RUNTIME_DEPS"
fi

if ! have "$ASPNET"; then
  mkdir -p "$context/dotnet/shared"
  cp "$DOTNET_ROOT/dotnet" "$context/dotnet/"
  cp -r "$DOTNET_ROOT/host" "$context/dotnet/"
  cp -r "$DOTNET_ROOT/shared/Microsoft.NETCore.App" "$DOTNET_ROOT/shared/Microsoft.AspNetCore.App" "$context/dotnet/shared/"
  printf 'FROM %s\nENV DOTNET_ROOT=/usr/share/dotnet ASPNETCORE_HTTP_PORTS=8080 DOTNET_RUNNING_IN_CONTAINER=true\nCOPY dotnet /usr/share/dotnet\nRUN ln -s /usr/share/dotnet/dotnet /usr/bin/dotnet\n' "$RUNTIME_DEPS" \
    | "${BUILD[@]}" -t "$ASPNET" -f - "$context" >/dev/null
  rm -rf "$context/dotnet"
  echo "base-images: $ASPNET"
fi

if ! have "$SDK"; then
  mkdir -p "$context/dotnet"
  cp -r "$DOTNET_ROOT/." "$context/dotnet/"
  printf 'FROM %s\nENV DOTNET_ROOT=/usr/share/dotnet DOTNET_CLI_TELEMETRY_OPTOUT=1 DOTNET_NOLOGO=1 DOTNET_RUNNING_IN_CONTAINER=true NUGET_CERT_REVOCATION_MODE=offline\nCOPY dotnet /usr/share/dotnet\nRUN ln -s /usr/share/dotnet/dotnet /usr/bin/dotnet\n' "$RUNTIME_DEPS" \
    | "${BUILD[@]}" -t "$SDK" -f - "$context" >/dev/null
  echo "base-images: $SDK"
fi

if ! have "$NODE"; then
  node=$(readlink -f "$(command -v node)")
  npm=$(dirname "$(dirname "$(readlink -f "$(command -v npm)")")")
  mkdir -p "$context/node"
  cp "$node" "$context/node/node"
  cp -r "$npm" "$context/node/npm"
  printf 'FROM %s\nENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt\nCOPY node/node /usr/local/bin/node\nCOPY node/npm /usr/local/lib/node_modules/npm\nRUN ln -s ../lib/node_modules/npm/bin/npm-cli.js /usr/local/bin/npm\nCMD ["node"]\n' "$RUNTIME_DEPS" \
    | "${BUILD[@]}" -t "$NODE" -f - "$context" >/dev/null
  rm -rf "$context/node"
  echo "base-images: $NODE"
fi

if ! have "$POSTGRES"; then
  # Debian bookworm's PostgreSQL 15, with the part of the official image's contract compose uses:
  # POSTGRES_USER / POSTGRES_PASSWORD / POSTGRES_DB on first start, the data in PGDATA, pg_isready.
  cat > "$context/docker-entrypoint.sh" <<'ENTRY'
#!/bin/sh
set -e
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  pwfile=$(mktemp)
  printf '%s' "${POSTGRES_PASSWORD:?POSTGRES_PASSWORD is required}" > "$pwfile"
  initdb -D "$PGDATA" -U "${POSTGRES_USER:-postgres}" --pwfile="$pwfile" --auth-local=trust --auth-host=scram-sha-256 >/dev/null
  rm -f "$pwfile"
  printf "listen_addresses = '*'\nunix_socket_directories = '/tmp'\n" >> "$PGDATA/postgresql.conf"
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  db=${POSTGRES_DB:-${POSTGRES_USER:-postgres}}
  if [ "$db" != postgres ]; then
    echo "CREATE DATABASE \"$db\" OWNER \"${POSTGRES_USER:-postgres}\";" | postgres --single -D "$PGDATA" postgres >/dev/null
  fi
fi
[ "$1" = postgres ] && shift && exec postgres -D "$PGDATA" "$@"
exec "$@"
ENTRY
  chmod +x "$context/docker-entrypoint.sh"
  printf '%s\n' "FROM $RUNTIME_DEPS" \
    'RUN apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends postgresql-15 >/dev/null && rm -rf /var/lib/apt/lists/*' \
    'ENV PATH=/usr/lib/postgresql/15/bin:$PATH PGDATA=/var/lib/postgresql/data PGHOST=/tmp' \
    'RUN mkdir -p "$PGDATA" && chown -R postgres:postgres /var/lib/postgresql' \
    'COPY docker-entrypoint.sh /usr/local/bin/' \
    'USER postgres' \
    'EXPOSE 5432' \
    'ENTRYPOINT ["docker-entrypoint.sh"]' \
    'CMD ["postgres"]' \
    | "${BUILD[@]}" -t "$POSTGRES" -f - "$context" >/dev/null
  echo "base-images: $POSTGRES"
fi

if ! have "$DASHBOARD"; then
  # The standalone dashboard as NuGet ships it (a self-contained linux-x64 build), set up as the
  # official image is: UI on 18888, OTLP/gRPC on 18889, OTLP/HTTP on 18890, user app.
  cp -r "$("$(dirname "$0")/../tools/fetch-dashboard" "$DASHBOARD_VERSION")" "$context/dashboard"
  printf '%s\n' "FROM $RUNTIME_DEPS" \
    'COPY dashboard /app' \
    'RUN chmod -R a+rX /app && chmod a+x /app/Aspire.Dashboard' \
    'ENV ASPNETCORE_URLS=http://+:18888 DOTNET_DASHBOARD_OTLP_ENDPOINT_URL=http://+:18889 DOTNET_DASHBOARD_OTLP_HTTP_ENDPOINT_URL=http://+:18890' \
    'EXPOSE 18888 18889 18890' \
    'USER app' \
    'WORKDIR /app' \
    'ENTRYPOINT ["/app/Aspire.Dashboard"]' \
    | "${BUILD[@]}" -t "$DASHBOARD" -f - "$context" >/dev/null
  rm -rf "$context/dashboard"
  echo "base-images: $DASHBOARD"
fi
