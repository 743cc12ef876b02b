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

interface Read {
  permission: Permission;
  summary: string;
  handle: (merchantId: string) => Promise<unknown>;
}

interface Write<Body> {
  permission: Permission;
  summary: string;
  body: TSchema;
  handle: (actor: AuditActor, merchantId: string, body: Body) => Promise<unknown>;
}

/** How the tab is read, and changed: replaced whole (put) or in part (patch). */
export type MerchantTab<Body> = { read: Read } & ({ put: Write<Body> } | { patch: Write<Body> });

type Params = Static<typeof MerchantParams>;

/** Registers the tab's two routes at /merchants/{id}/<path>; both answer `view`. */
export function registerMerchantTab<Body>(app: FastifyInstance, path: string, view: TSchema, tab: MerchantTab<Body>): void {
  const url = `/merchants/:id/${path}`;
  const { read } = tab;
  app.get<{ Params: Params }>(url, {
    onRequest: requirePermission(read.permission),
    schema: { ...ADMIN_TAG, summary: read.summary, params: MerchantParams, response: withErrors({ 200: view }) },
  }, async (req) => read.handle(req.params.id));

  const [method, write] = 'put' in tab ? ['put', tab.put] as const : ['patch', tab.patch] as const;
  app[method]<{ Params: Params; Body: Body }>(url, {
    onRequest: requirePermission(write.permission),
    schema: { ...ADMIN_TAG, summary: write.summary, params: MerchantParams, body: write.body, response: withErrors({ 200: view }) },
  }, async (req) => write.handle(actorOf(req), req.params.id, req.body as Body));
}
