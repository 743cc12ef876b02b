/**
 * The sandbox APM provider's state, as a port the sandbox owns: its payments and outbox (the engine) and its
 * accounts and records (the provider's HTTP side). `sqlSandboxStore` keeps them in the gateway's database
 * (tables sandbox_apm_payments, sandbox_outbox, sandbox_provider_accounts, sandbox_provider_records); nothing
 * outside src/sandbox/ reads them. Every decision is a compare-and-set on the row's pending state.
 */
import type { Sql } from '../../services/context.ts';
import type { ApmExperience, ProviderState } from '../../connectors/apm-types.ts';

export interface SandboxApmRow {
  reference: string;
  end_to_end_id: string;
  method: string;
  experience: ApmExperience;
  intent: string;
  merchant_name: string;
  amount: bigint;
  currency: string;
  description: string;
  payer_email: string | null;
  payer_phone: string | null;
  state: ProviderState;
  reason: string | null;
  otp_code: string | null;
  otp_failures: number;
  expires_at: Date | null;
  return_url: string | null;
  security_question: string | null;
  security_answer_digest: string | null;
  answer_failures: number;
  payee_name: string | null;
  account_uuid: string | null;
  fee_calculation_method: string | null;
}

/** A payment as initiate() starts it. */
export type NewSandboxPayment = Pick<SandboxApmRow, 'reference' | 'end_to_end_id' | 'method' | 'experience' | 'intent' | 'merchant_name' | 'amount' | 'currency'
  | 'description' | 'payer_email' | 'payer_phone' | 'state' | 'reason' | 'expires_at' | 'return_url'>;

/** A payout as payout() records it (a mail payout with its security question). */
export type NewSandboxPayout = Pick<SandboxApmRow, 'reference' | 'end_to_end_id' | 'method' | 'experience' | 'merchant_name' | 'amount' | 'currency' | 'description'
  | 'payer_email' | 'payer_phone' | 'state' | 'reason' | 'security_question' | 'security_answer_digest' | 'payee_name' | 'account_uuid' | 'fee_calculation_method'>;

export interface OutboxRow {
  id: string;
  channel: 'email' | 'sms' | 'push';
  recipient: string;
  subject: string;
  body: string;
  link: string | null;
  created_at: Date;
}

export interface SandboxApmStore {
  insertPayment(p: NewSandboxPayment, now: Date): Promise<SandboxApmRow>;
  insertPayout(p: NewSandboxPayout, now: Date): Promise<SandboxApmRow>;
  find(reference: string): Promise<SandboxApmRow | undefined>;
  /** The newest record of a gateway payment (one the payer chose again has older, withdrawn ones). */
  newestFor(endToEndId: string): Promise<SandboxApmRow | undefined>;
  setCode(reference: string, code: string): Promise<void>;
  /** Counts a wrong code or answer on a pending payment; undefined when it is no longer pending. */
  countFailure(reference: string, counter: 'otp_failures' | 'answer_failures', now: Date): Promise<SandboxApmRow | undefined>;
  /** Moves a pending payment to its final state; undefined when it was not pending. */
  decide(reference: string, state: ProviderState, reason: string | null, now: Date): Promise<SandboxApmRow | undefined>;
  send(message: Omit<OutboxRow, 'created_at'>, now: Date): Promise<void>;
  /** The newest messages sent to one address, at most 50. */
  outbox(recipient: string): Promise<OutboxRow[]>;
}

export interface ProviderAccountRow {
  api_key: string;
  secret_digest: string;
  public_key: string;
}

export interface SandboxProviderStore {
  insertAccount(account: ProviderAccountRow, now: Date): Promise<void>;
  account(apiKey: string): Promise<ProviderAccountRow | undefined>;
  /** Keeps a record (a token, payment, reference, payer or voucher), replacing the data of one with the same kind and id. */
  record(kind: string, id: string, apiKey: string, data: unknown, now: Date): Promise<void>;
  findRecord<T>(kind: string, id: string): Promise<{ apiKey: string; data: T } | undefined>;
  /** Sets a flag on a record of this account once (compare-and-set); undefined when it was set already. */
  claimRecord<T>(kind: string, id: string, apiKey: string, flag: string): Promise<T | undefined>;
  /** The newest payment record of an account with a public id whose create call was answered. */
  answeredPayment<T>(apiKey: string, publicId: string): Promise<{ id: string; data: T } | undefined>;
}

const COUNTERS = { otp_failures: 'otp_failures', answer_failures: 'answer_failures' } as const;

export function sqlSandboxStore(db: Sql): SandboxApmStore & SandboxProviderStore {
  const one = async <T>(text: string, params: unknown[]): Promise<T | undefined> => (await db.query<T>(text, params))[0];
  return {
    async insertPayment(p, now) {
      return (await one<SandboxApmRow>(
        `INSERT INTO sandbox_apm_payments (reference, end_to_end_id, method, experience, intent, merchant_name, amount, currency, description,
           payer_email, payer_phone, state, reason, expires_at, return_url, created_at, updated_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $16) RETURNING *`,
        [p.reference, p.end_to_end_id, p.method, p.experience, p.intent, p.merchant_name, p.amount, p.currency, p.description,
          p.payer_email, p.payer_phone, p.state, p.reason, p.expires_at, p.return_url, now],
      ))!;
    },
    async insertPayout(p, now) {
      return (await one<SandboxApmRow>(
        `INSERT INTO sandbox_apm_payments (reference, end_to_end_id, method, experience, intent, merchant_name, amount, currency, description,
           payer_email, payer_phone, state, reason, security_question, security_answer_digest, payee_name, account_uuid, fee_calculation_method, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'payout', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $18) RETURNING *`,
        [p.reference, p.end_to_end_id, p.method, p.experience, p.merchant_name, p.amount, p.currency, p.description,
          p.payer_email, p.payer_phone, p.state, p.reason, p.security_question, p.security_answer_digest, p.payee_name, p.account_uuid,
          p.fee_calculation_method, now],
      ))!;
    },
    find: (reference) => one<SandboxApmRow>('SELECT * FROM sandbox_apm_payments WHERE reference = $1', [reference]),
    newestFor: (endToEndId) => one<SandboxApmRow>(
      "SELECT * FROM sandbox_apm_payments WHERE end_to_end_id = $1 ORDER BY created_at DESC, (state = 'rejected') LIMIT 1", [endToEndId]),
    async setCode(reference, code) {
      await db.query('UPDATE sandbox_apm_payments SET otp_code = $2 WHERE reference = $1', [reference, code]);
    },
    countFailure: (reference, counter, now) => one<SandboxApmRow>(
      `UPDATE sandbox_apm_payments SET ${COUNTERS[counter]} = ${COUNTERS[counter]} + 1, updated_at = $2 WHERE reference = $1 AND state = $3 RETURNING *`,
      [reference, now, 'pending']),
    decide: (reference, state, reason, now) => one<SandboxApmRow>(
      'UPDATE sandbox_apm_payments SET state = $2, reason = $3, updated_at = $4 WHERE reference = $1 AND state = $5 RETURNING *',
      [reference, state, reason, now, 'pending']),
    async send(m, now) {
      await db.query(
        'INSERT INTO sandbox_outbox (id, channel, recipient, subject, body, link, created_at) VALUES ($1, $2, $3, $4, $5, $6, $7)',
        [m.id, m.channel, m.recipient, m.subject, m.body, m.link, now],
      );
    },
    outbox: (recipient) => db.query<OutboxRow>('SELECT * FROM sandbox_outbox WHERE lower(recipient) = lower($1) ORDER BY seq DESC LIMIT 50', [recipient]),

    async insertAccount(a, now) {
      await db.query('INSERT INTO sandbox_provider_accounts (api_key, secret_digest, public_key, created_at) VALUES ($1, $2, $3, $4)',
        [a.api_key, a.secret_digest, a.public_key, now]);
    },
    account: (apiKey) => one<ProviderAccountRow>('SELECT * FROM sandbox_provider_accounts WHERE api_key = $1', [apiKey]),
    async record(kind, id, apiKey, data, now) {
      await db.query(
        `INSERT INTO sandbox_provider_records (kind, id, api_key, data, created_at) VALUES ($1, $2, $3, $4, $5)
         ON CONFLICT (kind, id) DO UPDATE SET data = EXCLUDED.data`,
        [kind, id, apiKey, JSON.stringify(data), now],
      );
    },
    async findRecord<T>(kind: string, id: string) {
      const row = await one<{ api_key: string; data: T }>('SELECT api_key, data FROM sandbox_provider_records WHERE kind = $1 AND id = $2', [kind, id]);
      return row && { apiKey: row.api_key, data: row.data };
    },
    async claimRecord<T>(kind: string, id: string, apiKey: string, flag: string) {
      const row = await one<{ data: T }>(
        `UPDATE sandbox_provider_records SET data = data || jsonb_build_object($4::text, true)
         WHERE kind = $1 AND id = $2 AND api_key = $3 AND data->>$4 IS NULL RETURNING data`,
        [kind, id, apiKey, flag],
      );
      return row?.data;
    },
    answeredPayment: <T>(apiKey: string, publicId: string) => one<{ id: string; data: T }>(
      `SELECT id, data FROM sandbox_provider_records WHERE kind = 'payment' AND api_key = $1 AND data->>'public_id' = $2 AND data->'answer' IS NOT NULL
       ORDER BY created_at DESC LIMIT 1`, [apiKey, publicId]),
  };
}
