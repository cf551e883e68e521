# The image: the `gaps` binary and the few C libraries it links (glibc, libgcc_s) on an
# empty base, with no shell and no package manager; it runs as uid 10001 with its data
# in the /data volume, and checks its own health (`gaps health`).
#
# `docker build .` compiles from source (the last stage). scripts/docker-test.sh builds
# `--target prebuilt` instead, from a context holding only a release binary built on the
# host (a Debian bookworm machine, as the build stage is): the same image, without a
# second compilation. Stages are in the order the classic builder needs to stop early
# (it builds every stage up to its target, used or not).

# The files around the binary (/rootfs): its user, /data owned by it, /tmp; and a tool
# that copies the libraries a binary links (as `ldd` lists them) beside it.
FROM debian:bookworm-slim AS files
RUN mkdir -p /rootfs/etc /rootfs/data /rootfs/tmp /rootfs/usr/local/bin \
    && chmod 1777 /rootfs/tmp \
    && chown 10001:10001 /rootfs/data \
    && echo 'gaps:x:10001:10001::/data:/usr/local/bin/gaps' > /rootfs/etc/passwd \
    && echo 'gaps:x:10001:' > /rootfs/etc/group \
    && printf '%s\n' '#!/bin/sh' 'set -e' \
        'ldd "$1" | grep -o "/[^ ]*" | sort -u | while read -r lib; do cp --parents -L "$lib" "$2"; done' \
        > /usr/local/bin/copy-libs \
    && chmod 755 /usr/local/bin/copy-libs

# What every image holds but the binary and its libraries: those files and the
# settings of a node.
FROM scratch AS runtime
COPY --from=files /rootfs /
USER 10001:10001
WORKDIR /data
VOLUME ["/data"]
ENV GAPS_SERVER__LISTEN=0.0.0.0:8080 \
    GAPS_DATABASE__URL=sqlite:///data/gaps.db \
    GAPS_LOG__FORMAT=json
EXPOSE 8080
HEALTHCHECK --interval=30s --timeout=3s CMD ["/usr/local/bin/gaps", "health"]
ENTRYPOINT ["/usr/local/bin/gaps"]
CMD ["serve"]

# A binary built elsewhere: scripts/docker-test.sh puts it in the context as `gaps`,
# beside a copy of this file. The classic builder runs this stage in the plain build
# too, whose context has no `gaps` at its root: the stage then copies nothing.
FROM files AS prebuilt-files
COPY Dockerfile gaps* /staging/
RUN mkdir -p /binary/usr/local/bin \
    && if [ -f /staging/gaps ]; then \
        mv /staging/gaps /binary/usr/local/bin/gaps \
        && copy-libs /binary/usr/local/bin/gaps /binary; \
    fi

FROM runtime AS prebuilt
COPY --from=prebuilt-files /binary /

# The binary compiled from this context.
FROM rust:1-bookworm AS build
WORKDIR /src
COPY . .
RUN cargo build --release --locked --bin gaps \
    && objcopy --strip-debug target/release/gaps /gaps

FROM files AS built-files
COPY --from=build /gaps /binary/usr/local/bin/gaps
RUN copy-libs /binary/usr/local/bin/gaps /binary

FROM runtime
COPY --from=built-files /binary /
