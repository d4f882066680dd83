#!/usr/bin/env bash
# npm run bundle:scale [-- OUT.tar.xz]
# Packs what bench:scale needs on a bare many-core Linux x86-64 machine with
# nothing installed and no network (docs/scale-bench-bundle.md): the
# production install of this checkout (compiled, production dependencies
# only), a Node 24 binary, and PostgreSQL's server binaries with the shared
# libraries they load, relocated under one folder. Run on a Debian machine
# that has the postgresql package (as .ci/run installs it).
set -euo pipefail
cd "$(dirname "$0")/../.."

if [ "${1:-}" = "--help" ] || [ "${1:-}" = "-h" ]; then
  sed -n '2,8p' "$0" | sed 's/^# \{0,1\}//'
  exit 0
fi
out=${1:-.bundle/scale-bench.tar.xz}
[ "$(uname -m)" = x86_64 ] || { echo "bundle:scale: builds x86-64 bundles only, on an x86-64 machine" >&2; exit 2; }
pg_bin=$(compgen -G "/usr/lib/postgresql/*/bin/initdb" | sort -V | tail -1 | xargs -r dirname)
[ -n "$pg_bin" ] || { echo "bundle:scale: no PostgreSQL server binaries: install Debian's postgresql package" >&2; exit 2; }
pg_version=$(basename "$(dirname "$pg_bin")")
pg_share=$("$pg_bin/pg_config" --sharedir)
pg_lib=$("$pg_bin/pg_config" --pkglibdir)

stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
root="$stage/svc-scale-bench"
mkdir -p "$root"

step() { printf 'bundle:scale: %s\n' "$*" >&2; }

step "compiling"
npm run build --silent
step "production install"
mkdir -p "$root/app"
cp -a package.json package-lock.json dist "$root/app/"
(cd "$root/app" && npm ci --omit=dev --ignore-scripts --no-audit --no-fund --loglevel=error)
# The benches' own load generator, a development dependency, at the version the lock file pins, installed
# on its own and nested with its dependencies under app/node_modules/autocannon, so it shares none with the app.
autocannon=$(node -p 'require("./package-lock.json").packages["node_modules/autocannon"].version')
npm install --prefix "$stage/tools" --ignore-scripts --no-audit --no-fund --loglevel=error "autocannon@$autocannon"
mv "$stage/tools/node_modules/autocannon" "$root/app/node_modules/autocannon"
rm -rf "$stage/tools/node_modules/.bin" "$stage/tools/node_modules/.package-lock.json"
mkdir -p "$root/app/node_modules/autocannon/node_modules"
cp -a -n "$stage/tools/node_modules/." "$root/app/node_modules/autocannon/node_modules/"
[ -f "$root/app/node_modules/autocannon/package.json" ] || { echo "bundle:scale: autocannon did not install" >&2; exit 1; }

step "Node 24"
node_bin=$(command -v node)
if [ "$("$node_bin" -p 'process.versions.node.split(".")[0]')" -lt 24 ]; then
  node_bin="${XDG_CACHE_HOME:-$HOME/.cache}/svc-pos-sim/node24/bin/node"
  [ -x "$node_bin" ] || { echo "bundle:scale: no Node 24 here (run .ci/run once, or put Node 24 on PATH)" >&2; exit 2; }
fi
mkdir -p "$root/node/bin"
cp "$node_bin" "$root/node/bin/node"
# bench:scale --pin pins each part with taskset (util-linux), which a bare machine may lack; it needs only the C library.
cp "$(command -v taskset)" "$root/node/bin/taskset"

step "PostgreSQL $pg_version"
# The binaries find their share and lib folders relative to themselves, so the tree keeps its shape.
pg="$root/pg"
mkdir -p "$pg/usr/lib/postgresql/$pg_version/bin" "$pg/usr/lib/postgresql/$pg_version/lib" "$pg/usr/share/postgresql" "$pg/libs"
for tool in postgres initdb pg_ctl pgbench psql pg_waldump pg_config pg_test_fsync; do
  cp -a "$pg_bin/$tool" "$pg/usr/lib/postgresql/$pg_version/bin/"
done
# The modules initdb and a plain server load (procedural language, text search dictionaries, encodings), no JIT.
cp -a "$pg_lib"/*.so "$pg/usr/lib/postgresql/$pg_version/lib/"
rm -f "$pg/usr/lib/postgresql/$pg_version/lib/llvmjit.so"
cp -a "$pg_share" "$pg/usr/share/postgresql/"
rm -rf "$pg/usr/share/postgresql/$pg_version/man"
# Their shared libraries, but the C library's own, which the machine has (newer is fine: they need glibc 2.34).
for binary in "$pg/usr/lib/postgresql/$pg_version/bin/"* "$pg/usr/lib/postgresql/$pg_version/lib/"*.so; do
  ldd "$binary" | awk '$3 ~ /^\// {print $3}'
done | sort -u | grep -Ev '/(libc|libm|libdl|libpthread|librt|libresolv|ld-linux[^/]*)\.so' | while read -r lib; do
  cp -L "$lib" "$pg/libs/"
done
# PostgreSQL reads time zones from the system's tzdata; a bare machine may lack it.
mkdir -p "$pg/zoneinfo/Etc"
cp -L /usr/share/zoneinfo/UTC /usr/share/zoneinfo/GMT "$pg/zoneinfo/"
cp -L /usr/share/zoneinfo/Etc/UTC "$pg/zoneinfo/Etc/"

cp scripts/bundle/run-scale-bench.sh "$root/run.sh"
chmod +x "$root/run.sh"
printf 'svc-pos-sim %s, commit %s, Node %s, PostgreSQL %s, made %s\n' \
  "$(node -p 'require("./package.json").version')" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" \
  "$("$node_bin" --version)" "$pg_version" "$(date -u +%FT%TZ)" > "$root/MANIFEST"

step "packing $out"
mkdir -p "$(dirname "$out")"
tar -C "$stage" -cf - svc-scale-bench | xz -T0 -9 > "$out"
step "$(du -h "$out" | cut -f1) in $out; on the machine: tar -xJf $(basename "$out") -C /opt && /opt/svc-scale-bench/run.sh"
