/**
 * The sandbox APM provider's HTTP side (issue 17 item 8): what an `apm-provider` MID's connector calls, checking
 * each kind's mechanics as a provider would, on the wire. It issues accounts (API key, API secret, a key pair
 * whose private half goes to the MID), refuses calls whose X-API-Key/X-API-Secret, token or Signature do not
 * verify, checks each kind's required fields, and answers in the kind's words (qr_code_id, auth_method, address,
 * gateway_id, TransactionId...). The payment's life after that (the payer's pages, the outbox, the decision by
 * the payer's e-mail, D8) is the sandbox APM engine's (sandbox-apm.ts); when the payer decides, the provider
 * notifies the callback address the create call gave, and the gateway then asks for the status.
 */
import { createHash, createVerify, generateKeyPairSync, timingSafeEqual } from 'node:crypto';
import QRCode from 'qrcode';
import { bech32 } from 'bech32';
import cashaddr from 'cashaddrjs';
import type { Clock } from '../../domain/clock.ts';
import { GatewayError, type FieldError } from '../../domain/errors.ts';
import { newToken } from '../../domain/ids.ts';
import { parseAmount, formatAmount } from '../../domain/money.ts';
import { CHALLENGE_FIELDS, REFERENCE_PUBLIC_ID_MAX, currencyAlpha, signingString, type SignedValue } from '../../domain/methods/provider-kinds.ts';
import type { ApmExperience, ApmInitiateRequest, ProviderState } from '../../connectors/apm-types.ts';
import { maskContact, type SandboxApmConnector } from './engine.ts';
import type { ProviderAccountRow as Account, SandboxProviderStore } from './store.ts';

export const PROVIDER_PREFIX = '/sandbox/apm-provider';
const TOKEN_LIFETIME_MS = 10 * 60_000;
const TIMESTAMP_SKEW_MS = 5 * 60_000;
const PIX_LIFETIME_SECONDS = 900;
/** The sandbox mobile-money operator's fee, in basis points of the amount, when the payer bears it. */
const MOBILE_MONEY_FEE_BPS = 100n;
/** The card-by-bank provider's accounts offered to the payer (sandbox data). */
export const SANDBOX_BANK_ACCOUNTS = ['Current account ****1234', 'Savings account ****5678', 'Card account ****9012'] as const;

type Json = Record<string, unknown>;
export interface ProviderAnswer {
  status: number;
  body: Json;
}
export type Headers = Readonly<Record<string, string | string[] | undefined>>;

export interface SandboxProviderOptions {
  store: SandboxProviderStore;
  clock: Clock;
  baseUrl: () => string;
  engine: SandboxApmConnector;
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const str = (v: unknown): string | undefined => (typeof v === 'string' && v.trim() !== '' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : undefined);
const header = (h: Headers, name: string): string | undefined => {
  const v = h[name.toLowerCase()];
  return Array.isArray(v) ? v[0] : v;
};

function sameSecret(a: string, b: string): boolean {
  const x = Buffer.from(sha256(a));
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

function verifySignature(publicKey: string, text: string, signature: string): boolean {
  try {
    return createVerify('sha256').update(text).verify(publicKey, signature, 'base64');
  } catch {
    return false;
  }
}

const authRefused = () => new GatewayError('providerAuthInvalid');
const missing = (fields: readonly string[], body: Json): FieldError[] => fields.filter((f) => str(body[f]) === undefined).map((f) => ({ field: f, message: 'This value should not be blank.' }));
function requireFields(fields: readonly string[], body: Json): void {
  const errors = missing(fields, body);
  if (errors.length > 0) throw GatewayError.invalid(errors);
}

/** An amount in a currency, as the wire gives it (a decimal text or a number). */
function amountOf(body: Json, field: string, currency: string): bigint {
  const parsed = parseAmount(String(body[field] ?? ''), currency);
  if (!parsed.ok || parsed.money.minor <= 0n) throw GatewayError.field(field, 'This value is not valid.');
  return parsed.money.minor;
}

// --- deposit addresses (the crypto kinds) -------------------------------------------------------------------

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58Check of a version byte and a payload (legacy Bitcoin and TRON addresses). */
function base58check(version: number, payload: Buffer): string {
  const data = Buffer.concat([Buffer.from([version]), payload]);
  const checksum = createHash('sha256').update(createHash('sha256').update(data).digest()).digest().subarray(0, 4);
  const bytes = Buffer.concat([data, checksum]);
  let n = BigInt(`0x${bytes.toString('hex')}`);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)]! + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * A deposit address for a payment (derived from its id, so the same payment always gets the same one):
 * BTC bech32 (segwit v0, P2WPKH) or legacy; BCH cash address or legacy; USDT on eth (default) or tron; others eth-style.
 */
export function depositAddress(seed: string, coin: string, opts: { bech32?: boolean; network?: string }): { address: string; network: string } {
  const hash = createHash('sha256').update(seed).digest().subarray(0, 20);
  if (coin === 'BTC') {
    return opts.bech32 ? { address: bech32.encode('bc', [0, ...bech32.toWords(hash)]), network: 'Bitcoin (bech32)' } : { address: base58check(0x00, hash), network: 'Bitcoin' };
  }
  if (coin === 'BCH') {
    return opts.bech32 ? { address: cashaddr.encode('bitcoincash', 'P2PKH', hash), network: 'Bitcoin Cash (CashAddr)' } : { address: base58check(0x00, hash), network: 'Bitcoin Cash' };
  }
  if (coin === 'USDT' && opts.network === 'tron') return { address: base58check(0x41, hash), network: 'Tron (TRC20)' };
  return { address: `0x${hash.toString('hex')}`, network: coin === 'USDT' ? 'Ethereum (ERC20)' : 'Ethereum' };
}

/** A Pix copy-and-paste code (EMV BR Code layout: id, length, value; CRC16-CCITT last). */
export function pixCopyAndPaste(p: { key: string; merchantName: string; amount: string; txid: string }): string {
  const f = (id: string, value: string) => `${id}${String(value.length).padStart(2, '0')}${value}`;
  const account = f('00', 'br.gov.bcb.pix') + f('01', p.key);
  const body = f('00', '01') + f('26', account) + f('52', '0000') + f('53', '986') + f('54', p.amount) + f('58', 'BR') +
    f('59', p.merchantName.slice(0, 25)) + f('60', 'SAO PAULO') + f('62', f('05', p.txid.replace(/[^A-Za-z0-9]/g, '').slice(0, 25))) + '6304';
  let crc = 0xffff;
  for (const byte of Buffer.from(body, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return body + crc.toString(16).toUpperCase().padStart(4, '0');
}

// --- the provider ----------------------------------------------------------------------------------------

interface PaymentRecord {
  kind: string;
  public_id: string;
  /** The create call's answer, given again to a lookup by public id (a caller whose answer was lost). */
  answer?: Json;
  /** Identity transfer: the payer's names as the create call split them (echoed by the status call). */
  first_name?: string;
  last_name?: string;
  callback_url?: string;
  decline_url?: string;
  return_url?: string;
  mismatch?: boolean;
}

const stateWord: Readonly<Record<ProviderState, string>> = { pending: 'pending', executed: 'executed', rejected: 'rejected' };
const voucherWord: Readonly<Record<ProviderState, string>> = { pending: 'Pending', executed: 'Approved', rejected: 'Declined' };

export class SandboxApmProvider {
  constructor(private readonly o: SandboxProviderOptions) {}

  private url(path: string): string {
    return `${this.o.baseUrl()}${path}`;
  }

  // --- accounts and authentication --------------------------------------------------------------------

  /** Issues an account: the MID's API key and secret and its private key (shown once; the provider keeps the public half). */
  async createAccount(): Promise<ProviderAnswer> {
    const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
    const apiKey = `sbxk_${newToken(12)}`;
    const apiSecret = `sbxs_${newToken(24)}`;
    await this.o.store.insertAccount({ api_key: apiKey, secret_digest: sha256(apiSecret), public_key: publicKey.export({ type: 'spki', format: 'pem' }).toString() }, this.o.clock.now());
    return { status: 201, body: { api_key: apiKey, api_secret: apiSecret, private_key: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() } };
  }

  private async account(apiKey: string | undefined): Promise<Account | undefined> {
    if (!apiKey || apiKey.length > 200) return undefined;
    return this.o.store.account(apiKey);
  }

  /** X-API-Key and X-API-Secret, on every call of a header-key kind. */
  async byHeaderKey(headers: Headers): Promise<Account> {
    const account = await this.account(header(headers, 'x-api-key'));
    const secret = header(headers, 'x-api-secret');
    if (!account || !secret || !sameSecret(secret, account.secret_digest)) throw authRefused();
    return account;
  }

  /** The token call of the reference-and-authorization family: the API key and a timestamp signed with the private key. */
  async issueToken(body: Json): Promise<ProviderAnswer> {
    const account = await this.account(str(body.api_key));
    const timestamp = Number(str(body.timestamp));
    const signature = str(body.signature);
    const fresh = Number.isFinite(timestamp) && Math.abs(Date.now() - timestamp * 1000) <= TIMESTAMP_SKEW_MS;
    if (!account || !signature || !fresh || !verifySignature(account.public_key, `${account.api_key}.${str(body.timestamp)}`, signature)) throw authRefused();
    const token = `sbxt_${newToken(24)}`;
    await this.record('token', sha256(token), account.api_key, { expires_at: Date.now() + TOKEN_LIFETIME_MS });
    return { status: 200, body: { access_token: token, token_type: 'Bearer', expires_in: TOKEN_LIFETIME_MS / 1000 } };
  }

  /** The `authorization` header of the family's calls: a token of the token call, not expired. */
  async byToken(headers: Headers): Promise<Account> {
    const token = header(headers, 'authorization')?.replace(/^Bearer\s+/i, '');
    const found = token ? await this.find<{ expires_at: number }>('token', sha256(token)) : undefined;
    if (!found || found.data.expires_at < Date.now()) throw authRefused();
    return (await this.account(found.apiKey))!;
  }

  /** The voucher partner's Signature over every other field, checked with the PartnerId's public key. */
  async bySignature(body: Json): Promise<Account> {
    const account = await this.account(str(body.PartnerId));
    const signature = str(body.Signature);
    const flat = Object.values(body).every((v) => v === null || ['string', 'number', 'boolean'].includes(typeof v));
    if (!account || !signature || !flat || !verifySignature(account.public_key, signingString(body as Record<string, SignedValue>), signature)) throw authRefused();
    return account;
  }

  // --- records ---------------------------------------------------------------------------------------------

  private async record(kind: string, id: string, apiKey: string, data: Json): Promise<void> {
    await this.o.store.record(kind, id, apiKey, data, this.o.clock.now());
  }

  private async find<T>(kind: string, id: string): Promise<{ apiKey: string; data: T } | undefined> {
    if (id.length > 200) return undefined;
    return this.o.store.findRecord<T>(kind, id);
  }

  /**
   * Marks a record of this account used, once (compare-and-set): a challenge or a reference pays one payment,
   * whatever races. Undefined when it is not this account's, or was used already.
   */
  private async claim<T>(kind: string, id: string, apiKey: string, flag: string): Promise<T | undefined> {
    if (id.length > 200) return undefined;
    return this.o.store.claimRecord<T>(kind, id, apiKey, flag);
  }

  /** A payment of this account, by the provider's id; someone else's is as unknown as none. */
  private async ownPayment(account: Account, reference: string): Promise<PaymentRecord> {
    const found = await this.find<PaymentRecord>('payment', reference);
    if (!found || found.apiKey !== account.api_key) throw new GatewayError('transactionDoesNotExist');
    return found.data;
  }

  // --- payments ----------------------------------------------------------------------------------------------

  /** Starts the payment at the engine (pages, outbox, decision) and keeps where to notify. */
  private async start(account: Account, p: { kind: string; publicId: string; experience: ApmExperience; amount: bigint; currency: string; body: Json; phone?: string; extra?: Partial<PaymentRecord>; options?: ApmInitiateRequest['options'] }): Promise<{ reference: string; action?: unknown; state: ProviderState }> {
    const payer = (p.body.payer ?? {}) as Json;
    const outcome = await this.o.engine.initiate({
      paymentId: p.publicId, method: p.kind, methodKind: p.kind, experience: p.experience, intent: 'sale', amount: p.amount, currency: p.currency,
      orderId: p.publicId, description: str(p.body.description) ?? p.kind, merchantName: 'Sandbox merchant',
      payer: { email: str(payer.email) ?? str(p.body.email), phone: p.phone ?? str(payer.phone), name: str(payer.name) },
      params: {}, options: p.options ?? {}, returnUrl: str(p.body.return_url) ?? str(p.body.ReturnUrl) ?? '',
    });
    if (outcome.kind === 'pending') throw new Error('sandbox engine did not answer');
    const reference = outcome.reference!;
    await this.record('payment', reference, account.api_key, { kind: p.kind, public_id: p.publicId, callback_url: str(p.body.callback_url) ?? str(p.body.CallbackUrl), ...p.extra });
    const state: ProviderState = outcome.kind === 'approved' ? 'executed' : outcome.kind === 'declined' ? 'rejected' : 'pending';
    return { reference, state, ...(outcome.kind === 'action' ? { action: outcome.action } : {}) };
  }

  /** Keeps the create call's answer with the payment, for lookups by public id. */
  private async answered(account: Account, reference: string, answer: ProviderAnswer): Promise<ProviderAnswer> {
    const found = await this.find<PaymentRecord>('payment', reference);
    if (found) await this.record('payment', reference, account.api_key, { ...found.data, answer: answer.body });
    return answer;
  }

  /**
   * GET /payments?public_id= (header-key kinds): the newest payment of this account with that public id, answered
   * as its create call was, with the status of now. 404 when there is none (the create call never arrived).
   */
  async lookup(headers: Headers, publicId: string): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    const row = publicId.length > 200 ? undefined : await this.o.store.answeredPayment<PaymentRecord>(account.api_key, publicId);
    if (!row) throw new GatewayError('transactionDoesNotExist');
    const status = await this.o.engine.status(row.id);
    return { status: 200, body: { ...row.data.answer, status: stateWord[status.state], ...(status.reason ? { reason: status.reason } : {}) } };
  }

  /** POST /payments (header-key kinds): generic, identity transfer (OBT), card by bank, or after a challenge. */
  async createPayment(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    requireFields(['public_id', 'amount', 'currency'], body);
    const currency = String(body.currency).toUpperCase();
    const amount = amountOf(body, 'amount', currency);
    const publicId = String(body.public_id);
    if (body.payment_methods === 'OBT') requireFields(['first_name', 'last_name'], body);
    if (body.challengeId !== undefined) {
      const challenge = await this.claim<{ phone: string; email: string }>('challenge', String(body.challengeId), account.api_key, 'used');
      if (!challenge) throw GatewayError.field('challengeId', 'This value is not valid.');
      const started = await this.start(account, { kind: 'payer-challenge', publicId, experience: 'otp', amount, currency, body: { ...body, email: challenge.email }, phone: challenge.phone });
      return this.answered(account, started.reference, { status: 201, body: { id: started.reference, status: stateWord[started.state], sent_to: maskContact(challenge.phone) } });
    }
    const cardByBank = body.method === 'card-by-bank';
    const names = body.payment_methods === 'OBT' ? { first_name: String(body.first_name), last_name: String(body.last_name) } : {};
    const started = await this.start(account, { kind: cardByBank ? 'card-by-bank' : 'payment', publicId, experience: 'redirect', amount, currency, body, extra: { return_url: str(body.return_url), ...names } });
    const redirect = cardByBank ? this.url(`${PROVIDER_PREFIX}/pages/accounts/${started.reference}`) : (started.action as { url: string }).url;
    return this.answered(account, started.reference, { status: 201, body: { id: started.reference, status: stateWord[started.state], redirect_url: redirect } });
  }

  /** POST /challenges: the payer-challenge method's first request, its eight fields all required. */
  async createChallenge(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    requireFields(CHALLENGE_FIELDS, body);
    const challengeId = `chl_${newToken(12)}`;
    await this.record('challenge', challengeId, account.api_key, Object.fromEntries(CHALLENGE_FIELDS.map((f) => [f, String(body[f])])));
    return { status: 201, body: { challengeId } };
  }

  /** POST /pix/payin: answers qr_code_id, status, base_64_image (a PNG of the QR) and pix_copy_and_paste. */
  async pixPayin(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    requireFields(['public_id', 'amount', 'fine'], body);
    if (str(body.branch_identifier) && !/^[0-9]{4}$/.test(String(body.branch_identifier))) throw GatewayError.field('branch_identifier', 'This value is not valid.');
    const currency = str(body.currency)?.toUpperCase() ?? 'BRL';
    const amount = amountOf(body, 'amount', currency);
    const started = await this.start(account, { kind: 'pix-payin', publicId: String(body.public_id), experience: 'qr', amount, currency, body, options: { qrLifetimeSeconds: PIX_LIFETIME_SECONDS } });
    const copyPaste = pixCopyAndPaste({ key: account.api_key, merchantName: str(body.debtor_name) ?? 'Sandbox', amount: formatAmount(amount, currency), txid: started.reference });
    const image = (await QRCode.toBuffer(copyPaste, { type: 'png', margin: 1, width: 240 })).toString('base64');
    const expiresAt = (started.action as { expiresAt?: string } | undefined)?.expiresAt;
    return this.answered(account, started.reference, { status: 201, body: { qr_code_id: started.reference, status: stateWord[started.state], base_64_image: image, pix_copy_and_paste: copyPaste, expires_at: expiresAt } });
  }

  /** POST /mobile-money/charge: an STK push to the payer's phone; answers auth_method STK_PROMPT and a message. */
  async mobileMoneyCharge(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    requireFields(['public_id', 'amount', 'currency', 'mobile_number'], body);
    const errors: FieldError[] = [];
    if (String(body.public_id).length < 8) errors.push({ field: 'public_id', message: 'This value is too short. It should have 8 characters or more.' });
    if (!/^\+?[0-9]{8,15}$/.test(String(body.mobile_number))) errors.push({ field: 'mobile_number', message: 'This value is not valid.' });
    if (!str((body.payer as Json | undefined)?.email)) errors.push({ field: 'payer.email', message: 'This value should not be blank.' });
    if (errors.length > 0) throw GatewayError.invalid(errors);
    const currency = String(body.currency).toUpperCase();
    const phone = String(body.mobile_number);
    const amount = amountOf(body, 'amount', currency);
    // fee_bearer: true, the merchant bears the fee; false (the default), the payer is asked for it on top.
    const fee = body.fee_bearer === true ? 0n : (amount * MOBILE_MONEY_FEE_BPS) / 10_000n;
    const started = await this.start(account, { kind: 'mobile-money', publicId: String(body.public_id), experience: 'app_confirmation', amount: amount + fee, currency, body, phone });
    const what = fee > 0n ? `${formatAmount(amount + fee, currency)} ${currency} (fee ${formatAmount(fee, currency)} ${currency} included)` : `${formatAmount(amount, currency)} ${currency}`;
    return this.answered(account, started.reference, { status: 201, body: { id: started.reference, status: stateWord[started.state], auth_method: 'STK_PROMPT', message: `Confirm the payment of ${what} on your phone ${maskContact(phone)}.` } });
  }

  /** POST /crypto/address: a deposit address honouring crypto_type, network_type and bech32 (and a fiat conversion's crypto_amount). */
  async cryptoAddress(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    requireFields(['public_id', 'crypto_type'], body);
    const coin = String(body.crypto_type).toUpperCase();
    const network = str(body.network_type);
    if (network !== undefined && (coin !== 'USDT' || !['eth', 'tron'].includes(network))) throw GatewayError.field('network_type', 'This value is not valid.');
    const converted = str(body.crypto_amount);
    const currency = converted ? coin : (str(body.currency)?.toUpperCase() ?? coin);
    const amount = amountOf(body, converted ? 'crypto_amount' : 'amount', currency);
    const started = await this.start(account, { kind: 'crypto-address', publicId: String(body.public_id), experience: 'details', amount, currency, body });
    const { address, network: networkName } = depositAddress(started.reference, coin, { bech32: body.bech32 === true, network });
    return this.answered(account, started.reference, { status: 201, body: { id: started.reference, status: stateWord[started.state], crypto_type: coin, network: networkName, address, ...(converted ? { crypto_amount: formatAmount(amount, coin) } : {}) } });
  }

  async paymentStatus(headers: Headers, reference: string, auth: 'header_key' | 'token'): Promise<ProviderAnswer> {
    const account = auth === 'token' ? await this.byToken(headers) : await this.byHeaderKey(headers);
    const record = await this.ownPayment(account, reference);
    const status = await this.o.engine.status(reference);
    const names = record.first_name !== undefined ? { first_name: record.first_name, last_name: record.last_name } : {};
    return { status: 200, body: { id: reference, status: stateWord[status.state], ...(status.reason ? { reason: status.reason } : {}), ...names } };
  }

  async cancelPayment(headers: Headers, reference: string, body: Json, auth: 'header_key' | 'token'): Promise<ProviderAnswer> {
    const account = auth === 'token' ? await this.byToken(headers) : await this.byHeaderKey(headers);
    await this.ownPayment(account, reference);
    const status = await this.o.engine.cancel(reference, str(body.reason) ?? 'Cancelled');
    return { status: 200, body: { id: reference, status: stateWord[status.state], ...(status.reason ? { reason: status.reason } : {}) } };
  }

  async verifyCode(headers: Headers, reference: string, body: Json): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    await this.ownPayment(account, reference);
    const answer = await this.o.engine.verifyCode(reference, String(body.code ?? ''));
    return { status: 200, body: { id: reference, status: stateWord[answer.state], ...(answer.reason ? { reason: answer.reason } : {}), ...(answer.retry ? { retry: answer.retry } : {}) } };
  }

  async resendCode(headers: Headers, reference: string): Promise<ProviderAnswer> {
    const account = await this.byHeaderKey(headers);
    await this.ownPayment(account, reference);
    return { status: 200, body: { id: reference, sent: await this.o.engine.resendCode(reference) } };
  }

  // --- the reference-and-authorization family -------------------------------------------------------------

  /** Create reference: amount (number), public id up to 40, single (true) or recurring (false). */
  async createReference(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byToken(headers);
    const errors: FieldError[] = [];
    if (typeof body.amount !== 'number' || !(body.amount > 0)) errors.push({ field: 'amount', message: 'This value should be a positive number.' });
    const publicId = str(body.public_id);
    if (!publicId) errors.push({ field: 'public_id', message: 'This value should not be blank.' });
    else if (publicId.length > REFERENCE_PUBLIC_ID_MAX) errors.push({ field: 'public_id', message: `This value is too long. It should have ${REFERENCE_PUBLIC_ID_MAX} characters or less.` });
    if (typeof body.single !== 'boolean') errors.push({ field: 'single', message: 'This value should be of type bool.' });
    if (errors.length > 0) throw GatewayError.invalid(errors);
    const gatewayId = `ref_${newToken(12)}`;
    await this.record('reference', gatewayId, account.api_key, { amount: body.amount, public_id: publicId, single: body.single, callback_url: str(body.callback_url), return_url: str(body.return_url) });
    return { status: 201, body: { gateway_id: gatewayId, single: body.single } };
  }

  /** Create payment: the gateway id of a reference of this account, once. */
  async createReferencePayment(headers: Headers, body: Json): Promise<ProviderAnswer> {
    const account = await this.byToken(headers);
    requireFields(['gateway_id'], body);
    const known = await this.find<unknown>('reference', String(body.gateway_id));
    if (!known || known.apiKey !== account.api_key) throw GatewayError.field('gateway_id', 'This value is not valid.');
    const ref = await this.claim<{ amount: number; public_id: string; single: boolean; callback_url?: string; return_url?: string }>('reference', String(body.gateway_id), account.api_key, 'paid');
    if (!ref) throw GatewayError.field('gateway_id', 'This reference already has a payment.');
    // The family's amounts are plain numbers; the sandbox books them in EUR.
    const amount = amountOf({ amount: String(ref.amount) }, 'amount', 'EUR');
    const started = await this.start(account, { kind: 'reference-auth', publicId: ref.public_id, experience: 'redirect', amount, currency: 'EUR', body: { callback_url: ref.callback_url, return_url: ref.return_url } });
    return { status: 201, body: { payment_id: started.reference, status: stateWord[started.state], redirect_url: (started.action as { url: string }).url } };
  }

  // --- the voucher partner ------------------------------------------------------------------------------------

  /**
   * Initiate: signed; PayerId goes with PayerFirstName, PayerLastName and PayerBirthDate. The partner knows its
   * payers: a PayerId seen before with other data is a mismatch, whose payer is shown a pop-up and sent to
   * DeclineUrl, and whose transaction then does not exist.
   */
  async voucherInitiate(body: Json): Promise<ProviderAnswer> {
    const account = await this.bySignature(body);
    requireFields(['PayerId', 'PayerFirstName', 'PayerLastName', 'PayerBirthDate', 'PublicId', 'Amount', 'Currency', 'CallbackUrl', 'Language'], body);
    const errors: FieldError[] = [];
    if (String(body.PayType) !== '0') errors.push({ field: 'PayType', message: 'This value is not valid.' });
    if (String(body.PayMethod) !== '2') errors.push({ field: 'PayMethod', message: 'This value is not valid.' });
    const currency = currencyAlpha(body.Currency);
    if (!Number.isInteger(body.Currency)) errors.push({ field: 'Currency', message: 'This value should be of type integer.' });
    else if (!currency) errors.push({ field: 'Currency', message: 'This value is not a valid currency.' });
    if (errors.length > 0) throw GatewayError.invalid(errors);
    const publicId = String(body.PublicId);
    const identity = { first: String(body.PayerFirstName), last: String(body.PayerLastName), birth: String(body.PayerBirthDate) };
    const known = await this.find<typeof identity>('payer', `${account.api_key}:${String(body.PayerId)}`);
    const mismatch = !!known && (known.data.first !== identity.first || known.data.last !== identity.last || known.data.birth !== identity.birth);
    if (!known) await this.record('payer', `${account.api_key}:${String(body.PayerId)}`, account.api_key, identity);
    const reference = `vch_${newToken(12)}`;
    if (mismatch) {
      await this.record('voucher', publicId, account.api_key, { reference, mismatch: true, decline_url: str(body.DeclineUrl), language: str(body.Language) });
    } else {
      const minor = amountOf({ a: body.Amount }, 'a', currency!);
      const started = await this.start(account, { kind: 'voucher-partner', publicId, experience: 'redirect', amount: minor, currency: currency!, body, extra: { decline_url: str(body.DeclineUrl) } });
      await this.record('voucher', publicId, account.api_key, { reference: started.reference, decline_url: str(body.DeclineUrl) });
    }
    const found = (await this.find<{ reference: string }>('voucher', publicId))!;
    return { status: 201, body: { TransactionId: publicId, Status: 'Pending', RedirectUrl: this.url(`${PROVIDER_PREFIX}/pages/voucher/${encodeURIComponent(found.data.reference)}?p=${encodeURIComponent(publicId)}`) } };
  }

  private async voucher(body: Json): Promise<{ account: Account; reference: string }> {
    const account = await this.bySignature(body);
    const found = await this.find<{ reference: string; mismatch?: boolean }>('voucher', String(body.PublicId ?? ''));
    if (!found || found.apiKey !== account.api_key || found.data.mismatch) throw new GatewayError('transactionDoesNotExist');
    return { account, reference: found.data.reference };
  }

  async voucherStatus(body: Json): Promise<ProviderAnswer> {
    const { reference } = await this.voucher(body);
    const status = await this.o.engine.status(reference);
    return { status: 200, body: { TransactionId: String(body.PublicId), Status: voucherWord[status.state], ...(status.reason ? { Reason: status.reason } : {}) } };
  }

  async voucherCancel(body: Json): Promise<ProviderAnswer> {
    const { reference } = await this.voucher(body);
    const status = await this.o.engine.cancel(reference, str(body.Reason) ?? 'Cancelled');
    return { status: 200, body: { TransactionId: String(body.PublicId), Status: voucherWord[status.state], ...(status.reason ? { Reason: status.reason } : {}) } };
  }

  /** The partner's page: a mismatch pop-up then DeclineUrl, or on to the payment page. */
  async voucherPage(reference: string, publicId: string): Promise<{ mismatch: true; declineUrl?: string; language?: string } | { mismatch: false; next: string } | undefined> {
    const found = await this.find<{ reference: string; mismatch?: boolean; decline_url?: string; language?: string }>('voucher', publicId);
    if (!found || found.data.reference !== reference) return undefined;
    if (found.data.mismatch) return { mismatch: true, ...(found.data.decline_url ? { declineUrl: found.data.decline_url } : {}), ...(found.data.language ? { language: found.data.language } : {}) };
    return { mismatch: false, next: `/sandbox/apm/${encodeURIComponent(reference)}` };
  }

  /** Card by bank: the payment's account list, while it waits. */
  async accountsPage(reference: string): Promise<{ amount: string; accounts: readonly string[] } | undefined> {
    const found = await this.find<PaymentRecord>('payment', reference);
    const payment = found?.data.kind === 'card-by-bank' ? await this.o.engine.find(reference) : undefined;
    if (!payment) return undefined;
    return { amount: `${formatAmount(payment.amount, payment.currency)} ${payment.currency}`, accounts: payment.state === 'pending' ? SANDBOX_BANK_ACCOUNTS : [] };
  }

  /** The payer picked an account (or cancelled): the engine decides (D8) and notifies. Answers where the payer goes. */
  async pickAccount(reference: string, account: string | undefined): Promise<string | undefined> {
    const found = await this.find<PaymentRecord>('payment', reference);
    if (found?.data.kind !== 'card-by-bank') return undefined;
    const chosen = account !== undefined && (SANDBOX_BANK_ACCOUNTS as readonly string[]).includes(account);
    const payment = await this.o.engine.payerDecision(reference, chosen ? 'approve' : 'reject');
    return payment?.returnUrl ?? found.data.return_url;
  }
}

/**
 * What the provider sends when the engine decided one of its payments: a JSON notification to the callback
 * address of the create call (the voucher partner in its own words). Undefined for payments of the plain engine.
 */
export async function providerNotification(store: SandboxProviderStore, reference: string, state: ProviderState): Promise<{ url: string; body: Json } | undefined> {
  if (reference.length > 200) return undefined;
  const row = await store.findRecord<PaymentRecord>('payment', reference);
  const url = row?.data.callback_url;
  if (!row || !url) return undefined;
  const body = row.data.kind === 'voucher-partner'
    ? { PublicId: row.data.public_id, TransactionId: row.data.public_id, Status: voucherWord[state] }
    : { id: reference, public_id: row.data.public_id, status: stateWord[state] };
  return { url, body };
}
