/**
 * The sandbox APM provider over HTTP (issue 17 item 8), at /sandbox/apm-provider: the provider API that
 * `apm-provider` MIDs call (one table row per call, JSON in and out), and the provider's own payer pages (the
 * voucher partner's page with its data-mismatch pop-up, the card-by-bank account list). Production mode serves
 * none of it (production-guard.ts: these paths name no sandbox payment).
 */
import type { FastifyInstance, FastifyReply } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { sandboxApm } from './instance.ts';
import { sqlSandboxStore } from './store.ts';
import { PROVIDER_PREFIX, SandboxApmProvider, type Headers, type ProviderAnswer } from './provider.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { html, raw } from '../../web/html.ts';

type Json = Record<string, unknown>;
type Call = (p: SandboxApmProvider, req: { headers: Headers; body: Json; id: string; query: Json }) => Promise<ProviderAnswer>;

interface ApiRoute {
  method: 'GET' | 'POST';
  path: string;
  summary: string;
  call: Call;
}

/** The provider API, one row per call: what the connector of each kind sends (docs/merchants/methods.md, Provider kinds). */
const API: readonly ApiRoute[] = [
  { method: 'POST', path: '/accounts', summary: 'Issues a provider account: API key, API secret and the private key for the MID (shown once)', call: (p) => p.createAccount() },
  { method: 'POST', path: '/payments', summary: 'Header-key kinds: creates a payment (generic, identity transfer, card by bank, after a challenge)', call: (p, r) => p.createPayment(r.headers, r.body) },
  { method: 'GET', path: '/payments', summary: 'Header-key kinds: finds a payment by public_id (a caller whose create answer was lost)', call: (p, r) => p.lookup(r.headers, String(r.query.public_id ?? '')) },
  { method: 'GET', path: '/payments/:id', summary: 'Header-key kinds: the status of a payment', call: (p, r) => p.paymentStatus(r.headers, r.id, 'header_key') },
  { method: 'POST', path: '/payments/:id/cancel', summary: 'Header-key kinds: withdraws a payment the payer has not finished', call: (p, r) => p.cancelPayment(r.headers, r.id, r.body, 'header_key') },
  { method: 'POST', path: '/payments/:id/otp', summary: 'Payer challenge: the one-time code the payer typed', call: (p, r) => p.verifyCode(r.headers, r.id, r.body) },
  { method: 'POST', path: '/payments/:id/otp/resend', summary: 'Payer challenge: sends a new code', call: (p, r) => p.resendCode(r.headers, r.id) },
  { method: 'POST', path: '/challenges', summary: 'Payer challenge: the challengeId request with its eight fields', call: (p, r) => p.createChallenge(r.headers, r.body) },
  { method: 'POST', path: '/pix/payin', summary: 'PIX payin: answers qr_code_id, status, base_64_image and pix_copy_and_paste', call: (p, r) => p.pixPayin(r.headers, r.body) },
  { method: 'POST', path: '/mobile-money/charge', summary: 'Mobile-money payin: answers auth_method STK_PROMPT and a message', call: (p, r) => p.mobileMoneyCharge(r.headers, r.body) },
  { method: 'POST', path: '/crypto/address', summary: 'Crypto address: a deposit address honouring crypto_type, network_type and bech32', call: (p, r) => p.cryptoAddress(r.headers, r.body) },
  { method: 'POST', path: '/reference-auth/token', summary: 'Reference and authorization: the token call, signed with the private key', call: (p, r) => p.issueToken(r.body) },
  { method: 'POST', path: '/reference-auth/references', summary: 'Reference and authorization: Create reference (amount, public id up to 40, single or recurring)', call: (p, r) => p.createReference(r.headers, r.body) },
  { method: 'POST', path: '/reference-auth/payments', summary: 'Reference and authorization: Create payment with the gateway id', call: (p, r) => p.createReferencePayment(r.headers, r.body) },
  { method: 'GET', path: '/reference-auth/payments/:id', summary: 'Reference and authorization: the status of a payment', call: (p, r) => p.paymentStatus(r.headers, r.id, 'token') },
  { method: 'POST', path: '/reference-auth/payments/:id/cancel', summary: 'Reference and authorization: withdraws a payment', call: (p, r) => p.cancelPayment(r.headers, r.id, r.body, 'token') },
  { method: 'POST', path: '/voucher/initiate', summary: 'Voucher partner: Initiate, signed (Signature)', call: (p, r) => p.voucherInitiate(r.body) },
  { method: 'POST', path: '/voucher/status', summary: 'Voucher partner: the status of a transaction, signed', call: (p, r) => p.voucherStatus(r.body) },
  { method: 'POST', path: '/voucher/cancel', summary: 'Voucher partner: withdraws a transaction, signed', call: (p, r) => p.voucherCancel(r.body) },
];

const AnyObject = Type.Object({}, { additionalProperties: true });
const IdParam = Type.Object({ id: Type.String({ minLength: 1, maxLength: 200 }) });
const RefParam = Type.Object({ ref: Type.String({ minLength: 1, maxLength: 200 }) });
const TAG = { tags: ['Sandbox'] };
const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };

const providers = new WeakMap<ServiceContext, SandboxApmProvider>();
function provider(ctx: ServiceContext): SandboxApmProvider {
  let p = providers.get(ctx);
  if (!p) {
    p = new SandboxApmProvider({ store: sqlSandboxStore(ctx.db), clock: ctx.clock, baseUrl: () => ctx.baseUrl, engine: sandboxApm(ctx) });
    providers.set(ctx, p);
  }
  return p;
}

function page(reply: FastifyReply, title: string, body: ReturnType<typeof html>, lang = 'en', status = 200): FastifyReply {
  const doc = html`<!doctype html><html lang="${/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(lang) ? lang : 'en'}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title}</title></head><body><main>${body}</main></body></html>`;
  return reply.code(status).header('cache-control', 'no-store').header('referrer-policy', 'no-referrer')
    .header('content-security-policy', "default-src 'none'; form-action 'self'; base-uri 'none'").type('text/html; charset=utf-8').send(doc.html);
}

/** Only http(s) addresses are followed from the partner's page (DeclineUrl is the merchant side's). */
const safeUrl = (url: string | undefined) => (url && /^https?:\/\//i.test(url) ? url : undefined);

export function registerApmProviderRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  for (const route of API) {
    const hasId = route.path.includes(':id');
    const schema: Record<string, TSchema | string | string[]> = { ...TAG, summary: `Sandbox APM provider. ${route.summary}`, response: { 200: AnyObject, 201: AnyObject } as unknown as TSchema };
    if (route.method === 'POST') schema.body = AnyObject;
    if (hasId) schema.params = IdParam;
    if (route.method === 'GET' && !hasId) schema.querystring = Type.Object({ public_id: Type.String({ minLength: 1, maxLength: 200 }) });
    app.route<{ Params: { id?: string }; Body: Json; Querystring: Json }>({
      method: route.method,
      url: `${PROVIDER_PREFIX}${route.path}`,
      schema,
      handler: async (req, reply) => {
        // PostgreSQL stores no NUL in text or jsonb: such a body is bad input, not a failure of ours.
        if (JSON.stringify(req.body ?? {}).includes('\\u0000')) throw GatewayError.field('body', MESSAGES.notValid);
        const answer = await route.call(provider(ctx), { headers: req.headers, body: (req.body ?? {}) as Json, id: req.params.id ?? '', query: (req.query ?? {}) as Json });
        return reply.code(answer.status).header('cache-control', 'no-store').send(answer.body);
      },
    });
  }

  // The voucher partner's page: the data-mismatch pop-up, then DeclineUrl; otherwise on to the payment page.
  app.get<{ Params: { ref: string }; Querystring: { p?: string } }>(`${PROVIDER_PREFIX}/pages/voucher/:ref`, PAGE, async (req, reply) => {
    const found = await provider(ctx).voucherPage(req.params.ref, String(req.query.p ?? ''));
    if (!found) throw new GatewayError('notFound');
    if (!found.mismatch) return reply.redirect(found.next, 303);
    const decline = safeUrl(found.declineUrl);
    return page(reply, 'Data mismatch', html`<dialog open role="alertdialog" aria-labelledby="mismatch-title">
<h1 id="mismatch-title">Data mismatch</h1>
<p>The payer's details do not match the partner's records. The payment cannot be made.</p>
${decline ? html`<p><a id="decline" href="${decline}">Continue</a></p>` : raw('')}
</dialog>`, found.language);
  });

  // Card by bank: the payer enters the beneficiary details and picks one of the provider's accounts; paying goes
  // the way D8 says, cancelling (or paying without them) refuses.
  app.get<{ Params: { ref: string } }>(`${PROVIDER_PREFIX}/pages/accounts/:ref`, PAGE, async (req, reply) => {
    const found = await provider(ctx).accountsPage(req.params.ref);
    if (!found) throw new GatewayError('notFound');
    const options = found.accounts.map((a, i) => html`<p><label><input type="radio" name="account" value="${a}"${i === 0 ? raw(' checked') : raw('')}> ${a}</label></p>`);
    return page(reply, 'Choose an account', found.accounts.length === 0
      ? html`<h1>Payment finished</h1>`
      : html`<h1>Pay ${found.amount}</h1><form method="post" action="${`${PROVIDER_PREFIX}/pages/accounts/${encodeURIComponent(req.params.ref)}`}"><p><label for="beneficiary">Beneficiary details</label> <input id="beneficiary" name="beneficiary" required maxlength="100" autocomplete="name"></p><fieldset><legend>Choose the account to pay from</legend>${options}</fieldset><button type="submit" name="decision" value="pay">Pay</button> <button type="submit" name="decision" value="cancel">Cancel</button></form>`);
  });

  app.post<{ Params: { ref: string }; Body: Json }>(`${PROVIDER_PREFIX}/pages/accounts/:ref`, PAGE, async (req, reply) => {
    const body = (req.body ?? {}) as Json;
    // Paying takes the beneficiary details the payer entered and an account of the list; anything else refuses.
    const beneficiary = typeof body.beneficiary === 'string' ? body.beneficiary.trim() : '';
    const account = body.decision === 'pay' && beneficiary !== '' && typeof body.account === 'string' ? body.account : undefined;
    const next = await provider(ctx).pickAccount(req.params.ref, account);
    if (next === undefined) throw new GatewayError('notFound');
    return reply.redirect(safeUrl(next) ?? `${PROVIDER_PREFIX}/pages/accounts/${encodeURIComponent(req.params.ref)}`, 303);
  });
}
