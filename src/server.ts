import { ConfigError } from './config.js';
import { startTracing, TracingConfigError } from './telemetry.js';

/**
 * The entry point (npm start, the image). Tracing starts first when OTEL_EXPORTER_OTLP_ENDPOINT is set: its hooks
 * patch pg, ioredis and fastify only if they are loaded after it, so the service (src/main.ts) is imported after.
 */
try {
  const tracing = await startTracing();
  const { main } = await import('./main.js');
  await main(tracing);
} catch (err) {
  const known = err instanceof ConfigError || err instanceof TracingConfigError;
  process.stderr.write(`${known ? err.message : `Failed to start: ${err instanceof Error ? err.message : String(err)}`}\n`);
  process.exit(1);
}
