/**
 * What a merchant route tells the OpenAPI document beyond its Fastify schema: each route carries its doc in
 * `config.doc` (each S2S action in its row of the channel's action table), and openapi.ts assembles the
 * document from them. Answers are described here, not in Fastify response schemas, because a response schema
 * also serializes (it drops unknown fields and reorders members) and would change the platform's bytes.
 *
 * The examples are signed for the demo merchant below; the shared example values live here so that every
 * channel's examples name the same payment, order, payer and card.
 */
import type { TSchema } from '@sinclair/typebox';
import type { HashRecipeName } from '../domain/hash-recipes.ts';
import type { ErrorName } from '../domain/errors.ts';
import * as sig from '../domain/signatures.ts';

export type Json = Record<string, unknown>;

/** A JSON operation (Checkout, the sandbox's test clock, the bank callback). */
export interface OperationDoc {
  /** Text before the hash recipe in the description. */
  description?: string;
  /** The hash recipes the operation accepts; a signed operation may also answer the hash and merchant errors. */
  recipe?: HashRecipeName[];
  /** JSON request example. */
  example?: Json;
  /** A request body the route validates by hand (its Fastify schema declares none). */
  requestBody?: Json;
  parameters?: Json[];
  /** The success answer, used when the route's schema declares none. */
  answer: TSchema;
  answerExample?: unknown;
  answerDescription?: string;
  /** The errors of this operation beyond the common ones (and the hash errors of a signed one). */
  errors: ErrorName[];
}

/** One action of a form API, as its row in the channel's action table documents it. */
export interface ActionDoc {
  /** The name documented when the row has two (PAUSE is documented as PAUSE_SCHEDULE, D1). */
  name?: string;
  recipe: HashRecipeName[];
  example: Json;
  /** The answer's name in components/schemas. */
  answer: string;
  answerExample: Json;
}

/** A form API (S2S CARD, S2S APM): one schema per action, the action in `action`. */
export interface FormDoc {
  /** Prefix of the actions' component names (S2sCard -> S2sCardSale). */
  prefix: string;
  description: string;
  /** The request schema of each documented action, with its doc. */
  actions: Readonly<Record<string, { schema: TSchema; doc: ActionDoc }>>;
  /** The answers' schemas, by the names the action docs use. */
  answers: Readonly<Record<string, TSchema>>;
  /** Errors beyond the common and hash ones. */
  errors: ErrorName[];
}

/** A form API's actions that also come by GET, their fields in the query string. */
export interface QueryDoc {
  byGet: FormDoc;
  action: string;
  description: string;
  errors: ErrorName[];
}

export type RouteDoc = OperationDoc | { form: FormDoc } | QueryDoc;

declare module 'fastify' {
  interface FastifyContextConfig {
    doc?: RouteDoc;
  }
}

/** An action table's documented rows: supported ones, each under the name its doc gives. */
export function documentedActions(
  table: Readonly<Record<string, { kind: 'supported'; spec: { schema: TSchema; doc: ActionDoc } } | { kind: 'not-supported' }>>,
): FormDoc['actions'] {
  return Object.fromEntries(Object.entries(table).flatMap(([name, row]) =>
    (row.kind === 'supported' && (row.spec.doc.name ?? name) === name ? [[name, { schema: row.spec.schema, doc: row.spec.doc }]] : [])));
}

// --- the demo merchant and the values every example shares -------------------------------------------------

export const DEMO = { key: 'demo-key', password: 'demo-password-7f3a9c21e4b8' } as const;
export const BASE = 'https://pay.example.com';
export const PAYMENT_ID = '5b1f2a9e-7c3d-4e8f-9a1b-2c3d4e5f6a7b';
export const DATE = '2026-11-24 10:00:00';
export const RECURRING_TOKEN = '8d2c1e0f-3b4a-4c5d-9e6f-7a8b9c0d1e2f';

export const ORDER = { number: 'order-1001', amount: '10.00', currency: 'USD', description: 'Gold plan' };
export const PAYER = {
  payer_first_name: 'John', payer_last_name: 'Doe', payer_email: 'doe@example.com', payer_phone: '+441234567890', payer_ip: '203.0.113.9',
  payer_address: '1 Main Street', payer_country: 'GB', payer_city: 'London', payer_zip: 'SW1A1AA',
};
export const CARD = { card_number: '4111111111111111', card_exp_month: '01', card_exp_year: '2038', card_cvv2: '123' };

/** The merchant the examples are signed for: DEMO, or the demo merchant of the running gateway. */
export interface DocsMerchant {
  key: string;
  password: string;
}

/** Every example hash, as made for DEMO, with how to make it for another merchant. */
const RESIGNERS = new Map<string, (m: DocsMerchant) => string>();

/** An example's hash: made for DEMO, and remembered so that resignDocument can make it for the running demo merchant. */
export function demoSigned(make: (m: DocsMerchant) => string): string {
  const value = make(DEMO);
  RESIGNERS.set(value, make);
  return value;
}

/** Hashes for the demo merchant (a field equal to DEMO.key stands for the merchant's key). */
export const demoHash = {
  checkout: (fields: string[]) => demoSigned((m) => sig.checkoutHash(fields.map((f) => (f === DEMO.key ? m.key : f)), m.password)),
  s2s: (terms: (password: string) => sig.Term[]) => demoSigned((m) => sig.s2sHash(terms(m.password))),
  reversedId: (id: string) => demoSigned((m) => sig.s2sHashWithRawSuffix([{ rev: id }], m.password)),
};

/** The password's place in the descriptions of a document signed for a running demo merchant (never the password). */
export const PRINTED_PASSWORD = 'the password npm start printed';

/**
 * The document (JSON text) signed for another merchant: DEMO's key replaced by the merchant's, every example hash
 * made again with its password; the descriptions name the password as the one `npm start` printed, never its value.
 */
export function resignDocument(json: string, m: DocsMerchant): string {
  let out = json;
  for (const [value, make] of RESIGNERS) out = out.split(value).join(make(m));
  out = out.split(`\`DEMO_MERCHANT_KEY=${DEMO.key} DEMO_MERCHANT_PASSWORD=${DEMO.password} npm start\``).join('`npm start`');
  out = out.split(`password \`${DEMO.password}\``).join(PRINTED_PASSWORD);
  return out.split(DEMO.password).join(PRINTED_PASSWORD).split(DEMO.key).join(m.key);
}

/** The Checkout callback's hash over the demo order, also the signature of a hosted-fields return URL. */
export const demoCallbackHash = () => demoHash.checkout(sig.checkout.callback({ id: PAYMENT_ID, orderNumber: ORDER.number, amount: ORDER.amount, currency: ORDER.currency, description: ORDER.description }));
