/**
 * An admin route's options in one call: the permission it needs (checked before anything else), and its schema
 * under the Admin tag with the admin API's error answers beside its own. The routes' tables stay one line each.
 */
import type { FastifySchema } from 'fastify';
import type { TSchema } from '@sinclair/typebox';
import type { Permission } from '../../domain/admin-roles.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { withErrors } from './errors.ts';

export function adminRoute(permission: Permission, schema: Omit<FastifySchema, 'response'> & { response: Record<number, TSchema> }) {
  return { onRequest: requirePermission(permission), schema: { ...ADMIN_TAG, ...schema, response: withErrors(schema.response) } };
}
