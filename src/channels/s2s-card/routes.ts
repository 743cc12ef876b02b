/**
 * The S2S CARD channel (decisions D4): `POST /post` and `POST /v2/post`, form-encoded or multipart, the
 * action named in `action`. Decode, pick the action's row, validate, authenticate, call, encode; the rows
 * live in actions.ts. Every answer, errors included, is JSON with the S2S dialect (`"result": "ERROR"`).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import multipart from '@fastify/multipart';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { verifyAny } from '../../domain/signatures.ts';
import { collectErrors, compile } from '../validation.ts';
import { toGatewayError } from '../error-handler.ts';
import { parseForm } from '../form.ts';
import { ACTIONS, type ActionSpec } from './actions.ts';
import type { Answer } from './answers.ts';
import type { Loose } from './fields.ts';

const ROUTE = {
  config: { dialect: 's2s' as const },
  schema: {
    tags: ['S2S CARD'],
    summary: 'S2S CARD action (form fields; the action in `action`)',
    description: 'SALE, DEBIT, CREDIT2CARD, CAPTURE, VOID, CREDITVOID, GET_TRANS_STATUS, GET_TRANS_STATUS_BY_ORDER, GET_TRANS_DETAILS, RETRY, '
      + 'RECURRING_SALE, RECURRING_DEBIT, CREATE_SCHEDULE, UPDATE_SCHEDULE, DELETE_SCHEDULE, PAUSE (PAUSE_SCHEDULE), RUN (RUN_SCHEDULE), '
      + 'SCHEDULE_INFO (also by GET), DESCHEDULE. '
      + 'Body: application/x-www-form-urlencoded or multipart/form-data. /v2/post lists redirect_params as [{name, value}].',
  },
};

/** Multipart: fields only, bounded; a file part fails the request (FST_FILES_LIMIT: "Files are not accepted."). */
const MULTIPART_LIMITS = { files: 0, fields: 1000, parts: 1000, fieldNameSize: 200, fieldSize: 64 * 1024 };

/** The request's fields as the form parser nests them (bracket keys become objects), empty values dropped. */
async function formFields(req: FastifyRequest): Promise<Loose> {
  let fields: unknown;
  if (req.method === 'GET') fields = parseForm(req.url.split('?')[1] ?? '');
  else if (req.isMultipart()) fields = parseForm(await multipartQuery(req));
  else fields = req.body;
  if (fields === null || typeof fields !== 'object' || Array.isArray(fields)) return {};
  // PHP clients send unused optional fields empty: an empty value counts as not sent.
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ''));
}

/**
 * Multipart fields back to a query string, so bracket keys nest exactly as in a form body. Read here rather
 * than by the plugin's body hook, so that a broken multipart body is a D3 validation error, not a 500.
 */
async function multipartQuery(req: FastifyRequest): Promise<string> {
  const query = new URLSearchParams();
  try {
    for await (const part of req.parts()) if (part.type === 'field' && typeof part.value === 'string') query.append(part.fieldname, part.value);
  } catch (err) {
    throw toGatewayError(err) ?? new GatewayError('invalidRequest', [{ field: 'request', message: 'The multipart body is malformed.' }]);
  }
  return query.toString();
}

function actionFor(fields: Loose, method: string): ActionSpec {
  const action = fields.action;
  if (action === undefined) throw GatewayError.field('action', MESSAGES.blank);
  if (typeof action !== 'string') throw GatewayError.field('action', MESSAGES.notType('string'));
  const spec = Object.hasOwn(ACTIONS, action) ? ACTIONS[action] : undefined;
  // Only SCHEDULE_INFO may come by GET; for any other action GET is not a valid choice.
  if (!spec || (method === 'GET' && !spec.byGet)) throw GatewayError.field('action', MESSAGES.notChoice);
  return spec;
}

/** Fields holding a NUL character, which no PostgreSQL text or jsonb value can store. */
function nulFields(value: unknown, path: string): FieldError[] {
  if (typeof value === 'string') return value.includes('\u0000') ? [{ field: path, message: MESSAGES.notValid }] : [];
  if (value === null || typeof value !== 'object') return [];
  return Object.entries(value).flatMap(([key, v]) => nulFields(v, path ? `${path}.${key}` : key));
}

/** Schema errors and the action's own field rules, one message per field (the first found), in one answer. */
function validated(spec: Extract<ActionSpec, { kind: 'supported' }>['spec'], fields: Loose): void {
  const check = compile(spec.schema);
  // Check first: collecting errors walks the whole schema, which a valid request should not pay for.
  const schemaErrors = check.Check(fields) ? [] : collectErrors(check, fields);
  const errors = new Map<string, string>();
  for (const e of [...nulFields(fields, ''), ...schemaErrors, ...(spec.rules?.(fields) ?? [])]) if (!errors.has(e.field)) errors.set(e.field, e.message);
  if (errors.size > 0) throw GatewayError.invalid([...errors].map(([field, message]) => ({ field, message })));
}

async function answer(ctx: ServiceContext, req: FastifyRequest, v2: boolean): Promise<Answer> {
  const fields = await formFields(req);
  const action = actionFor(fields, req.method);
  if (action.kind === 'not-supported') throw new GatewayError('actionNotSupported');
  const spec = action.spec;
  validated(spec, fields);
  const found = await ctx.merchants.byMerchantKey(fields.client_key as string);
  if (!found) throw new GatewayError('merchantNotFound');
  // The target is loaded before the hash check: F2 and F7 hash the e-mail and card of the payment named.
  const target = spec.target ? await spec.target(ctx, found.merchant, fields) : undefined;
  if (!verifyAny(fields.hash, spec.hashes(found.merchant, fields, target))) throw new GatewayError('hashInvalid');
  return spec.handle({ ctx, merchant: found.merchant, mids: found.mids, dialect: { v2, baseUrl: ctx.baseUrl } }, fields, target);
}

export async function registerS2sCardRoutes(app: FastifyInstance, ctx: ServiceContext): Promise<void> {
  // An encapsulated scope: multipart parsing and the refusal of JSON apply to these routes only.
  await app.register(async (scope) => {
    scope.removeContentTypeParser(['application/json', 'text/plain']);
    await scope.register(multipart, { limits: MULTIPART_LIMITS });
    // busboy streams multipart past bodyLimit; a declared length over it is refused before parsing.
    scope.addHook('onRequest', async (req) => {
      if (Number(req.headers['content-length'] ?? 0) > scope.initialConfig.bodyLimit!) throw new GatewayError('payloadTooLarge', [{ field: 'request', message: 'The request body is too large.' }]);
    });
    for (const [path, v2] of [['/post', false], ['/v2/post', true]] as const) {
      scope.post(path, ROUTE, (req) => answer(ctx, req, v2));
      scope.get(path, { ...ROUTE, schema: { ...ROUTE.schema, summary: 'S2S CARD SCHEDULE_INFO by GET' } }, (req) => answer(ctx, req, v2));
    }
  });
}
