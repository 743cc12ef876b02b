/**
 * A gateway process for the connector benchmark (bench/connector.ts), on PostgreSQL in a schema of its own.
 * `upstream`: a sandbox merchant on the sandbox connector. `ours`: a merchant whose MID forwards to the upstream
 * with the `akurateco` connector (endpoint and credentials from UPSTREAM_URL, UPSTREAM_KEY, UPSTREAM_PASSWORD).
 * Prints one JSON line with its address and merchant; stops when stdin ends. Workers are not started in either,
 * so only the request path is measured (the upstream's callbacks to us stay in its outbox).
 */
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { assembleGateway } from '../src/gateway.ts';
import { loadConfig } from '../src/config.ts';
import { openPostgres } from '../src/store/database.ts';
import { keyringFromEnv } from '../src/store/card-vault.ts';
import { createLogger } from '../src/logger.ts';
import { insertMerchant, insertMid, midCredentialsOwner } from '../src/store/merchants-repo.ts';
import { sealSecret } from '../src/store/sealed-secrets.ts';
import { newId } from '../src/domain/ids.ts';

const url = process.env.BENCH_DATABASE_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/test';
const role = process.argv[2] === 'ours' ? 'ours' : 'upstream';
const schema = `bench_${role}_${randomBytes(4).toString('hex')}`;

async function main() {
  const db = await openPostgres({ url, schema, max: 20 });
  const keyring = keyringFromEnv(undefined, () => randomBytes(32));
  const config = { ...loadConfig({}), port: 0 };
  // Our gateway's notification endpoint is on loopback here: the upstream must accept it as a callback_url.
  if (role === 'upstream') config.callbackAllowedPrivateHosts = ['127.0.0.1'];
  // ... and ours sends the upstream full card data on loopback, which the connector target rule refuses unless the
  // operator names the host (CONNECTOR_ALLOWED_PRIVATE_HOSTS, as for an on-premise acquirer proxy).
  else config.connectorAllowedPrivateHosts = ['127.0.0.1'];
  const gateway = await assembleGateway({ config, db, keyring, logger: createLogger('silent') });
  const address = await gateway.app.listen({ port: 0, host: '127.0.0.1' });
  (gateway.ctx as { baseUrl: string }).baseUrl = address;
  const merchant = { id: newId(), key: `bench-${role}`, password: `bench-${role}-password` };
  await insertMerchant(db, keyring, { id: merchant.id, name: `Bench ${role}`, key: merchant.key, password: merchant.password, sandbox: role === 'upstream' });
  const midId = newId();
  if (role === 'upstream') {
    await insertMid(db, { id: midId, merchantId: merchant.id, name: 'Sandbox', connector: 'sandbox-card', paymentMode: 'SMS/DMS' });
  } else {
    const credentials = { client_key: process.env.UPSTREAM_KEY ?? '', password: process.env.UPSTREAM_PASSWORD ?? '' };
    await insertMid(db, {
      id: midId, merchantId: merchant.id, name: 'Upstream', connector: 'akurateco', paymentMode: 'SMS/DMS',
      settings: { endpoint: `${process.env.UPSTREAM_URL}/post` }, sealedCredentials: sealSecret(keyring, credentials, midCredentialsOwner(midId)),
    });
  }
  process.stdout.write(`${JSON.stringify({ address, merchant })}\n`);
  const shutdown = async () => {
    await gateway.close();
    await db.close();
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await client.end();
    process.exit(0);
  };
  process.stdin.on('end', () => void shutdown());
  process.stdin.resume();
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
