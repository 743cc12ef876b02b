/** Starts the gateway (start.ts: store, migrations, demo merchant, HTTP server, workers) and stops it on a signal. */
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { startGateway } from './start.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const started = await startGateway(config, { logger });

  let stopping = false;
  /**
   * Graceful stop: the listener closes (a balancer's next connection goes elsewhere; requests arriving on
   * kept-alive connections get a D3 503 with `Connection: close`), requests in flight finish, workers claim no
   * more and finish or give back what they hold, then the store closes. A second signal, or a drain longer
   * than SHUTDOWN_TIMEOUT_MS, exits at once: what is left in flight is resolved by any node's workers.
   */
  const shutdown = async (signal: string) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: exiting now');
      process.exit(1);
    }
    stopping = true;
    logger.info({ signal }, 'shutting down: draining requests and workers');
    setTimeout(() => {
      logger.error({ timeoutMs: config.shutdownTimeoutMs }, 'shutdown did not finish in time: exiting');
      process.exit(1);
    }, config.shutdownTimeoutMs).unref();
    try {
      await started.stop();
    } catch (err) {
      logger.error({ err: (err as Error).message }, 'shutdown failed');
      process.exit(1);
    }
    logger.info('stopped');
    process.exit(0);
  };
  process.on('SIGINT', () => void shutdown('SIGINT'));
  process.on('SIGTERM', () => void shutdown('SIGTERM'));
}

main().catch((err) => {
  console.error('Portcullis failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
