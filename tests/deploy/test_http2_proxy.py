"""The compose proxy's HTTPS server (deploy/compose.tls.yml: deploy/nginx.conf with deploy/tls.conf included)
speaks HTTP/2 and carries many event streams on one connection, with a certificate from deploy/make-cert.sh.

A real nginx (Debian's; `.ci/run` installs it) runs the shipped files, changed only where the machine
differs from the compose network: the upstream addresses and ports, the include folder, the certificate
paths, and (for an nginx older than 1.25.1, which has no `http2` directive) `http2` as a `listen` parameter.
curl (with nghttp2) then opens eight streams in parallel over HTTPS.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
import time
from pathlib import Path

import httpx
import pytest

from service.edge.app import create_app
from tests.service.live.test_personal_stream import game_with
from testkit.api import player
from testkit.live import free_port, serving

pytestmark = pytest.mark.xdist_group("live")
ROOT = Path(__file__).parents[2]


def nginx_version() -> tuple[int, ...]:
    done = subprocess.run(["nginx", "-v"], capture_output=True, text=True)
    return tuple(int(n) for n in re.search(r"nginx/(\d+)\.(\d+)\.(\d+)", done.stderr).groups())


def configure(work: Path, upstream: str, plain: int, tls: int) -> Path:
    """The shipped proxy configuration with this machine's addresses; returns nginx.conf's path."""
    certs = work / "certs"
    made = subprocess.run(["sh", str(ROOT / "deploy" / "make-cert.sh"), str(certs)], capture_output=True, text=True)
    assert made.returncode == 0 and (certs / "stela.crt").exists(), made.stderr
    included = work / "stela.d"
    included.mkdir()
    main = (ROOT / "deploy" / "nginx.conf").read_text()
    main = re.sub(r"server api-\d:8000", f"server {upstream}", main).replace("listen 8080;", f"listen {plain};")
    main = main.replace("/etc/nginx/stela.d/", f"{included}/").replace("pid /tmp/nginx.pid;", f"pid {work}/nginx.pid;")
    main = main.replace("access_log /dev/stdout stela;", f"access_log {work}/access.log stela;")
    text = (ROOT / "deploy" / "tls.conf").read_text().replace("127.0.0.1:8080", f"127.0.0.1:{plain}")
    text = text.replace("/etc/nginx/certs/", f"{certs}/")
    assert "listen 8443 ssl;" in text and "    http2 on;\n" in text
    if nginx_version() < (1, 25, 1):
        text = text.replace("listen 8443 ssl;", f"listen {tls} ssl http2;").replace("    http2 on;\n", "")
    else:
        text = text.replace("listen 8443 ssl;", f"listen {tls} ssl;")
    (included / "tls.conf").write_text(text)
    (work / "nginx.conf").write_text(main)
    return work / "nginx.conf"


@pytest.fixture
def proxy(settings, games, tmp_path):
    if shutil.which("nginx") is None:
        pytest.fail("nginx is needed (.ci/run installs Debian's nginx-light)")
    with serving(create_app(settings, games=games)) as url:
        plain, tls = free_port(), free_port()
        conf = configure(tmp_path, url.removeprefix("http://"), plain, tls)
        checked = subprocess.run(["nginx", "-t", "-c", str(conf), "-e", "stderr"], capture_output=True, text=True)
        assert checked.returncode == 0, checked.stderr
        server = subprocess.Popen(["nginx", "-c", str(conf), "-e", "stderr", "-g", "daemon off;"],
                                  stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 20
            while subprocess.run(["curl", "-sk", f"https://127.0.0.1:{tls}/proxy-healthz"],
                                 capture_output=True).returncode != 0:
                assert server.poll() is None and time.monotonic() < deadline, server.stderr.read()
                time.sleep(0.1)
            yield url, f"https://127.0.0.1:{tls}", f"http://127.0.0.1:{plain}"
        finally:
            server.terminate()
            server.wait(10)


async def test_eight_event_streams_share_one_http2_connection_through_the_proxy(proxy):
    direct, https, plain = proxy
    async with httpx.AsyncClient(base_url=direct) as client:
        ann, bob = await player(client, "Ann"), await player(client, "Bob")
        games = [await game_with(client, [ann, bob]) for _ in range(8)]
    token = ann["headers"]["Authorization"]
    args = ["curl", "-sk", "--http2", "--parallel", "--parallel-max", "10", "--max-time", "4",
            "-H", f"Authorization: {token}", "-w", "%{http_version} %{num_connects} %{response_code}\\n"]
    for game_id in games:
        args += ["-o", "-", f"{https}/v1/games/{game_id}/stream"]
    done = await asyncio.to_thread(subprocess.run, args, capture_output=True, text=True, timeout=60)
    lines = done.stdout.splitlines()
    summaries = [line.split() for line in lines if re.fullmatch(r"2 \d+ 200", line)]
    assert len(summaries) == 8, done.stdout[-2000:] + done.stderr
    assert sum(int(s[1]) for s in summaries) == 1, "one connection carries all eight streams"
    assert sum(1 for line in lines if line == "event: snapshot") == 8, "every stream got its snapshot"

    # the multiplexed stream passes unbuffered too, over HTTPS and over the plain port
    for base in (https, plain):
        streamed = await asyncio.to_thread(subprocess.run, [
            "curl", "-skN", "--max-time", "3", "-H", f"Authorization: {token}",
            f"{base}/v1/stream?games={','.join(games)}&personal=true"], capture_output=True, text=True, timeout=30)
        assert streamed.stdout.count('"type":"snapshot"') == 8 and '"type":"ready"' in streamed.stdout, base
