/**
 * A merchant's configuration tab (settings, wallets, routing): `GET /merchants/{id}/<tab>` reads it with one
 * permission, a PUT or PATCH changes it with another (the operator recorded as the actor), and both answer
 * the tab's view. The route files declare their schemas and services; this registers the pair the same way.
 */
import type { FastifyInstance } from 'fastify';
import type { Static, TSchema } from '@sinclair/typebox';
import type { Permission } from '../../domain/admin-roles.ts';
import type { AuditActor } from '../../services/queries/audit.ts';
import { ADMIN_TAG, actorOf, requirePermission } from './operator-auth.ts';
import { MerchantParams } from './config-schemas.ts';
import { withErrors } from './errors.ts';
import { IfMatchHeaders, PreconditionFailed, tagged, withEntityTag } from './conditional.ts';

interface Read {
  permission: Permission;
  summary: string;
  handle: (merchantId: string) => Promise<unknown>;
}

interface Write<Body> {
  permission: Permission;
  summary: string;
  body: TSchema;
  /** `ifMatch`: the request's If-Match header, for a tab with conditional saves. */
  handle: (actor: AuditActor, merchantId: string, body: Body, ifMatch?: string) => Promise<unknown>;
}

/**
 * How the tab is read, and changed: replaced whole (put) or in part (patch). `conditional`: its read answers an
 * ETag and its save takes If-Match (conditional.ts; the service compares them).
 */
export type MerchantTab<Body> = { read: Read; conditional?: boolean } & ({ put: Write<Body> } | { patch: Write<Body> });

type Params = Static<typeof MerchantParams>;

/** Registers the tab's two routes at /merchants/{id}/<path>; both answer `view`. */
export function registerMerchantTab<Body>(app: FastifyInstance, path: string, view: TSchema, tab: MerchantTab<Body>): void {
  const url = `/merchants/:id/${path}`;
  const { read, conditional } = tab;
  const answer = conditional ? tagged(view) : view;
  app.get<{ Params: Params }>(url, {
    onRequest: requirePermission(read.permission),
    schema: { ...ADMIN_TAG, summary: read.summary, params: MerchantParams, response: withErrors({ 200: answer }) },
  }, async (req, reply) => {
    const found = await read.handle(req.params.id);
    return conditional ? withEntityTag(reply, found) : found;
  });

  const [method, write] = 'put' in tab ? ['put', tab.put] as const : ['patch', tab.patch] as const;
  app[method]<{ Params: Params; Body: Body; Headers: Static<typeof IfMatchHeaders> }>(url, {
    onRequest: requirePermission(write.permission),
    schema: {
      ...ADMIN_TAG, summary: write.summary, params: MerchantParams, ...(conditional ? { headers: IfMatchHeaders } : {}), body: write.body,
      response: withErrors(conditional ? { 200: answer, ...PreconditionFailed } : { 200: answer }),
    },
  }, async (req, reply) => {
    if (!conditional) return write.handle(actorOf(req), req.params.id, req.body as Body);
    return withEntityTag(reply, await write.handle(actorOf(req), req.params.id, req.body as Body, req.headers['if-match']));
  });
}
