/** How the payer pages answer: HTML with the pages' headers, message pages from catalog keys, form fields as text. */
import type { FastifyReply } from 'fastify';
import { renderMessagePage, CONTENT_SECURITY_POLICY } from '../../web/pages.ts';
import type { Translator } from '../../web/i18n.ts';

/** Route options of a payer page: HTML errors, and no schema of its own (openapi.ts documents the pages). */
export const PAGE = { schema: { hide: true }, config: { dialect: 'html' as const } };

export function sendHtml(reply: FastifyReply, html: string, status = 200, csp = CONTENT_SECURITY_POLICY): FastifyReply {
  return reply
    .code(status)
    .header('content-security-policy', csp)
    .header('cache-control', 'no-store')
    .header('referrer-policy', 'no-referrer')
    .header('x-content-type-options', 'nosniff')
    .type('text/html; charset=utf-8')
    .send(html);
}

/** A message page from catalog keys ("<key>.title" and "<key>.text"). */
export const message = (reply: FastifyReply, t: Translator, key: string, kind: 'info' | 'success' | 'error', status = 200) =>
  sendHtml(reply, renderMessagePage({ title: t.t(`${key}.title`), message: t.t(`${key}.text`), kind }, t), status);

/** The named string fields of a form or query (each cut at 4 KiB); anything else is left out. */
export function stringFields(body: unknown, names: string[]): Record<string, string> {
  const out: Record<string, string> = {};
  if (typeof body !== 'object' || body === null) return out;
  for (const name of names) {
    const value = (body as Record<string, unknown>)[name];
    if (typeof value === 'string') out[name] = value.slice(0, 4096);
  }
  return out;
}
