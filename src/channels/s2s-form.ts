/**
 * Reading an S2S request (S2S CARD and S2S APM): form-encoded or multipart bodies (or a GET query string)
 * nested by bracket keys, empty values dropped (PHP clients send unused optional fields empty), and D3
 * validation answers.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { TSchema } from '@sinclair/typebox';
import { GatewayError, MESSAGES, type FieldError } from '../domain/errors.ts';
import { collectErrors, compile } from '../domain/schema-errors.ts';
import { toGatewayError } from './error-handler.ts';
import { parseForm } from './form.ts';
import type { FormDoc } from './route-docs.ts';

/** Fields before validation: anything the form parser produced. */
export type Loose = Record<string, unknown>;

/** Multipart: fields only, bounded; a file part fails the request. */
export const MULTIPART_LIMITS = { files: 0, fields: 1000, parts: 1000, fieldNameSize: 200, fieldSize: 64 * 1024 };

export async function formFields(req: FastifyRequest): Promise<Loose> {
  let fields: unknown;
  if (req.method === 'GET') fields = parseForm(req.url.split('?')[1] ?? '');
  else if (req.isMultipart()) fields = parseForm(await multipartQuery(req));
  else fields = req.body;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return {};
  return withoutEmptyValues(fields as Loose);
}

/**
 * A copy without the empty values (a loop: Object.fromEntries over filtered entries costs several times as
 * much). The keys come from parseForm, which never yields `__proto__`, so plain assignment is safe.
 */
function withoutEmptyValues(fields: Loose): Loose {
  const out: Loose = {};
  for (const key of Object.keys(fields)) {
    const value = fields[key];
    if (value !== '') out[key] = value;
  }
  return out;
}

/** Multipart fields back to a query string, so bracket keys nest as in a form body; a broken body is a D3 error. */
async function multipartQuery(req: FastifyRequest): Promise<string> {
  const query = new URLSearchParams();
  try {
    for await (const part of req.parts()) if (part.type === 'field' && typeof part.value === 'string') query.append(part.fieldname, part.value);
  } catch (err) {
    throw toGatewayError(err) ?? new GatewayError('invalidRequest', [{ field: 'request', message: 'The multipart body is malformed.' }]);
  }
  return query.toString();
}

/** Fields holding a NUL character, which no PostgreSQL text or jsonb value can store; added to `found`. */
function nulFields(value: unknown, path: string, found: FieldError[] = []): FieldError[] {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) found.push({ field: path, message: MESSAGES.notValid });
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) nulFields((value as Loose)[key], path ? `${path}.${key}` : key, found);
  }
  return found;
}

/**
 * Schema errors and the action's own rules, one message per field (the first found), in one answer.
 * By default the rules run only on a schema-valid request (they may read values the schema vets);
 * `alwaysRunRules` reports both at once, for rules written to cope with any input.
 */
export function validateFields(schema: TSchema, fields: Loose, rules?: (fields: Loose) => FieldError[], opts: { alwaysRunRules?: boolean } = {}): void {
  const check = compile(schema);
  const schemaErrors = check.Check(fields) ? [] : collectErrors(check, fields);
  const errors = new Map<string, string>();
  // The action's rules read values the schema has vetted: they run only on a schema-valid request.
  const more = schemaErrors.length === 0 || opts.alwaysRunRules ? (rules?.(fields) ?? []) : [];
  for (const list of [nulFields(fields, ''), schemaErrors, more]) for (const e of list) if (!errors.has(e.field)) errors.set(e.field, e.message);
  if (errors.size > 0) throw GatewayError.invalid([...errors].map(([field, message]) => ({ field, message })));
}

/**
 * An encapsulated scope for S2S routes: form and multipart bodies only (JSON and text refused with 415), and
 * a declared length over the body limit refused before parsing (busboy would stream multipart past it).
 */
export async function registerS2sScope(app: FastifyInstance, routes: (scope: FastifyInstance) => void): Promise<void> {
  await app.register(async (scope) => {
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    await scope.register(multipart, { limits: MULTIPART_LIMITS });
    scope.addHook('onRequest', async (req) => {
      if (Number(req.headers['content-length'] ?? 0) > scope.initialConfig.bodyLimit!) throw new GatewayError('payloadTooLarge', [{ field: 'request', message: 'The request body is too large.' }]);
    });
    routes(scope);
  });
}

/** A form channel's POST route: the S2S dialect, the actions' form doc, the channel's tag and texts. */
export function s2sRoute(form: FormDoc, tag: string, summary: string, description: string) {
  return { config: { dialect: 's2s' as const, doc: { form } }, schema: { tags: [tag], summary, description } };
}

/**
 * The row of the action the form names in a channel's action table; a D3 error on `action` when it is missing,
 * not text, unknown, or one `accepts` turns down (an action not offered by GET).
 */
export function namedAction<Row>(fields: Loose, actions: Readonly<Record<string, Row>>, accepts: (row: Row) => boolean = () => true): Row {
  const action = fields.action;
  if (action === undefined) throw GatewayError.field('action', MESSAGES.blank);
  if (typeof action !== 'string') throw GatewayError.field('action', MESSAGES.notType('string'));
  const row = Object.hasOwn(actions, action) ? actions[action] : undefined;
  if (!row || !accepts(row)) throw GatewayError.field('action', MESSAGES.notChoice);
  return row;
}
