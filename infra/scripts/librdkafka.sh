#!/usr/bin/env bash
# librdkafka.sh [DIR] [VERSION]: build the native Kafka client library that Confluent.Kafka binds to.
#
# Why: the NuGet registry here serves Confluent.Kafka but not librdkafka.redist, and Debian's
# librdkafka (2.0.2) is older than the entry points Confluent.Kafka 2.15 calls. The npm package
# @confluentinc/kafka-javascript ships the complete librdkafka source tree of the matching release,
# so this script takes the source from there and builds it against Debian's OpenSSL, zlib, zstd,
# lz4 and Cyrus SASL. Idempotent, and safe to run concurrently (a lock guards the build).
set -euo pipefail

version="${2:-2.15.1}"
dir="${1:-${INGEST_LIBRDKAFKA_DIR:-$HOME/.cache/ingest/librdkafka-$version}}"

# The npm release that bundles each librdkafka release (see its package.json "librdkafka" field).
case "$version" in
  2.15.1) npm_package="@confluentinc/kafka-javascript@1.10.1" ;;
  *) echo "librdkafka.sh: no known npm source package for librdkafka $version" >&2; exit 2 ;;
esac

mkdir -p "$(dirname "$dir")"
exec 9>"$dir.lock"
flock 9
if [[ -f "$dir/lib/librdkafka.so.1" ]]; then
  echo "librdkafka $version: $dir/lib/librdkafka.so.1"
  exit 0
fi

# What the build needs, as (check, Debian package) pairs; only what is missing gets installed
# (npm in particular may come from elsewhere, such as NodeSource's nodejs, and must not be replaced).
missing=()
need_tool() { command -v "$1" >/dev/null || missing+=("$2"); }
need_header() { [[ -f "/usr/include/$1" ]] || missing+=("$2"); }
need_tool cc build-essential
need_tool make build-essential
need_tool pkg-config pkg-config
need_tool npm npm
need_header openssl/ssl.h libssl-dev
need_header zlib.h zlib1g-dev
need_header zstd.h libzstd-dev
need_header lz4.h liblz4-dev
need_header sasl/sasl.h libsasl2-dev
if (( ${#missing[@]} > 0 )); then
  packages=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
  if [[ $(id -u) == 0 ]] && command -v apt-get >/dev/null; then
    echo "librdkafka.sh: installing build prerequisites: $packages"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    # shellcheck disable=SC2086
    apt-get install -y -qq $packages >/dev/null
  else
    echo "librdkafka.sh: missing build prerequisites; install the Debian packages: $packages" >&2
    exit 1
  fi
fi

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent "$npm_package" >/dev/null)
tar -xzf "$work"/*.tgz -C "$work" package/deps/librdkafka
src="$work/package/deps/librdkafka"

expected=$(printf '0x%02x%02x%02xff' $(echo "$version" | tr '.' ' '))
actual=$(grep -m1 -oE 'RD_KAFKA_VERSION +0x[0-9a-f]+' "$src/src/rdkafka.h" | awk '{print $2}')
if [[ "$actual" != "$expected" ]]; then
  echo "librdkafka.sh: $npm_package carries librdkafka $actual, expected $expected" >&2
  exit 1
fi

echo "librdkafka.sh: building librdkafka $version into $dir"
(
  cd "$src"
  ./configure --prefix="$dir.partial" --disable-curl >"$work/configure.log" 2>&1 \
    || { tail -30 "$work/configure.log" >&2; exit 1; }
  make -j"$(nproc)" -C src >"$work/make.log" 2>&1 || { tail -30 "$work/make.log" >&2; exit 1; }
  make -C src install >>"$work/make.log" 2>&1
)
rm -rf "$dir"
mv "$dir.partial" "$dir"
echo "librdkafka $version: $dir/lib/librdkafka.so.1"
