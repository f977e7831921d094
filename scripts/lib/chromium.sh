# Headless Chromium for the browser test of the operations page (test/integration/opsPage.test.ts):
# Debian's `chromium` package, driven by playwright-core. No browser is ever downloaded by npm.
# Sourced after common.sh; idempotent.

CHROMIUM_BIN="${CHROMIUM_PATH:-/usr/bin/chromium}"

ensure_chromium() {
  if [[ -x "$CHROMIUM_BIN" ]]; then return 0; fi
  if [[ "$(id -u)" == 0 ]] && command -v apt-get >/dev/null 2>&1; then
    say "installing Debian's chromium for the browser test (apt-get install chromium)"
    # Another apt run may hold the lock for a while: wait for it rather than fail.
    apt-get -o DPkg::Lock::Timeout=600 update -qq >/dev/null 2>&1 || true
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >/dev/null \
      || say "could not install chromium: the browser test of the operations page will fail"
  else
    say "no $CHROMIUM_BIN and no apt-get as root: the browser test of the operations page will fail (set CHROMIUM_PATH)"
  fi
  [[ -x "$CHROMIUM_BIN" ]] && say "chromium: $CHROMIUM_BIN"
  return 0
}
