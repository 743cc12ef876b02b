/**
 * The operator console (issue 14) served by the gateway at `/admin`: the files Vite built into console/dist
 * (`npm run build:console`, run by `npm ci`'s prepare step), every client route answered with index.html so a
 * reloaded or shared URL opens its screen, and a strict Content-Security-Policy: only this origin's scripts,
 * styles and API, no inline code, no framing. The API under /admin/v1 is not part of it: an unknown API path
 * answers the D3 404 there, never the page. The merchant portal (issue 30) is served the same way at `/portal`
 * from portal/dist (its API: /portal/v1).
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance, FastifyReply } from 'fastify';
import fastifyStatic from '@fastify/static';
import { GatewayError } from '../../domain/errors.ts';

export const CONSOLE_CSP = [
  "default-src 'none'", "script-src 'self'", "style-src 'self'", "img-src 'self' data:", "font-src 'self'",
  "connect-src 'self'", "manifest-src 'self'", "base-uri 'none'", "form-action 'self'", "frame-ancestors 'none'",
].join('; ');

/**
 * Where the built console is: CONSOLE_DIR, else console/dist at the project's root. Both src/ and the
 * production build's dist/ sit one level under the root, so the same relative path serves both.
 */
export function consoleDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return process.env.CONSOLE_DIR ?? path.resolve(here, '../../../console/dist');
}

/** Where the built merchant portal is: PORTAL_DIR, else portal/dist at the project's root (as consoleDir). */
export function portalDir(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  return process.env.PORTAL_DIR ?? path.resolve(here, '../../../portal/dist');
}

/** A single-page app Vite built: where it is served, where its files are, and what to say when it is not built. */
interface BuiltApp { prefix: '/admin' | '/portal'; dir: string; notBuilt: string }

function documentHeaders(reply: FastifyReply): void {
  reply.header('content-security-policy', CONSOLE_CSP);
  reply.header('x-frame-options', 'DENY');
  reply.header('cross-origin-opener-policy', 'same-origin');
  reply.header('cross-origin-resource-policy', 'same-origin');
}

export async function registerConsole(app: FastifyInstance, dir = consoleDir()): Promise<void> {
  await registerBuiltApp(app, { prefix: '/admin', dir, notBuilt: 'The operator console is not built: run `npm run build:console` (npm ci does it).\n' });
  await registerBuiltApp(app, { prefix: '/portal', dir: portalDir(), notBuilt: 'The merchant portal is not built: run `npm run build:console` (npm ci does it).\n' });
}

async function registerBuiltApp(app: FastifyInstance, { prefix, dir, notBuilt }: BuiltApp): Promise<void> {
  const built = existsSync(path.join(dir, 'index.html'));
  await app.register(async (scope) => {
    scope.addHook('onSend', async (_req, reply, payload) => {
      documentHeaders(reply);
      return payload;
    });
    if (built) {
      await scope.register(fastifyStatic, {
        root: dir, prefix: `${prefix}/`, wildcard: false, index: false, decorateReply: true,
        // Vite names every asset by its content's hash: cached for a year; index.html is re-checked each time.
        setHeaders: (reply, file) => reply.header('cache-control', file.includes(`${path.sep}assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache'),
      });
    }
    const page = async (_req: unknown, reply: FastifyReply) => {
      if (!built) {
        return reply.code(503).type('text/plain; charset=utf-8').send(notBuilt);
      }
      return reply.header('cache-control', 'no-cache').sendFile('index.html', dir);
    };
    scope.get(prefix, { schema: { hide: true } }, page);
    scope.get<{ Params: { '*': string } }>(`${prefix}/*`, { schema: { hide: true } }, async (req, reply) => {
      const rest = req.params['*'];
      // Unknown API paths and missing asset files are 404s, never the page.
      if (rest.startsWith('v1/') || rest === 'v1' || rest.startsWith('assets/')) throw new GatewayError('notFound');
      return page(req, reply);
    });
  });
}
