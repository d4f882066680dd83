#!/usr/bin/env bash
# /opt/svc-scale-bench/run.sh [bench:scale options] — runs bench:scale from the
# bundle on a bare Linux x86-64 machine (docs/scale-bench-bundle.md). As root
# it makes the unprivileged "postgres" user that initdb requires, and the
# time zone files PostgreSQL reads, when the machine lacks them. Any other
# script of the bundle runs the same way: BENCH=bench-wal run.sh.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
pg_bin=$(ls -d "$here"/pg/usr/lib/postgresql/*/bin | tail -1)

if [ "$(id -u)" = 0 ]; then
  if ! id postgres >/dev/null 2>&1; then
    useradd --system --no-create-home --shell /usr/sbin/nologin postgres 2>/dev/null ||
      { echo 'postgres:x:997:997::/nonexistent:/usr/sbin/nologin' >>/etc/passwd && echo 'postgres:x:997:' >>/etc/group; }
  fi
  # The server runs as that user: it must reach its binaries.
  chmod -R a+rX "$here"
  p="$here"; while [ "$p" != / ]; do chmod a+x "$p"; p=$(dirname "$p"); done
  if [ ! -e /usr/share/zoneinfo/UTC ]; then
    mkdir -p /usr/share/zoneinfo
    cp -a "$here/pg/zoneinfo/." /usr/share/zoneinfo/
  fi
fi

export PATH="$here/node/bin:$pg_bin:$PATH:/usr/sbin:/sbin"
export LD_LIBRARY_PATH="$here/pg/libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export POSTGRES_BIN="$pg_bin" TZ=UTC LC_ALL=C
cd "$here/app"
cat "$here/MANIFEST" >&2
exec node "dist/scripts/${BENCH:-bench-scale}.js" "$@"
