/**
 * Opening the configured store and its vault keys, as the gateway (main.ts, start.ts) and the admin command-line
 * tool (cli/admin.ts) do. Kept apart from gateway.ts, which loads every channel and worker: the tool, a child
 * process an operator runs for one command, loads only the store (about 0.8 s of CPU less per run).
 */
import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { Logger } from '../logger.ts';
import { openPglite, openPostgres, type Database } from './database.ts';
import { lockEmbeddedStore } from './embedded-lock.ts';
import { keyringFromEnv, type Keyring } from './card-vault.ts';

export async function openStore(config: Pick<Config, 'databaseUrl' | 'dataDir'>): Promise<Database> {
  if (config.databaseUrl) return openPostgres({ url: config.databaseUrl });
  await mkdir(config.dataDir, { recursive: true });
  const release = await lockEmbeddedStore(config.dataDir);
  const db = await openPglite(path.join(config.dataDir, 'pglite')).catch(async (err: unknown) => {
    await release();
    throw err;
  });
  return { ...db, close: () => db.close().finally(release) };
}

/** VAULT_KEYS when set; otherwise a key generated once and kept (mode 0600) beside the embedded data. */
export async function loadKeyring(config: Pick<Config, 'vaultKeys' | 'dataDir'>, logger: Logger): Promise<Keyring> {
  if (config.vaultKeys) return keyringFromEnv(config.vaultKeys, () => Buffer.alloc(0));
  const file = path.join(config.dataDir, 'vault.key');
  let key: Buffer;
  try {
    key = Buffer.from((await readFile(file, 'utf8')).trim(), 'base64');
  } catch {
    key = randomBytes(32);
    await mkdir(config.dataDir, { recursive: true });
    await writeFile(file, key.toString('base64'), { mode: 0o600 });
    logger.warn({ file }, 'VAULT_KEYS not set: generated a card vault key; set VAULT_KEYS in production');
  }
  return keyringFromEnv(undefined, () => key);
}
