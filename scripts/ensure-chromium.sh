#!/bin/sh
# Installs Debian's Chromium for the browser tests when it is missing and we are root.
# Elsewhere the browser tests skip with a visible reason.
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "Installing Debian's chromium for the browser tests (apt-get)..."
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null) \
        || echo "warning: could not install chromium; browser tests will skip"
else
    echo "note: /usr/bin/chromium missing and not root; browser tests will skip"
fi
exit 0
