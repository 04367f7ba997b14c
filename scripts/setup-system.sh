#!/usr/bin/env bash
# Installs the system packages the project uses (GNSS tools, Chromium and poppler for the
# tests; a C++ toolchain for the quantum engine's native kernels, which npm install builds) and makes sure the local
# PostgreSQL server is running when the machine has one. Safe to run repeatedly.
set -uo pipefail

need=()
command -v gpsfake >/dev/null 2>&1 || need+=(gpsd gpsd-clients)
command -v rnx2rtkp >/dev/null 2>&1 || need+=(rtklib)
command -v g++ >/dev/null 2>&1 || need+=(g++)
command -v make >/dev/null 2>&1 || need+=(make)
command -v python3 >/dev/null 2>&1 || need+=(python3)
# Web pages are tested in Debian's Chromium through playwright-core; PDFs are checked with poppler.
command -v chromium >/dev/null 2>&1 || need+=(chromium)
command -v pdftotext >/dev/null 2>&1 || need+=(poppler-utils)
if [ ${#need[@]} -gt 0 ] && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  apt-get update -qq >/dev/null 2>&1 || true
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null 2>&1 \
    || echo "setup-system: could not install ${need[*]}"
fi

if command -v pg_ctlcluster >/dev/null 2>&1 && ! pg_isready -h 127.0.0.1 -q 2>/dev/null; then
  pg_ctlcluster --skip-systemctl-redirect "$(ls /etc/postgresql | head -n 1)" main start 2>/dev/null || true
fi
exit 0
