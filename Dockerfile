# svc-pos-sim: the server, the terminal emulator and bridge, the contract
# suite and every other command, as one image.
#
#   docker build -t svc-pos-sim .
#   docker run -p 3000:3000 -v svc-data:/data svc-pos-sim
#   docker run --rm --network host svc-pos-sim svc-contracts --base-url http://127.0.0.1:3000 --allow-mutations
#
# Behind a TLS-intercepting proxy, hand the build its CA bundle as a secret
# (never a layer): docker build --secret id=ca,src=/etc/ssl/certs/ca-certificates.crt .
# A serial device goes in with --device /dev/ttyUSB0 --group-add "$(stat -c %g /dev/ttyUSB0)"
# (the group that owns it, dialout on Debian). README.md, "Use it without cloning".

# Build: every dependency, the compiled commands, then the package exactly as
# it is published (npm pack), installed with production dependencies only.
FROM node:24-bookworm-slim AS build
WORKDIR /src
COPY . .
RUN --mount=type=secret,id=ca,required=false \
    if [ -s /run/secrets/ca ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca; fi; \
    npm ci --no-audit --no-fund \
    && npm pack --ignore-scripts --pack-destination /tmp \
    && mkdir -p /out/app \
    && tar -xzf /tmp/svc-pos-sim-*.tgz -C /out/app --strip-components=1 \
    && cp package-lock.json /out/app/ \
    && cd /out/app \
    && npm ci --omit=dev --prefer-offline --no-audit --no-fund \
    && rm -rf /root/.npm

# Run: the published package and its production dependencies, nothing else.
FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data
COPY --from=build /out/app /app
RUN set -eu; \
    cd /app; \
    for entry in $(node -p "Object.entries(require('./package.json').bin).map(([name, path]) => name + '=' + path).join(' ')"); do \
      chmod 0755 "/app/${entry#*=}"; \
      ln -s "/app/${entry#*=}" "/usr/local/bin/${entry%%=*}"; \
    done; \
    mkdir -p /data; \
    chown node:node /data
USER node
WORKDIR /data
VOLUME /data
EXPOSE 3000
# The base has no curl: Node's own fetch.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Exec form, node itself: docker stop's SIGTERM reaches the server, which stops its store cleanly.
CMD ["node", "/app/dist/server/main.js"]
