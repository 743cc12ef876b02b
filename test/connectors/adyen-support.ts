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

export interface AdyenMock {
  /** The base URL a MID uses (the scenario proxy in front of prism). */
  url: string;
  /** Which named example prism answers a path with (Adyen's test engine is chosen by card; the mock by example). */
  scenario: Map<string, string>;
  /** Requests prism refused as not matching the description (it runs with --errors). */
  refused: { path: string; status: number; body: string }[];
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

/** The reason the mock cannot run, or false. */
export function prismUnavailable(): string | false {
  if (adyenUnavailable) return adyenUnavailable;
  const bin = path.resolve(here, '../../node_modules/@stoplight/prism-cli/dist/index.js');
  return existsSync(bin) ? false : '@stoplight/prism-cli is not installed (npm ci): Adyen mock tests skipped';
}

let prism: Promise<number> | undefined;

/** Prism on a free port, up (it answers); killed when this process exits. Resolves to its port. */
async function startPrism(): Promise<number> {
  const { spawn } = await import('node:child_process');
  const port = await freePort();
  const bin = path.resolve(here, '../../node_modules/@stoplight/prism-cli/dist/index.js');
  const child = spawn(process.execPath, [bin, 'mock', '-h', '127.0.0.1', '-p', String(port), '--errors', '-v', 'warn', CHECKOUT], { stdio: ['ignore', 'pipe', 'pipe'] });
  // It holds the process open no longer than the tests do; their process's end ends it.
  process.on('exit', () => child.kill());
  child.unref();
  let output = '';
  for (const stream of [child.stdout, child.stderr]) {
    stream.on('data', (c: Buffer) => { output += c.toString(); });
    (stream as unknown as { unref(): void }).unref();
  }
  const deadline = Date.now() + 60_000;
  for (;;) {
    const up = await fetch(`http://127.0.0.1:${port}/payments`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } }).then(() => true, () => false);
    if (up) return port;
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill();
      prism = undefined;
      throw new Error(`prism did not start: ${output.slice(-2000)}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/**
 * Prism 5.14.2 serving CheckoutService-v71.json on loopback (a child process, on a free port), with --errors so a
 * request that does not match the description is refused, behind a proxy that picks the named example to answer.
 * Prism answers from the description alone (it keeps no state), and starting it costs seconds of CPU (it reads the
 * whole description): one process serves every mock of a test file, each mock its own proxy, scenario and refusals;
 * it ends with the test process.
 */
export async function startAdyenMock(): Promise<AdyenMock> {
  const { createServer, request } = await import('node:http');
  const port = await (prism ??= startPrism());
  const scenario = new Map<string, string>();
  const refused: AdyenMock['refused'] = [];
  const proxy = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const pathName = new URL(req.url ?? '/', 'http://x').pathname;
      const key = [...scenario.keys()].find((k) => pathName.endsWith(k));
      const headers = { ...req.headers, host: `127.0.0.1:${port}`, ...(key ? { prefer: `example=${scenario.get(key)}` } : {}) };
      const out = request(`http://127.0.0.1:${port}${req.url}`, { method: req.method, headers }, (answer) => {
        const parts: Buffer[] = [];
        answer.on('data', (c: Buffer) => parts.push(c));
        answer.on('end', () => {
          const body = Buffer.concat(parts);
          if ((answer.statusCode ?? 0) >= 400) refused.push({ path: pathName, status: answer.statusCode ?? 0, body: body.toString() });
          res.writeHead(answer.statusCode ?? 502, { 'content-type': answer.headers['content-type'] ?? 'application/json' }).end(body);
        });
      });
      out.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(proxy.address() as { port: number }).port}`,
    scenario,
    refused,
    close: async () => {
      proxy.closeAllConnections();
      await new Promise<void>((resolve) => proxy.close(() => resolve()));
    },
  };
}
