/** The admin API's authentication: the operator token (`ADMIN_TOKEN`) as a Bearer header. */
import { timingSafeEqual, createHash } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../../domain/errors.ts';

export const ADMIN_TAG = { tags: ['Admin'], security: [{ bearer: [] }] };

const digest = (s: string) => createHash('sha256').update(s).digest();

/** Constant-time check of the Bearer token (hashes first, so lengths do not leak either). */
export function requireOperator(token: string | undefined) {
  return async (req: FastifyRequest) => {
    const header = req.headers.authorization ?? '';
    const given = header.startsWith('Bearer ') ? header.slice(7) : '';
    if (!token || !timingSafeEqual(digest(given), digest(token))) throw new GatewayError('adminUnauthorized');
  };
}
