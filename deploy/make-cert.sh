#!/bin/sh
# A self-signed certificate for the compose proxy's HTTPS/HTTP2 port (deploy/compose.tls.yml), valid for
# localhost and 127.0.0.1, written to data/certs/ (never committed, never in the image). Browsers warn about
# it until you accept it once (open https://localhost:8443/healthz); for one they trust outright, use
# mkcert instead: `mkcert -install && mkcert -cert-file data/certs/stela.crt -key-file data/certs/stela.key
# localhost 127.0.0.1`.
set -eu
dir="${1:-data/certs}"
mkdir -p "$dir"
if [ -s "$dir/stela.crt" ] && [ -s "$dir/stela.key" ]; then
    echo "$dir/stela.crt exists; delete it to make a new one"
    exit 0
fi
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -sha256 -nodes -days 365 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost,IP:127.0.0.1,IP:::1" \
    -keyout "$dir/stela.key" -out "$dir/stela.crt" 2>/dev/null
chmod 644 "$dir/stela.key"  # nginx's workers read it inside the container; it guards only localhost
echo "wrote $dir/stela.crt and $dir/stela.key"
