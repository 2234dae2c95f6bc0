# FlowServer's container image: a Swift builder, then a slim Debian runtime.
# Build:  docker build -t flowserver .
# Run:    docker run -p 8080:8080 -v flowserver-data:/data flowserver

ARG SWIFT_IMAGE=swift:6.3-bookworm

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmicrohttpd-dev libsqlite3-dev pkg-config \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# Resolve dependencies in their own layer, so source edits do not fetch them again.
COPY Package.swift ./
RUN swift package resolve
COPY Sources ./Sources
RUN swift build -c release --static-swift-stdlib --product flowserver \
    && install -D "$(swift build -c release --show-bin-path)/flowserver" /out/flowserver

FROM debian:bookworm-slim AS runtime
# Only what `ldd flowserver` needs beyond the base image (checked by scripts/check-docker-runtime.sh).
RUN apt-get update \
    && apt-get install -y --no-install-recommends libmicrohttpd12 libsqlite3-0 libstdc++6 libgcc-s1 \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /app --shell /usr/sbin/nologin flowserver \
    && mkdir -p /app /data \
    && chown flowserver:flowserver /data
WORKDIR /app
COPY --from=build /out/flowserver /usr/local/bin/flowserver
COPY Templates ./Templates
USER flowserver
ENV FLOWSERVER_HOST=0.0.0.0 \
    FLOWSERVER_PORT=8080 \
    FLOWSERVER_STORE=sqlite:/data/flowserver.sqlite
VOLUME ["/data"]
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s --start-period=5s --retries=3 \
    CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && head -n 1 <&3 | grep -q ' 200 '"]
STOPSIGNAL SIGTERM
ENTRYPOINT ["flowserver"]
CMD ["--host", "0.0.0.0"]
