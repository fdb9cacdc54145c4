# ricorda: a two-stage image. The build stage has the compiler (llama.cpp is built from source
# by llama-cpp-python) and turns ricorda and every dependency into wheels; the final stage
# installs those wheels only: no compiler, no build tools, a non-root user, /data a volume.
#
#   docker build -t ricorda .                      # every platform, llama-cpp (RICORDA_LLM=llama-cpp)
#   docker build --build-arg EXTRAS=teams,llm -t ricorda .     # one platform: a smaller image
#   docker build --build-arg EXTRAS=all,llm,bge -t ricorda .   # also BGE-M3 (torch: large)

ARG PYTHON=python:3.11-slim-bookworm

FROM ${PYTHON} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends build-essential cmake git fonts-wqy-microhei \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY pyproject.toml README.md ./
COPY adapters adapters
COPY bot bot
COPY core core
COPY storage storage
ARG EXTRAS=all,llm
# llama.cpp built for any x86-64 with AVX2, not -march=native: the image runs on other machines
# than the one that built it, and ggml's AMX path crashed on a processor that has AMX
ARG LLAMA_CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF"
RUN CMAKE_ARGS="${LLAMA_CMAKE_ARGS}" pip wheel --no-cache-dir --wheel-dir /wheels ".[${EXTRAS}]"

FROM ${PYTHON}
ARG EXTRAS=all,llm
RUN useradd --system --uid 10001 --user-group --home-dir /data --no-create-home \
        --shell /usr/sbin/nologin ricorda \
    && mkdir -p /data && chown ricorda:ricorda /data
COPY --from=build /wheels /wheels
# a font with Chinese glyphs for chart labels (adapters/charts.py), copied rather than installed:
# the final stage runs no package manager
COPY --from=build /usr/share/fonts/truetype/wqy /usr/share/fonts/truetype/wqy
RUN pip install --no-cache-dir --no-index --find-links /wheels "ricorda[${EXTRAS}]" \
    && rm -rf /wheels
ENV RICORDA_DATA_DIR=/data \
    RICORDA_METRICS_HOST=0.0.0.0 \
    RICORDA_METRICS_PORT=9108 \
    PYTHONUNBUFFERED=1 \
    HF_HUB_OFFLINE=1 \
    TRANSFORMERS_OFFLINE=1 \
    ANONYMIZED_TELEMETRY=False
VOLUME ["/data"]
WORKDIR /data
USER ricorda
# /healthz: Slack HTTP events on 3000, a Telegram webhook on 8443, Teams' /api/messages on 3978
EXPOSE 9108 3000 8443 3978
# 503 while warming up (models, indexes) and when a part is down: unhealthy until ready
HEALTHCHECK --interval=15s --timeout=5s --start-period=180s --retries=3 \
    CMD ["python", "-c", "import os, urllib.request; urllib.request.urlopen('http://127.0.0.1:%s/healthz' % os.environ.get('RICORDA_METRICS_PORT', '9108'), timeout=4)"]
ENTRYPOINT ["ricorda"]
CMD ["serve"]
