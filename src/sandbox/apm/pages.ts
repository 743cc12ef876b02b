/**
 * The sandbox APM provider's payer side: its payment page (and a mail payout's security question), the payer's
 * app or bank (confirmations, QR payments, transfers), and the outbox of the e-mails, SMS and app notifications
 * it "sent". Production mode serves them for sandbox payments only (production-guard.ts).
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ServiceContext } from '../../services/context.ts';
import { findMethod } from '../../domain/methods/catalog.ts';
import { GatewayError } from '../../domain/errors.ts';
import { declineMessageKey } from '../../domain/declines.ts';
import { PAGE_HEADERS, renderMessagePage } from '../../web/pages.ts';
import { renderProviderPage } from '../templates.ts';
import { renderSandboxClaimPage, renderSandboxDevicePage, renderSandboxOutboxPage } from '../../web/apm-pages.ts';
import type { Translator } from '../../web/i18n.ts';
import { pageTranslator } from '../../channels/pages/locale.ts';
import { methodName } from '../../channels/pages/receipt.ts';
import type { SandboxApmPayment } from './engine.ts';
import { sandboxApm } from './instance.ts';

const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };
const JSON_ROUTE = { schema: { hide: true }, config: { dialect: 'json' as const } };

const sendHtml = (reply: FastifyReply, body: string, status = 200) => reply.code(status).headers(PAGE_HEADERS).send(body);

/** A message page from catalog keys ("<key>.title" and "<key>.text"). */
const message = (reply: FastifyReply, t: Translator, key: string, kind: 'info' | 'success' | 'error', status = 200) =>
  sendHtml(reply, renderMessagePage({ title: t.t(`${key}.title`), message: t.t(`${key}.text`), kind }, t), status);

function first(body: unknown, name: string): string {
  if (typeof body !== 'object' || body === null) return '';
  const v = (body as Record<string, unknown>)[name];
  const value = Array.isArray(v) ? v[0] : v;
  return typeof value === 'string' ? value.slice(0, 255) : '';
}

const methodLabel = (key: string, t?: Translator) => (t ? methodName(t, key) : (findMethod(key)?.label ?? key));

/** Letters and digits only: transfer forms refuse `_`, `-` and the like in a reference. */
export const transferReference = (ref: string, length: number) => ref.replace(/[^A-Za-z0-9]/g, '').slice(-length).toUpperCase();

/** What the payer's app or bank shows, by the experience that sent the payer there. */
function devicePage(t: Translator, rec: SandboxApmPayment): { appName: string; heading: string; approveLabel: string; lines?: { label: string; value: string }[] } {
  if (rec.experience === 'qr') return { appName: t.t('device.bank'), heading: t.t('device.qrHeading'), approveLabel: t.t('device.pay'), lines: [{ label: t.t('details.reference'), value: transferReference(rec.reference, 20) }] };
  if (rec.experience === 'details') return { appName: t.t('device.bank'), heading: t.t('device.transferHeading'), approveLabel: t.t('device.send'), lines: [{ label: t.t('detail.payment-reference'), value: transferReference(rec.reference, 12) }] };
  return { appName: t.t('device.app', { method: methodLabel(rec.method) }), heading: t.t('device.confirmHeading'), approveLabel: t.t('device.confirm') };
}

const DECIDED: Readonly<Record<string, { key: string; kind: 'success' | 'error' }>> = {
  executed: { key: 'device.executed', kind: 'success' },
  rejected: { key: 'device.rejected', kind: 'error' },
};

function decided(reply: FastifyReply, t: Translator, rec: SandboxApmPayment) {
  const d = DECIDED[rec.state] ?? DECIDED.rejected!;
  const why = rec.state === 'rejected' && rec.reason ? `${t.t(declineMessageKey(rec.reason, 'apm'))} ` : '';
  return sendHtml(reply, renderMessagePage({ title: t.t(`${d.key}.title`), message: `${why}${t.t(`${d.key}.text`)}`, kind: d.kind }, t));
}

export function registerSandboxApmPages(app: FastifyInstance, ctx: ServiceContext): void {
  const sandbox = () => sandboxApm(ctx);
  const pending = async (req: FastifyRequest, ref: string, reply: FastifyReply, render: (rec: SandboxApmPayment, t: Translator) => FastifyReply) => {
    const rec = await sandbox().find(ref);
    const t = pageTranslator(req, reply);
    if (!rec) return message(reply, t, 'msg.nothingToPay', 'error', 404);
    return rec.state === 'pending' ? render(rec, t) : decided(reply, t, rec);
  };
  const decide = async (req: FastifyRequest, ref: string, body: unknown, reply: FastifyReply, backToMerchant: boolean) => {
    const rec = await sandbox().payerDecision(ref, first(body, 'decision') === 'decline' ? 'reject' : 'approve');
    const t = pageTranslator(req, reply);
    if (!rec) return message(reply, t, 'msg.nothingToPay', 'error', 404);
    // A provider page the payer was redirected to sends them back; an app or a mailed link was opened elsewhere.
    if (backToMerchant && rec.experience === 'redirect' && rec.returnUrl) return reply.redirect(rec.returnUrl, 303);
    return decided(reply, t, rec);
  };

  /** A mail payout's link: the security question (with why the last answer failed). */
  const claimPage = (reply: FastifyReply, t: Translator, rec: SandboxApmPayment, error?: string, status = 200) => sendHtml(reply, renderSandboxClaimPage({
    merchantName: rec.merchantName, amount: t.money(rec.amount, rec.currency), description: rec.description, question: rec.securityQuestion ?? '',
    actionUrl: `/sandbox/apm/${encodeURIComponent(rec.reference)}`, ...(rec.payeeName ? { payeeName: rec.payeeName } : {}), ...(error ? { error } : {}),
    ...(rec.accountUuid ? { account: rec.accountUuid } : {}), ...(rec.feeCalculationMethod ? { fees: rec.feeCalculationMethod } : {}),
  }, t), status);

  app.get<{ Params: { ref: string } }>('/sandbox/apm/:ref', PAGE, async (req, reply) => pending(req, req.params.ref, reply, (rec, t) => rec.securityQuestion ? claimPage(reply, t, rec) : sendHtml(reply, renderProviderPage({
    title: t.t('device.app', { method: methodLabel(rec.method) }), merchantName: rec.merchantName, amount: t.money(rec.amount, rec.currency), currency: rec.currency,
    description: rec.description, actionUrl: `/sandbox/apm/${encodeURIComponent(rec.reference)}`, fields: {}, approveLabel: t.t('device.pay'), declineLabel: t.t('provider.cancel'),
  }, t))));
  app.post<{ Params: { ref: string }; Body: Record<string, unknown> }>('/sandbox/apm/:ref', PAGE, async (req, reply) => {
    const rec = await sandbox().find(req.params.ref);
    // A mail payout is released by the answer to its security question; refusing it needs none.
    if (!rec?.securityQuestion || first(req.body, 'decision') === 'decline') return decide(req, req.params.ref, req.body, reply, true);
    const t = pageTranslator(req, reply);
    const result = await sandbox().answerQuestion(rec.reference, first(req.body, 'answer').slice(0, 40));
    if (result.kind === 'retry') return claimPage(reply, t, result.payment, t.t('claim.wrong', { count: result.attemptsLeft }), 422);
    return result.kind === 'decided' ? decided(reply, t, result.payment) : message(reply, t, 'msg.nothingToPay', 'error', 404);
  });

  app.get<{ Params: { ref: string } }>('/sandbox/apm/:ref/app', PAGE, async (req, reply) => pending(req, req.params.ref, reply, (rec, t) => sendHtml(reply, renderSandboxDevicePage({
    ...devicePage(t, rec), merchantName: rec.merchantName, amount: t.money(rec.amount, rec.currency), currency: rec.currency,
    description: rec.description, actionUrl: `/sandbox/apm/${encodeURIComponent(rec.reference)}/app`, declineLabel: t.t('device.reject'),
  }, t))));
  app.post<{ Params: { ref: string }; Body: Record<string, unknown> }>('/sandbox/apm/:ref/app', PAGE, async (req, reply) => decide(req, req.params.ref, req.body, reply, false));

  app.get<{ Querystring: Record<string, unknown> }>('/sandbox/outbox', PAGE, async (req, reply) => {
    const t = pageTranslator(req, reply);
    const to = first(req.query, 'to').trim();
    const messages = to ? await sandbox().outbox(to) : [];
    return sendHtml(reply, renderSandboxOutboxPage({
      ...(to ? { recipient: to } : {}),
      messages: messages.map((m) => ({ channel: m.channel, recipient: m.recipient, subject: m.subject, body: m.body, link: m.link, date: m.createdAt.toISOString() })),
    }, t));
  });

  app.get<{ Querystring: Record<string, unknown> }>('/sandbox/outbox/messages', JSON_ROUTE, async (req, reply) => {
    const to = first(req.query, 'to').trim();
    if (!to) throw GatewayError.field('to', 'This value should not be blank.');
    const messages = await sandbox().outbox(to);
    return reply.header('cache-control', 'no-store').send({ messages: messages.map((m) => ({ ...m, createdAt: m.createdAt.toISOString() })) });
  });
}
