/**
 * The operator's command-line tool (issue 11): users, tokens and merchants without the HTTP API, on the
 * configured store (DATABASE_URL, or the embedded PGlite in DATA_DIR). It calls the same services as the admin
 * API, so the same rules and audit entries apply; the audit log names the actor `cli:<os user>`.
 *
 * The embedded store can be opened by one process at a time: stop the gateway first, or use the API.
 *
 *   npm run admin -- user create --email ops@example.com --role operator [--name "Olga"] [--password-stdin]
 *   npm run admin -- user list
 *   npm run admin -- user update --email ops@example.com [--role support] [--name ..] [--disable | --enable]
 *   npm run admin -- token create --email ops@example.com [--name deploy]
 *   npm run admin -- token list --email ops@example.com
 *   npm run admin -- token revoke --email ops@example.com (--id <token id> | --prefix pcop_abc123)
 *   npm run admin -- merchant create --name "Shop" [--sandbox | --live] [--notification-url https://..]
 *                                    [--hash-algorithm md5|sha256] [--merchant-key ..] [--password ..]
 *   npm run admin -- merchant list [--search ..]
 */
import { parseArgs } from 'node:util';
import { userInfo } from 'node:os';
import { loadConfig } from '../config.ts';
import { loadKeyring, openStore } from '../store/open.ts';
import { createLogger } from '../logger.ts';
import type { Keyring } from '../store/card-vault.ts';
import { migrate } from '../store/migrate.ts';
import type { Database } from '../store/database.ts';
import type { AuditActor } from '../store/audit-repo.ts';
import { findOperatorUserByEmail, listOperatorTokens, listOperatorUsers, type OperatorUser } from '../store/operators-repo.ts';
import { listMerchantRecords } from '../store/merchant-admin-repo.ts';
import { createOperatorToken, createOperatorUser, revokeOperatorTokenById, updateOperatorUserById } from '../services/admin/users.ts';
import { createMerchant } from '../services/admin/merchants.ts';
import { presentToken, presentUser } from '../channels/admin/user-routes.ts';
import { presentMerchant } from '../channels/admin/merchant-routes.ts';
import { isRole, ROLES, type Role } from '../domain/admin-roles.ts';
import { MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../domain/operator-passwords.ts';
import { isKnownOrPatterned } from '../domain/merchant-passwords.ts';
import { isEmail } from '../domain/methods/formats.ts';
import { GatewayError, errorBody } from '../domain/errors.ts';
import { callbackTargetPolicy, type CallbackTargetPolicy } from '../domain/callback-targets.ts';

/** A mistake of the command line itself: printed with the usage, exit code 2. */
class UsageError extends Error {}

const OPTIONS = {
  email: { type: 'string' }, role: { type: 'string' }, name: { type: 'string' }, 'password-stdin': { type: 'boolean' },
  disable: { type: 'boolean' }, enable: { type: 'boolean' }, id: { type: 'string' }, prefix: { type: 'string' },
  sandbox: { type: 'boolean' }, live: { type: 'boolean' }, 'notification-url': { type: 'string' }, 'hash-algorithm': { type: 'string' },
  'merchant-key': { type: 'string' }, password: { type: 'string' }, search: { type: 'string' }, help: { type: 'boolean', short: 'h' },
} as const;

type Args = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values'];

interface Run {
  db: Database;
  /** The vault keys (merchants' passwords are sealed with them). */
  keyring: Keyring;
  /** CALLBACK_ALLOWED_PRIVATE_HOSTS, as the gateway applies it to notification URLs. */
  targets: CallbackTargetPolicy;
  actor: AuditActor;
  now: () => Date;
  args: Args;
}

const USAGE = [
  'Usage: npm run admin -- <command> [options]',
  '  user create --email E --role admin|operator|support|viewer [--name N] [--password-stdin]',
  '  user list',
  '  user update --email E [--role R] [--name N] [--disable | --enable]',
  '  token create --email E [--name N]          prints the token once',
  '  token list --email E',
  '  token revoke --email E (--id ID | --prefix PREFIX)',
  '  merchant create --name N [--sandbox | --live] [--notification-url URL] [--hash-algorithm md5|sha256] [--merchant-key K] [--password P]',
  '  merchant list [--search S]',
  'Works on DATABASE_URL, or the embedded store in DATA_DIR (default ./.data): stop the gateway first, the embedded store takes one process.',
].join('\n');

function required(args: Args, name: 'email' | 'name'): string {
  const value = args[name];
  if (!value) throw new UsageError(`--${name} is required`);
  return value;
}

function roleOf(value: string | undefined): Role | undefined {
  if (value === undefined) return undefined;
  if (!isRole(value)) throw new UsageError(`--role must be one of ${ROLES.join(', ')}`);
  return value;
}

function emailOf(args: Args): string {
  const email = required(args, 'email');
  if (!isEmail(email)) throw new UsageError('--email is not a valid e-mail address');
  return email;
}

async function userByEmail(db: Database, args: Args): Promise<OperatorUser> {
  const user = await findOperatorUserByEmail(db, emailOf(args));
  if (!user) throw new UsageError(`no user with e-mail ${args.email}`);
  return user;
}

async function readPassword(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const password = Buffer.concat(chunks).toString('utf8').replace(/\r?\n$/, '');
  if (password.length < MIN_PASSWORD_LENGTH || password.length > MAX_PASSWORD_LENGTH) {
    throw new UsageError(`the password must have ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters`);
  }
  if (isKnownOrPatterned(password)) throw new UsageError('the password is too common: choose another (not a known or patterned password)');
  return password;
}

const COMMANDS: Record<string, (run: Run) => Promise<unknown>> = {
  async 'user create'({ db, actor, now, args }) {
    if (!args.role) throw new UsageError('--role is required');
    const role = roleOf(args.role) as Role;
    const password = args['password-stdin'] ? await readPassword() : undefined;
    return presentUser(await createOperatorUser(db, actor, { email: emailOf(args), name: args.name, role, password }, now()));
  },
  async 'user list'({ db }) {
    return { users: (await listOperatorUsers(db)).map(presentUser) };
  },
  async 'user update'({ db, actor, now, args }) {
    if (args.disable && args.enable) throw new UsageError('--disable and --enable exclude each other');
    const user = await userByEmail(db, args);
    const disabled = args.disable ? true : args.enable ? false : undefined;
    const updated = await updateOperatorUserById(db, actor, user.id, { role: roleOf(args.role), name: args.name, disabled }, now());
    return presentUser(updated as OperatorUser);
  },
  async 'token create'({ db, actor, now, args }) {
    const user = await userByEmail(db, args);
    const issued = await createOperatorToken(db, actor, user.id, args.name ?? 'cli', now());
    if (!issued) throw new UsageError(`no user with e-mail ${args.email}`);
    return { ...presentToken(issued.row), token: issued.token };
  },
  async 'token list'({ db, args }) {
    const user = await userByEmail(db, args);
    return { tokens: (await listOperatorTokens(db, user.id)).map(presentToken) };
  },
  async 'token revoke'({ db, actor, now, args }) {
    const user = await userByEmail(db, args);
    const tokens = await listOperatorTokens(db, user.id);
    const matching = tokens.filter((t) => (args.id !== undefined ? t.id === args.id : args.prefix !== undefined && t.prefix === args.prefix));
    if (args.id === undefined && args.prefix === undefined) throw new UsageError('--id or --prefix is required');
    if (matching.length !== 1) throw new UsageError(matching.length === 0 ? 'no such token for this user' : 'several tokens have this prefix: use --id');
    const outcome = await revokeOperatorTokenById(db, actor, user.id, matching[0]!.id, now());
    if (!outcome) throw new UsageError('no such token for this user');
    return presentToken('revoked' in outcome ? outcome.revoked : outcome.already);
  },
  async 'merchant create'({ db, keyring, actor, now, args, targets }) {
    if (args.sandbox && args.live) throw new UsageError('--sandbox and --live exclude each other');
    const digest = args['hash-algorithm'];
    if (digest !== undefined && digest !== 'md5' && digest !== 'sha256') throw new UsageError('--hash-algorithm must be md5 or sha256');
    const { merchant, password } = await createMerchant(db, keyring, actor, {
      name: required(args, 'name'), sandbox: !args.live, notificationUrl: args['notification-url'], digest,
      key: args['merchant-key'], password: args.password,
    }, now(), targets);
    return { ...presentMerchant(merchant, now()), password };
  },
  async 'merchant list'({ db, keyring, now, args }) {
    return { merchants: (await listMerchantRecords(db, keyring, { search: args.search, limit: 1000 })).map((m) => presentMerchant(m, now())) };
  },
};

async function main(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true });
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const command = COMMANDS[parsed.positionals.slice(0, 2).join(' ')];
  if (parsed.values.help || !command || parsed.positionals.length !== 2) {
    console.error(USAGE);
    return parsed.values.help ? 0 : 2;
  }
  const config = loadConfig();
  const db = await openStore(config);
  try {
    await migrate(db);
    const actor: AuditActor = { userId: null, name: `cli:${userInfo().username}` };
    const targets = callbackTargetPolicy(config.callbackAllowedPrivateHosts ?? [], config.callbackAllowedUrls ?? []);
    const keyring = await loadKeyring(config, createLogger('silent'));
    const result = await command({ db, keyring, actor, targets, now: () => new Date(), args: parsed.values });
    console.log(JSON.stringify(result, null, 2));
    return 0;
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`${err.message}\n\n${USAGE}`);
      return 2;
    }
    if (err instanceof GatewayError) {
      const body = errorBody(err);
      console.error([body.error_message, ...(body.errors ?? []).map((e) => `  ${e.error_message}`)].join('\n'));
      return 1;
    }
    throw err;
  } finally {
    await db.close();
  }
}

main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
}, (err) => {
  console.error('portcullis admin failed:', err instanceof Error ? err.message : err);
  process.exitCode = 1;
});
