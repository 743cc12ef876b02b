/**
 * The payer pages' language for one request: the payer's own choice (`?lang=`, then remembered in a cookie),
 * the session's `locale` set by the merchant, the browser's Accept-Language, English (web/i18n.ts decides).
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { negotiateLocale, supportedLocale, translator, type Translator } from '../../web/i18n.ts';

export const LANGUAGE_COOKIE = 'pc_lang';

function cookie(req: FastifyRequest, name: string): string | undefined {
  const header = req.headers.cookie;
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const at = part.indexOf('=');
    if (at > 0 && part.slice(0, at).trim() === name) return part.slice(at + 1).trim();
  }
  return undefined;
}

function queryLang(req: FastifyRequest): string | undefined {
  const q = req.query as Record<string, unknown> | undefined;
  const v = q && typeof q === 'object' ? q.lang : undefined;
  return typeof v === 'string' ? v : undefined;
}

/** The translator for this request; a supported `?lang=` is remembered for the payer's next pages. */
export function pageTranslator(req: FastifyRequest, reply: FastifyReply, sessionLocale?: string): Translator {
  const asked = supportedLocale(queryLang(req));
  if (asked) reply.header('set-cookie', `${LANGUAGE_COOKIE}=${asked}; Path=/; Max-Age=2592000; SameSite=Lax; HttpOnly`);
  const locale = negotiateLocale({
    choice: asked ?? cookie(req, LANGUAGE_COOKIE),
    sessionLocale,
    acceptLanguage: req.headers['accept-language'],
  });
  return translator(locale);
}
