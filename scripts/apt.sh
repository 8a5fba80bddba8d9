#!/bin/sh
# Debian packages the set-up needs and the system lacks: named first, installed with apt-get
# only when that is agreed — asked at a terminal, or SUDYA_APT=yes, or under CI (CI=true) —
# and only as root; otherwise the command to run is printed and the set-up stops.
# Usage: sh scripts/apt.sh PACKAGE...
set -eu
echo "sudya: these Debian packages are missing: $*"
agreed=${SUDYA_APT:-}
if [ -z "$agreed" ] && [ -n "${CI:-}" ]; then
  agreed=yes
fi
if [ -z "$agreed" ] && [ -t 0 ]; then
  printf "sudya: install them now with apt-get? [y/N] "
  read -r answer || answer=
  case "$answer" in [yYдД]*) agreed=yes ;; esac
fi
if [ "$agreed" != yes ]; then
  echo "sudya: install them yourself (as root): apt-get install $*"
  echo "sudya: or run again with SUDYA_APT=yes to let the set-up do it"
  exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
  echo "sudya: apt-get needs root: sudo apt-get install $*"
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@"
