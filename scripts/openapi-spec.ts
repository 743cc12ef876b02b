/**
 * Writes the gateway's own OpenAPI description (what /docs/json serves) to a file, without a server or a data
 * directory: an in-memory embedded store, the app assembled as `npm start` does, its spec dumped. The console's
 * API types are generated from it (scripts/build-console.mjs), so they are never written twice.
 * Usage: node --import tsx scripts/openapi-spec.ts OUT.json
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { loadConfig } from '../src/config.ts';
import { assembleGateway } from '../src/gateway.ts';
import { openPglite } from '../src/store/database.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';

const out = process.argv[2];
if (!out) throw new Error('usage: openapi-spec.ts OUT.json');
const db = await openPglite();
const config = { ...loadConfig({}), adminToken: undefined, production: false };
const gateway = await assembleGateway({ config, db, keyring: keyringFromEnv(undefined, () => Buffer.alloc(32, 1)), logger: createLogger('silent') });
await gateway.app.ready();
const spec = gateway.app.swagger();
await mkdir(path.dirname(out), { recursive: true });
await writeFile(out, `${JSON.stringify(spec, null, 2)}\n`);
await gateway.close();
await db.close();
