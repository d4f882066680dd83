#!/bin/sh
# What the official node image's entrypoint does: an option or a word that
# is not a command runs under node; anything else runs as it is.
set -e
if [ "${1#-}" != "${1}" ] || [ -z "$(command -v "${1}")" ] || { [ -f "${1}" ] && ! [ -x "${1}" ]; }; then
  set -- node "$@"
fi
exec "$@"
