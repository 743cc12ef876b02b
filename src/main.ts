/** Starts the gateway: store, migrations, demo merchant, HTTP server and workers. */
import { loadConfig } from './config.ts';
import { createLogger } from './logger.ts';
import { assembleGateway, loadKeyring, openReplica, openStore } from './gateway.ts';
import { ensureDemoMerchant, sampleSessionRequest } from './demo.ts';
import { giveBootstrapAdminPassword, type Bootstrap } from './services/operators.ts';

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = await openStore(config);
  const replica = await openReplica(config);
  const keyring = await loadKeyring(config, logger);
  const gateway = await assembleGateway({ config, db, replica, keyring, logger, logRequests: true });
  // Production creates no demo merchant (issue 12): merchants come through the admin API.
  const demo = config.production ? undefined : await ensureDemoMerchant(db, keyring, config.demoMerchant);
  await gateway.app.listen({ port: config.port, host: config.host });
  if (gateway.apmApp) {
    await gateway.apmApp.listen({ port: config.s2sApmPort, host: config.host });
    logger.info({ port: config.s2sApmPort }, 'S2S APM listening on its own port: {s2s_apm_host}/post');
  }
  if (config.workers) gateway.startWorkers();
  // A first start outside production also gives the new admin a console password, so /admin works at once.
  const consolePassword = gateway.bootstrap?.generatedToken && !config.production
    ? await giveBootstrapAdminPassword(db, gateway.bootstrap.email, new Date())
    : undefined;
  printWelcome(config.baseUrl, config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`, demo, gateway.bootstrap, consolePassword);

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
      await gateway.close();
      await Promise.all([db.close(), replica?.close()]);
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

function printWelcome(baseUrl: string, store: string, demo: Awaited<ReturnType<typeof ensureDemoMerchant>>, bootstrap?: Bootstrap, consolePassword?: string): void {
  const lines = [
    '',
    `Portcullis is running at ${baseUrl} (store: ${store})`,
    `API docs: ${baseUrl}/docs`,
  ];
  if (bootstrap?.generatedToken) {
    lines.push(`Admin user ${bootstrap.email} created; its API token (shown once, keep it): ${bootstrap.generatedToken}`);
    if (consolePassword) {
      lines.push(`Operator console: ${baseUrl}/admin, sign in as ${bootstrap.email} with the password (shown once; change it on the Users screen): ${consolePassword}`);
    }
  } else if (bootstrap) {
    lines.push(`Admin user ${bootstrap.email} created with the token given in ADMIN_TOKEN.`);
  }
  if (demo) {
    lines.push(
      '',
      `Demo merchant${demo.created ? ' (created now)' : ''}:`,
      `  merchant_key: ${demo.key}`,
      `  password:     ${demo.password}`,
      '',
      'Open a payment session:',
      `  ${sampleSessionRequest(baseUrl, demo)}`,
      '',
      'Then open the redirect_url it returns in a browser and pay with the sandbox card',
      '  4111 1111 1111 1111, any CVV, expiry month decides the outcome:',
      '  01 success, 02 decline, 03 capture fails, 05 3-D Secure success, 06 3-D Secure decline, 12 redirect.',
    );
  } else {
    lines.push('', 'Merchants exist already; set DEMO_MERCHANT_KEY to print the demo merchant and a sample request.');
  }
  console.log(lines.join('\n'));
}

main().catch((err) => {
  console.error('Portcullis failed to start:', err instanceof Error ? err.message : err);
  process.exit(1);
});
