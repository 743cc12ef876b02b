/**
 * Hosted payment fields on the Checkout channel (decisions D4, wire-reference 2.1, 3.1 and 7.4):
 * - `POST /api/v1/session/token` (merchant backend, Checkout session hash) -> `{token}`;
 * - `PUT /api/v1/session/update` (header Token) changes what is not paid yet; amount and currency only with the
 *   merchant's merchant_key and hash (issue 25, item 6);
 * - `POST /api/v1/processing/{purchase|debit}/card` (header Token) charges the collected card;
 * - the browser side: the SDK at `/sdk/hosted-fields.js`, the field frames at `/hosted-fields/frame/{field}`
 *   and `POST /hosted-fields/collect`, where the card frame posts the card (same origin, never via the merchant).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { authenticate } from '../merchant-auth.ts';
import { pageTranslator } from '../pages/locale.ts';
import { checkout, checkoutHash } from '../../domain/signatures.ts';
import { GatewayError, MESSAGES, type FieldError } from '../../domain/errors.ts';
import { openSession, DEFAULT_SESSION_EXPIRY_MINUTES } from '../../services/checkout-sessions.ts';
import {
  CollectedCvvs, billingPayer, collectCard, hostedSessionOrder, processHostedFields, updateHostedSession,
  type ProcessingOutcome, type SessionChange,
} from '../../services/hosted-fields.ts';
import { payerRedirect } from '../../services/s2s-card/payer-redirect.ts';
import { returnQuery } from '../../services/callbacks/checkout-callback.ts';
import type { SessionRequest as StoredSessionRequest } from '../../services/queries/sessions.ts';
import {
  CollectRequest, ProcessingRequest, ProcessingResponse, SessionTokenRequest, SessionTokenResponse, SessionUpdateAnswer, SessionUpdateRequest,
} from './schemas.ts';
import {
  COLLECT_PATH, FRAME_CSP, FRAME_PATH, FRAME_SCRIPT, FRAME_SCRIPT_PATH, FRAME_STYLE, FRAME_STYLE_PATH, SDK_FILE, SDK_PATH,
  isFieldKind, renderFieldFrame, type StaticFile,
} from '../../web/hosted-fields/frame.ts';
import { amountText, flag, isFieldError, storedRequest, wireMoney } from './wire.ts';
import { SESSION_EXAMPLE } from './routes.ts';
import { ORDER, PAYMENT_ID, demoCallbackHash, type Json, type OperationDoc } from '../route-docs.ts';

const TAG = { tags: ['Checkout'] };

/** The stored request of a hosted-fields session: card only, and every payer return goes to return_url. */
function hostedRequest(body: SessionTokenRequest): StoredSessionRequest {
  // After 3-D Secure or a redirect the payer comes back to return_url, whatever the outcome.
  const back = body.return_url;
  return storedRequest(body, { methods: ['card'], successUrl: back, cancelUrl: back, errorUrl: back, expiryUrl: back, hostedFields: { returnUrl: back } });
}

// --- browser details -------------------------------------------------------------------------------------

/** browser_info names (snake_case or camelCase) -> the stored name, which is the callbacks' browser_<name>. */
const BROWSER_KEYS: Readonly<Record<string, string>> = {
  accept_headers: 'accept_headers', acceptHeaders: 'accept_headers', accept_header: 'accept_headers', acceptHeader: 'accept_headers',
  color_depth: 'color_depth', colorDepth: 'color_depth',
  screen_height: 'screen_height', screenHeight: 'screen_height',
  screen_width: 'screen_width', screenWidth: 'screen_width',
  java_enabled: 'java_enabled', javaEnabled: 'java_enabled',
  javascript_enabled: 'javascript_enabled', javascriptEnabled: 'javascript_enabled',
  language: 'language',
  timezone_offset: 'timezone_offset', timezoneOffset: 'timezone_offset', time_zone_offset: 'timezone_offset',
  user_agent: 'user_agent', userAgent: 'user_agent',
  platform: 'platform',
};

/** The known browser details as strings; unknown names and empty values are dropped. */
export function browserDetails(info: Record<string, unknown> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(info ?? {})) {
    const name = Object.hasOwn(BROWSER_KEYS, key) ? BROWSER_KEYS[key] : undefined;
    if (!name || value === null || value === undefined || value === '') continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') out[name] = String(value).slice(0, 2048);
  }
  return out;
}

// --- answers ----------------------------------------------------------------------------------------------

/** The processing answer (wire-reference 3.1): result, redirect for 3-D Secure, return parameters when final. */
export function processingAnswer(ctx: ServiceContext, { step, merchant }: ProcessingOutcome): Record<string, unknown> {
  const p = step.payment;
  if (step.kind === 'challenge' || step.kind === 'redirect') {
    const redirect = payerRedirect(ctx.baseUrl, p);
    if (redirect) return { result: 'redirect', redirect_url: redirect.url, redirect_params: redirect.params, redirect_method: redirect.method, public_id: p.id };
  }
  if (step.kind !== 'final') return { result: 'waiting', public_id: p.id };
  const result = p.status === 'settled' || p.status === 'pending' ? 'success' : p.status === 'decline' ? 'decline' : 'undefined';
  return {
    result,
    ...(result === 'decline' ? { decline_message: p.declineReason ?? 'Declined by processing' } : {}),
    return_url_query_params: Object.fromEntries(returnQuery(merchant, p, step.transId)),
    public_id: p.id,
  };
}

function sendStatic(req: FastifyRequest, reply: FastifyReply, file: StaticFile): FastifyReply {
  reply
    .header('etag', file.etag)
    .header('cache-control', 'public, max-age=300, must-revalidate')
    .header('x-content-type-options', 'nosniff')
    // Loaded by merchant pages of any origin (the SDK) and by the frames (script, stylesheet).
    .header('cross-origin-resource-policy', 'cross-origin')
    .header('access-control-allow-origin', '*');
  if (req.headers['if-none-match'] === file.etag) return reply.code(304).send();
  return reply.type(file.contentType).send(file.body);
}

/** The gateway's own origin: the field frames post from there. */
function ownOrigins(ctx: ServiceContext, req: FastifyRequest): Set<string> {
  const origins = new Set<string>([`${req.protocol}://${req.host}`]);
  try {
    origins.add(new URL(ctx.baseUrl).origin);
  } catch {
    // a base URL that is not a URL adds nothing
  }
  return origins;
}

const REJECTED_ON_UPDATE = ['merchant_key', 'hash'] as const;

/** Issue 25, item 6: the Token lives in the payer's browser, so it never changes what the payer is charged. */
export const SIGNED_CHANGE_ONLY = 'This value changes only with the merchant\'s merchant_key and hash (the session formula over the new order).';

/**
 * A change of amount or currency must come from the merchant's backend: merchant_key and the session formula's
 * hash over the order it makes (number, new amount, new currency, description), for the session's own merchant.
 */
async function checkSignedMoneyChange(ctx: ServiceContext, req: FastifyRequest<{ Body: SessionUpdateRequest }>, change: SessionChange): Promise<void> {
  const { merchant_key: key, hash } = req.body;
  const fields = [...(change.amount !== undefined ? ['order.amount'] : []), ...(change.currency !== undefined ? ['order.currency'] : [])];
  const order = await hostedSessionOrder(ctx, req.headers.token);
  if (key === undefined || hash === undefined) throw GatewayError.invalid(fields.map((field) => ({ field, message: SIGNED_CHANGE_ONLY })));
  const next = { number: order.number, amount: change.amount ?? order.amount, currency: change.currency ?? order.currency, description: change.description ?? order.description };
  const { merchant } = await authenticate(ctx, req, key, hash, (m) => [(upper) => checkoutHash(checkout.session(next), m.password, m.digest, upper)]);
  if (merchant.id !== order.merchantId) throw new GatewayError('sessionTokenForbidden');
}

// --- the documents' examples ----------------------------------------------------------------------------

const TOKEN_PARAM: Json = { name: 'Token', in: 'header', required: true, description: 'The token answered by POST /api/v1/session/token', schema: { type: 'string' } };

const processingDoc = (operation: 'purchase' | 'debit'): OperationDoc => ({
  description: `Charges the card the hosted fields collected for a ${operation} session. No hash: the \`Token\` header authenticates. A \`redirect\` result sends the payer to \`redirect_url\` (3-D Secure); \`return_url_query_params\` are signed as return URLs are.`,
  example: { name: 'Jane Roe', with_hosted_fields: true, email: 'jane@example.com', billing_address: { country: 'GB', city: 'London', address: '1 Main Street', zip: 'SW1A1AA', phone: '+441234567890' } },
  parameters: [TOKEN_PARAM],
  answer: ProcessingResponse,
  answerExample: { result: 'success', public_id: PAYMENT_ID, return_url_query_params: { payment_id: PAYMENT_ID, trans_id: PAYMENT_ID, order_id: ORDER.number, hash: demoCallbackHash() } },
  errors: ['sessionTokenInvalid', 'sessionNotPayable', 'sessionOperationMismatch', 'noEligibleMid', 'dayMidLimit'],
});

export function registerHostedFieldsRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  const cvvs = new CollectedCvvs(ctx.clock);

  app.post<{ Body: SessionTokenRequest }>('/api/v1/session/token', {
    schema: { ...TAG, summary: 'Open a session for hosted payment fields', body: SessionTokenRequest, response: { 200: SessionTokenResponse } },
    config: {
      doc: {
        recipe: ['checkoutSession'],
        example: { ...SESSION_EXAMPLE, methods: undefined, success_url: undefined, cancel_url: undefined, return_url: 'https://shop.example/return' },
        answer: SessionTokenResponse, answerExample: { token: '9c1e4b2a7d3f4e5a8b6c0d1e2f3a4b5c6d7e8f9a0b1c2d3e' }, errors: ['noEligibleMid', 'dayMidLimit'],
      },
    },
  }, async (req) => {
    const body = req.body;
    const amount = amountText(body.order.amount);
    const { merchant, mids } = await authenticate(ctx, req, body.merchant_key, body.hash, (m) => [
      (upper) => checkoutHash(checkout.session({ number: body.order.number, amount, currency: body.order.currency, description: body.order.description }), m.password, m.digest, upper),
    ]);
    // Hosted fields take cards only.
    const errors: FieldError[] = (body.methods ?? []).flatMap((key, i) => (key === 'card' ? [] : [{ field: `methods[${i}]`, message: MESSAGES.notChoice }]));
    // The consent checkbox lives on the hosted page; the merchant's own page asks for consent itself.
    if (flag(body.recurring_consent_required)) errors.push({ field: 'recurring_consent_required', message: MESSAGES.notCorrect });
    const money = wireMoney('order.amount', 'order.currency', amount, body.order.currency);
    if (isFieldError(money)) throw GatewayError.invalid([...errors, money]);
    if (errors.length > 0) throw GatewayError.invalid(errors);
    const opened = await openSession(ctx, merchant, mids, {
      operation: body.operation,
      order: { number: body.order.number, amount: money, description: body.order.description },
      request: hostedRequest(body),
      sessionExpiryMinutes: body.session_expiry ?? DEFAULT_SESSION_EXPIRY_MINUTES,
      payer: {
        name: body.customer?.name,
        email: body.customer?.email,
        birthDate: body.customer?.birth_date,
        // customer.ip is the payer's IP; without it, the IP of the system calling us (interface spec, Endpoints).
        ip: body.customer?.ip ?? body.payer_ip ?? req.ip,
        ...billingPayer(body.billing_address ?? {}),
      },
    });
    // The session id is the token: random (24 bytes), and accepted as a Token only by hosted-fields sessions.
    return { token: opened.sessionId };
  });

  app.put<{ Body: SessionUpdateRequest }>('/api/v1/session/update', {
    schema: { ...TAG, summary: 'Change a hosted-fields session before any payment attempt (header Token)', body: SessionUpdateRequest },
    config: {
      doc: {
        description: 'Changes a hosted-fields session before any payment attempt: only what changes. The `Token` header (from POST /api/v1/session/token) authenticates, except for a change of amount or currency: the Token lives in the payer\'s browser, so such a change also carries `merchant_key` and `hash`, the session formula over the new order (order number, new amount, new currency, description), computed by the merchant\'s backend. Without them: 400 on `order.amount` / `order.currency`. `merchant_key` and `hash` are refused on any other change.',
        example: { order: { description: 'Two tickets, row 5' } }, parameters: [TOKEN_PARAM], answer: SessionUpdateAnswer, answerExample: { result: 'success' }, errors: ['sessionTokenForbidden', 'sessionNotUpdatable'],
      },
    },
  }, async (req) => {
    const body = req.body;
    const amount = body.order_amount ?? body.order?.amount;
    const change: SessionChange = {
      amount: amount === undefined ? undefined : amountText(amount),
      currency: body.order_currency ?? body.order?.currency,
      description: body.order_description ?? body.order?.description,
      customer: body.customer,
      billingAddress: body.billing_address as Record<string, string> | undefined,
      customData: body.custom_data,
    };
    if (Object.values(change).every((v) => v === undefined)) throw GatewayError.field('request', MESSAGES.blank);
    if (change.amount !== undefined || change.currency !== undefined) await checkSignedMoneyChange(ctx, req, change);
    else {
      const rejected = REJECTED_ON_UPDATE.filter((key) => Object.hasOwn(body, key));
      if (rejected.length > 0) throw GatewayError.invalid(rejected.map((field) => ({ field, message: MESSAGES.extraField })));
    }
    await updateHostedSession(ctx, req.headers.token, change);
    return { result: 'success' };
  });

  for (const operation of ['purchase', 'debit'] as const) {
    app.post<{ Body: ProcessingRequest }>(`/api/v1/processing/${operation}/card`, {
      schema: { ...TAG, summary: `Charge the card collected by the hosted fields (${operation} session, header Token)`, body: ProcessingRequest, response: { 200: ProcessingResponse } },
      config: { doc: processingDoc(operation) },
    }, async (req) => {
      const b = req.body;
      const outcome = await processHostedFields(ctx, cvvs, req.headers.token, operation, {
        name: b.name,
        email: b.email,
        billingAddress: b.billing_address as Record<string, string> | undefined,
        birthDate: b.birth_day,
        language: b.selected_language,
        browser: browserDetails(b.browser_info),
      });
      return processingAnswer(ctx, outcome);
    });
  }

  // --- the browser side ---------------------------------------------------------------------------------

  app.post<{ Body: CollectRequest }>(COLLECT_PATH, { schema: { hide: true, body: CollectRequest } }, async (req, reply) => {
    // Only the gateway's own field frame posts here; a browser on another origin is refused outright.
    const origin = req.headers.origin;
    if (origin !== undefined && !ownOrigins(ctx, req).has(origin)) throw new GatewayError('sessionTokenForbidden');
    const b = req.body;
    const userAgent = req.headers['user-agent'];
    const summary = await collectCard(ctx, cvvs, req.headers.token, {
      cardNumber: b.card_number,
      expiry: b.card_expiry,
      cvv: b.card_cvv,
      browser: { ...browserDetails(b.browser), ...(typeof userAgent === 'string' ? { user_agent: userAgent.slice(0, 512) } : {}) },
      ...(b.device_id ? { deviceId: b.device_id } : {}),
    });
    reply.header('cache-control', 'no-store');
    return { result: 'success', card: summary };
  });

  app.get<{ Params: { field: string } }>(`${FRAME_PATH}/:field`, { schema: { hide: true }, config: { dialect: 'html' as const } }, async (req, reply) => {
    const field = req.params.field;
    if (!isFieldKind(field)) throw new GatewayError('notFound');
    return reply
      .header('content-security-policy', FRAME_CSP)
      .header('cache-control', 'public, max-age=300')
      .header('vary', 'Accept-Language, Cookie')
      .header('referrer-policy', 'no-referrer')
      .header('x-content-type-options', 'nosniff')
      .type('text/html; charset=utf-8')
      .send(renderFieldFrame(field, pageTranslator(req, reply)));
  });

  app.get(SDK_PATH, { schema: { hide: true } }, async (req, reply) => sendStatic(req, reply, SDK_FILE));
  app.get(FRAME_SCRIPT_PATH, { schema: { hide: true } }, async (req, reply) => sendStatic(req, reply, FRAME_SCRIPT));
  app.get(FRAME_STYLE_PATH, { schema: { hide: true } }, async (req, reply) => sendStatic(req, reply, FRAME_STYLE));
}
