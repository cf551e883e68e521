# Multi-stage build: compile with the Rust toolchain, run from a small Debian image.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin gaps

FROM debian:bookworm-slim
RUN useradd --system --uid 10001 --home-dir /data gaps \
    && mkdir -p /data && chown gaps /data
COPY --from=build /src/target/release/gaps /usr/local/bin/gaps
USER gaps
WORKDIR /data
VOLUME ["/data"]
ENV GAPS_SERVER__LISTEN=0.0.0.0:8080 \
    GAPS_DATABASE__URL=sqlite:///data/gaps.db \
    GAPS_LOG__FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD ["/bin/bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/8080 && printf 'GET /healthz HTTP/1.0\\r\\n\\r\\n' >&3 && grep -q ' 200 ' <&3"]
ENTRYPOINT ["/usr/local/bin/gaps"]
CMD ["serve"]
