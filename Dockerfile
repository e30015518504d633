# syntax=docker/dockerfile:1
# Node 24 (the current LTS); the suite also runs on Node 20.19+ (package.json engines, .ci/run).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build && npm prune --omit=dev

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=3000 DATA_DIR=/data MEDIA_DIR=/app/media
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
COPY migrations ./migrations
# the live database functions, applied by migrate() after the migrations (src/db/functions.ts)
COPY src/db/functions ./src/db/functions
COPY demo ./demo
RUN mkdir -p /data /app/media && chown -R node:node /data /app/media
USER node
EXPOSE 3000
# METRICS_PORT (off unless set; 9464 in docker-compose.yml) serves GET /metrics for Prometheus
EXPOSE 9464
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD node -e "fetch('http://127.0.0.1:'+process.env.PORT+'/readyz').then(r=>process.exit(r.ok?0:1)).catch(()=>process.exit(1))"
CMD ["node", "dist/server.js"]
