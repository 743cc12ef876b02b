/**
 * What `npm start` does, as one function the tests call too: open the store, assemble the gateway, create the demo
 * merchant on an empty store (outside production), listen, start the workers, and tell whoever started it how to
 * pay. On a first start the credentials shown once (the admin's token and console password, the demo merchant's
 * key and password) are also written to a file in DATA_DIR (mode 0600), deleted once the admin changes the console
 * password; when stdout is a terminal the welcome is printed again once start-up's log lines have passed.
 */
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from './config.ts';
import { createLogger, type Logger } from './logger.ts';
import { assembleGateway, loadKeyring, openReplica, openStore, type Gateway } from './gateway.ts';
import { ensureDemoMerchant, sampleSessionRequest, type DemoMerchant } from './demo.ts';
import { consolePasswordDigest, consolePasswordUnchanged, giveBootstrapAdminPassword, type Bootstrap } from './services/operators.ts';
import type { Database } from './store/database.ts';

/** The first start's credentials file, in DATA_DIR. */
export const CREDENTIALS_FILE = 'first-start-credentials.txt';
/** How long after listening the welcome is printed again on a terminal. */
const REPRINT_AFTER_MS = 3000;
/** How often the credentials file's owner checks whether the admin changed the console password. */
const PASSWORD_POLL_MS = 10_000;

export interface StartOptions {
  logger?: Logger;
  /** Where the welcome goes (default: stdout). */
  print?: (text: string) => void;
  /** Whether stdout is a terminal (default: process.stdout.isTTY). */
  terminal?: boolean;
  reprintAfterMs?: number;
  passwordPollMs?: number;
}

export interface StartedGateway {
  gateway: Gateway;
  demo?: DemoMerchant;
  /** The welcome as printed. */
  welcome: string;
  /** The credentials file, when this start wrote one. */
  credentialsFile?: string;
  /** Drains requests and workers, then closes the store. */
  stop(): Promise<void>;
}

export async function startGateway(config: Config, opts: StartOptions = {}): Promise<StartedGateway> {
  const logger = opts.logger ?? createLogger(config.logLevel);
  const print = opts.print ?? ((text: string) => console.log(text));
  const db = await openStore(config);
  const replica = await openReplica(config);
  const keyring = await loadKeyring(config, logger);
  // A request's line is short; in development it is a debug line, so the default LOG_LEVEL=info leaves it out.
  // /docs signs its examples for the demo merchant (once it exists), so that they work as they are on a fresh store.
  let demo: DemoMerchant | undefined;
  const gateway = await assembleGateway({
    config, db, replica, keyring, logger, logRequests: true, requestLogLevel: config.production ? 'info' : 'debug', docsMerchant: () => demo,
  });
  // Production creates no demo merchant (issue 12): merchants come through the admin API.
  demo = config.production ? undefined : await ensureDemoMerchant(db, keyring, config.demoMerchant);
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

  const file = path.join(config.dataDir, CREDENTIALS_FILE);
  const secrets = credentialLines(config.baseUrl, demo, gateway.bootstrap, consolePassword);
  let credentialsFile: string | undefined;
  if (secrets.length > 0) {
    credentialsFile = await keepCredentials(file, config.baseUrl, secrets).catch((err: Error) => {
      // On PostgreSQL nothing else needs DATA_DIR, which may be read-only (a container): the terminal has them.
      logger.warn({ file, err: { message: err.message } }, 'could not keep the first start\'s credentials in DATA_DIR: they are on the terminal only');
      return undefined;
    });
  }
  const welcome = welcomeText(config.baseUrl, config.databaseUrl ? 'PostgreSQL' : `embedded PGlite in ${config.dataDir}`, demo, gateway.bootstrap, consolePassword, credentialsFile);
  print(welcome);

  const timers: NodeJS.Timeout[] = [];
  if (opts.terminal ?? process.stdout.isTTY === true) {
    timers.push(setTimeout(() => print(welcome), opts.reprintAfterMs ?? REPRINT_AFTER_MS));
  }
  const watched = consolePassword && gateway.bootstrap
    ? { email: gateway.bootstrap.email, digest: await consolePasswordDigest(db, gateway.bootstrap.email) }
    : await leftoverFile(db, file, gateway.bootstrap);
  if (watched) {
    const poll = setInterval(() => {
      consolePasswordDigest(db, watched.email).then(async (digest) => {
        if (digest === watched.digest) return;
        clearInterval(poll);
        await rm(file, { force: true });
        logger.info({ file }, 'the admin changed the first console password: the first-start credentials file is deleted');
      }, (err: Error) => logger.warn({ err: { message: err.message } }, 'could not check the admin\'s console password'));
    }, opts.passwordPollMs ?? PASSWORD_POLL_MS);
    timers.push(poll);
  }
  for (const t of timers) t.unref();

  return {
    gateway,
    ...(demo ? { demo } : {}),
    welcome,
    ...(credentialsFile ? { credentialsFile } : {}),
    async stop() {
      for (const t of timers) clearTimeout(t);
      await gateway.close();
      await Promise.all([db.close(), replica?.close()]);
    },
  };
}

/**
 * A credentials file left by an earlier first start: deleted at once when its console password no longer signs in,
 * else watched like a new one.
 */
async function leftoverFile(db: Database, file: string, bootstrap: Bootstrap | undefined): Promise<{ email: string; digest: string | undefined } | undefined> {
  if (bootstrap) return undefined;
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return undefined;
  }
  const match = /^Operator console: .* sign in as (\S+) with the password: (\S+)$/m.exec(text);
  if (!match || !(await consolePasswordUnchanged(db, match[1]!, match[2]!))) {
    await rm(file, { force: true });
    return undefined;
  }
  return { email: match[1]!, digest: await consolePasswordDigest(db, match[1]!) };
}

/**
 * Writes the first start's credentials (mode 0600) into DATA_DIR, made if missing: with PostgreSQL as the store
 * nothing else creates it. Answers the file's path.
 */
async function keepCredentials(file: string, baseUrl: string, secrets: readonly string[]): Promise<string> {
  await mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  await writeFile(file, [
    `Portcullis first start, ${new Date().toISOString()} (${baseUrl}). Shown once on the terminal, kept here.`,
    'This file is deleted once the admin changes the console password (Users screen of /admin).',
    '', ...secrets, '',
  ].join('\n'), { mode: 0o600 });
  await chmod(file, 0o600); // an existing file keeps its mode through writeFile
  return file;
}

/** The lines holding what is shown once: the file's content and the welcome's middle. */
function credentialLines(baseUrl: string, demo: DemoMerchant | undefined, bootstrap?: Bootstrap, consolePassword?: string): string[] {
  const lines: string[] = [];
  if (bootstrap?.generatedToken) {
    lines.push(`Admin user ${bootstrap.email}: API token (Authorization: Bearer): ${bootstrap.generatedToken}`);
    if (consolePassword) lines.push(`Operator console: ${baseUrl}/admin, sign in as ${bootstrap.email} with the password: ${consolePassword}`);
  }
  if (demo?.created) lines.push(`Demo merchant: merchant_key ${demo.key}, password ${demo.password}`);
  return lines;
}

export function welcomeText(baseUrl: string, store: string, demo: DemoMerchant | undefined, bootstrap?: Bootstrap, consolePassword?: string, credentialsFile?: string): string {
  const lines = [
    '',
    `Portcullis is running at ${baseUrl} (store: ${store})`,
    `API docs: ${baseUrl}/docs (admin API: ${baseUrl}/docs/admin)`,
  ];
  if (bootstrap?.generatedToken) {
    lines.push(`Admin user ${bootstrap.email} created; its API token (shown once, keep it): ${bootstrap.generatedToken}`);
    if (consolePassword) {
      lines.push(`Operator console: ${baseUrl}/admin, sign in as ${bootstrap.email} with the password (shown once; change it on the Users screen): ${consolePassword}`);
    }
  } else if (bootstrap) {
    lines.push(`Admin user ${bootstrap.email} created with the token given in ADMIN_TOKEN.`);
  }
  if (credentialsFile) lines.push(`These credentials are also in ${credentialsFile} (mode 0600), deleted once the admin changes the console password.`);
  if (demo) {
    lines.push(
      '',
      `Demo merchant${demo.created ? ' (created now)' : ''}:`,
      `  merchant_key: ${demo.key}`,
      `  password:     ${demo.password}`,
      `  callbacks go to the sandbox merchant inbox: ${baseUrl}/sandbox/inbox`,
      '',
      'Open a payment session:',
      `  ${sampleSessionRequest(baseUrl, demo)}`,
      '',
      'Then open the redirect_url it returns in a browser and pay with the sandbox card',
      '  4111 1111 1111 1111, any CVV, expiry month decides the outcome:',
      '  01 success, 02 decline, 03 capture fails, 05 3-D Secure success, 06 3-D Secure decline, 12 redirect.',
      `The payer returns to ${baseUrl}/sandbox/inbox, where the payment's callback shows with its hash and webhook-signature verified.`,
    );
  } else {
    lines.push('', 'Merchants exist already; set DEMO_MERCHANT_KEY to print the demo merchant and a sample request.');
  }
  return lines.join('\n');
}
