# syntax=docker/dockerfile:1
#
# Stela image: one image, two processes.
#   docker run IMAGE            -> `stela serve`      (API, SSE, /healthz, /readyz on $STELA_PORT;
#                                                       /metrics only on $STELA_METRICS_PORT, default 9100)
#   docker run IMAGE projector  -> `stela projector`  (read-model projector; replicas elect a leader by advisory lock)
#   docker run IMAGE bot-worker -> `stela bot-worker` (plays the bots players ask for; needs STELA_ADMIN_TOKEN)
# Configured only by environment variables (see service/ops/settings.py): DATABASE_URL, REDIS_URL, STELA_*.

ARG PYTHON_IMAGE=python:3.11-slim

# ---------------------------------------------------------------------------
# build: install the distribution and its pinned dependencies into a venv
# ---------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS build

ENV PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    PYTHONDONTWRITEBYTECODE=1

RUN python -m venv /opt/venv
ENV PATH=/opt/venv/bin:$PATH

WORKDIR /src

# Dependencies first (from pyproject.toml only) so source edits reuse this layer.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > /tmp/requirements.txt \
    && pip install -r /tmp/requirements.txt

COPY domain ./domain
COPY projections ./projections
COPY service ./service
# the Python SDK the bots speak through ships inside the distribution (pyproject.toml: packages)
COPY clients/python/stela_client ./clients/python/stela_client
# the TypeScript SDK's browser modules, which the reference web client imports from /sdk/ (one source of
# truth: clients/typescript/dist, copied into the client's static files only here)
COPY clients/typescript/dist ./service/web/static/sdk
RUN pip install --no-deps . \
    && python -c "import service.cli.main, service.bots.runner"

# ---------------------------------------------------------------------------
# runtime: slim base, the venv, an unprivileged user, nothing else
# ---------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime

LABEL org.opencontainers.image.title="stela" \
      org.opencontainers.image.description="Event-sourced board-game service (REST + SSE API, projector)"

# Fixed numeric ids so Kubernetes can verify runAsNonRoot (runAsUser: 10001).
RUN groupadd --system --gid 10001 stela \
    && useradd --system --uid 10001 --gid 10001 --home-dir /app --no-create-home --shell /usr/sbin/nologin stela \
    && mkdir -p /app/data \
    && chown -R 10001:10001 /app

COPY --from=build /opt/venv /opt/venv

ENV PATH=/opt/venv/bin:$PATH \
    PYTHONUNBUFFERED=1 \
    PYTHONDONTWRITEBYTECODE=1 \
    STELA_HOST=0.0.0.0 \
    STELA_PORT=8000 \
    STELA_DATA_DIR=/app/data

WORKDIR /app
USER 10001:10001

# the API, and /metrics for Prometheus (STELA_METRICS_PORT)
EXPOSE 8000 9100

# Liveness of `stela serve` without curl. The projector serves no HTTP: compose disables this check
# for it and Kubernetes ignores HEALTHCHECK (it uses the probes in k8s/).
HEALTHCHECK --interval=15s --timeout=3s --start-period=30s --retries=3 \
    CMD ["python", "-c", "import os, sys, urllib.request; r = urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('STELA_PORT', '8000'), timeout=2); sys.exit(0 if r.status == 200 else 1)"]

# Exec form: stela is PID 1 and receives SIGTERM directly (graceful shutdown, SSE drain).
ENTRYPOINT ["stela"]
CMD ["serve"]
