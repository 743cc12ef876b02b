/**
 * Adyen's own API descriptions (../shared/connectors/adyen, not copied into the project): the OpenAPI 3.1
 * description validates every request the connector sends (ajv, JSON Schema 2020-12) and its named examples are
 * replayed as Adyen's answers. Tests that need them and find them missing say so and are skipped.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Ajv2020, type ErrorObject } from 'ajv/dist/2020.js';
import * as ajvFormats from 'ajv-formats';
import type { HttpPort, HttpRequest, HttpResponse } from '../../src/connectors/http.ts';

const here = path.dirname(fileURLToPath(import.meta.url));
/** ADYEN_SPEC_DIR, else ../shared/connectors/adyen beside the repository (or beside the worktrees' folder). */
const CANDIDATES = [process.env.ADYEN_SPEC_DIR, path.resolve(here, '../../../shared/connectors/adyen'), path.resolve(here, '../../../../shared/connectors/adyen')]
  .filter((d): d is string => typeof d === 'string' && d !== '');
export const ADYEN_DIR = CANDIDATES.find((d) => existsSync(path.join(d, 'CheckoutService-v71.json'))) ?? CANDIDATES[0]!;
const CHECKOUT = path.join(ADYEN_DIR, 'CheckoutService-v71.json');
const WEBHOOKS = path.join(ADYEN_DIR, 'Webhooks-v1.json');

/** The reason the Adyen tests are skipped, or false. */
export const adyenUnavailable: string | false = existsSync(CHECKOUT) && existsSync(WEBHOOKS)
  ? false
  : `Adyen API descriptions not found at ${ADYEN_DIR} (../shared/connectors/adyen): Adyen tests skipped`;

type Json = Record<string, any>;

let loaded: { spec: Json; webhooks: Json; validate: (pathName: string, body: unknown) => string[] } | undefined;

export function adyenSpec() {
  if (loaded) return loaded;
  const spec = JSON.parse(readFileSync(CHECKOUT, 'utf8')) as Json;
  const webhooks = JSON.parse(readFileSync(WEBHOOKS, 'utf8')) as Json;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  // ajv-formats is CommonJS: its function is the module's default export.
  const addFormats = (ajvFormats as unknown as { default: (a: Ajv2020) => void }).default;
  addFormats(ajv);
  ajv.addSchema({ $id: 'checkout', components: spec.components }, 'checkout');
  const validators = new Map<string, ReturnType<typeof ajv.compile>>();
  const validate = (pathName: string, body: unknown): string[] => {
    let v = validators.get(pathName);
    if (!v) {
      const op = spec.paths[pathName]?.post;
      const ref = op?.requestBody?.content?.['application/json']?.schema?.$ref as string | undefined;
      if (!ref) throw new Error(`no request schema for ${pathName}`);
      v = ajv.compile({ $ref: `checkout${ref}` });
      validators.set(pathName, v);
    }
    return v(body) ? [] : (v.errors ?? []).map((e: ErrorObject) => `${e.instancePath} ${e.message}`);
  };
  loaded = { spec, webhooks, validate };
  return loaded;
}

/** A named example's value (components.examples). */
export function example(name: string): Json {
  const ex = adyenSpec().spec.components.examples[name];
  if (!ex) throw new Error(`no example ${name}`);
  return ex.value as Json;
}

export function webhookExample(name: string): Json {
  const ex = adyenSpec().webhooks.components.examples[name];
  if (!ex) throw new Error(`no webhook example ${name}`);
  return structuredClone(ex.value) as Json;
}

/** The spec's path template of a concrete connector URL (/payments/PSP123/captures -> /payments/{paymentPspReference}/captures). */
export function specPath(url: string): string {
  const p = new URL(url).pathname.replace(/^\/v71/, '');
  return p.replace(/^\/payments\/[^/]+\/(captures|cancels|refunds|reversals|amountUpdates)$/, '/payments/{paymentPspReference}/$1');
}

export interface Exchange { request: HttpRequest; body: Json; errors: string[] }

/** An HTTP port answering with named examples, validating each request against the description. */
export class ReplayPort implements HttpPort {
  readonly exchanges: Exchange[] = [];
  constructor(private readonly answer: (req: HttpRequest) => { status: number; body: unknown }) {}
  async send(req: HttpRequest): Promise<HttpResponse> {
    const body = JSON.parse(req.body ?? '{}') as Json;
    this.exchanges.push({ request: req, body, errors: adyenSpec().validate(specPath(req.url), body) });
    const a = this.answer(req);
    return { status: a.status, headers: { 'content-type': 'application/json' }, body: JSON.stringify(a.body) };
  }
}
