# agentd worker image. Build: docker build -t agentd .   Run: see docker-compose.yml and README "Deploying".

# --- build: compile TypeScript and the native better-sqlite3 module ---
FROM node:20-bookworm-slim AS build
# better-sqlite3 falls back to compiling from source when no prebuilt binary matches.
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

# --- runtime: compiled code and production dependencies only, as a non-root user ---
FROM node:20-bookworm-slim
# run_command runs under bubblewrap; prlimit and setpriv come with util-linux, already in the image.
RUN apt-get update \
 && apt-get install -y --no-install-recommends bubblewrap \
 && rm -rf /var/lib/apt/lists/*
ENV NODE_ENV=production \
    AGENTD_HOME=/data \
    AGENTD_WORKSPACES=/data/workspaces
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist/src ./dist/src
# The prebuilt workflow bundle: without it the worker bundles at every start (seconds, and a warning).
COPY --from=build /app/dist/workflow-bundle.js /app/dist/workflow-bundle.manifest.json ./dist/
COPY bin ./bin
# The node image's unprivileged `node` user owns the data folder; volumes mounted there inherit it.
RUN mkdir -p /data/workspaces && chown -R node:node /data
USER node
VOLUME ["/data"]
# SIGTERM lets running activities finish before the worker exits (compose: stop_grace_period).
STOPSIGNAL SIGTERM
CMD ["node", "dist/src/worker.js"]
