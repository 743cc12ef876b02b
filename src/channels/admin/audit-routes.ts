/**
 * The audit log (issue 11): every configuration change and operator money action with who, when, what and
 * the values before and after (secrets masked by the writers). Read-only here; the table refuses changes.
 */
import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { ServiceContext } from '../../services/context.ts';
import { GatewayError, MESSAGES } from '../../domain/errors.ts';
import { listAudit, type AuditRecord } from '../../services/queries/audit.ts';
import { ADMIN_TAG, requirePermission } from './operator-auth.ts';
import { Timestamp } from './schemas.ts';
import { responses } from './errors.ts';
import { decodeCursor, nextCursor, pageSize } from './cursor.ts';

const Query = Type.Object({
  user_id: Type.Optional(Type.String({ maxLength: 64, description: 'The operator user who acted.' })),
  action: Type.Optional(Type.String({ maxLength: 64, description: 'e.g. merchant.create, merchant.password.rotate, user.update, token.revoke.' })),
  object_type: Type.Optional(Type.String({ maxLength: 64, description: 'merchant, user, token, mid, payment, ...' })),
  object_id: Type.Optional(Type.String({ maxLength: 64 })),
  from: Type.Optional(Type.String({ maxLength: 40, description: 'Entries at or after this instant (ISO 8601, e.g. 2026-11-24T00:00:00Z).' })),
  to: Type.Optional(Type.String({ maxLength: 40, description: 'Entries before this instant (ISO 8601).' })),
  mode: Type.Optional(Type.Union([Type.Literal('test'), Type.Literal('live')], { description: 'test: only entries about test keys\' (sandbox) merchants, their payments, MIDs, disputes and callbacks; live: every other entry (live merchants\' and the platform\'s own). Absent: all.' })),
  limit: Type.Optional(Type.String({ pattern: '^[0-9]{1,4}$', description: 'Page size, 1 to 200 (default 50).' })),
  cursor: Type.Optional(Type.String({ maxLength: 512, description: 'next_cursor of the previous page.' })),
}, { additionalProperties: false });
type Query = Static<typeof Query>;

const ENTRY_EXAMPLE = {
  id: '01936f60-2222-7333-8444-555566667777', at: '2026-11-24T05:10:00.000Z',
  user: { id: '01936f5e-8a4b-7c3d-9e2f-0a1b2c3d4e5f', name: 'ops@shop.example' },
  action: 'merchant.update', object_type: 'merchant', object_id: '01936f61-aaaa-7bbb-8ccc-ddddeeeeffff',
  before: { notification_url: 'https://shop.example/old' }, after: { notification_url: 'https://shop.example/callbacks' }, details: null,
};
const Entry = Type.Object({
  id: Type.String(), at: Timestamp,
  user: Type.Object({ id: Type.Union([Type.String(), Type.Null()], { description: 'Null for the system (bootstrap, command-line tool).' }), name: Type.String() }),
  action: Type.String(), object_type: Type.String(), object_id: Type.String(),
  before: Type.Unknown(), after: Type.Unknown(), details: Type.Unknown(),
});
const Page = Type.Object({
  entries: Type.Array(Entry),
  next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for older entries; null on the last page.' }),
}, { description: 'A page of audit entries, newest first.', examples: [{ entries: [ENTRY_EXAMPLE], next_cursor: null }] });

function instant(field: 'from' | 'to', value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const date = /^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value) ? new Date(value) : new Date(NaN);
  if (Number.isNaN(date.getTime())) throw GatewayError.field(field, MESSAGES.notDatetime);
  return date;
}

const present = (e: AuditRecord) => ({
  id: e.id, at: e.at.toISOString(), user: { id: e.userId, name: e.userName }, action: e.action, object_type: e.objectType,
  object_id: e.objectId, before: e.before, after: e.after, details: e.details,
});

export function registerAdminAuditRoutes(app: FastifyInstance, ctx: ServiceContext): void {
  app.get<{ Querystring: Query }>('/audit-log', {
    onRequest: requirePermission('audit.read'),
    schema: {
      ...ADMIN_TAG, summary: 'The audit log, newest first, filtered and paged by cursor', querystring: Query,
      response: responses({ 200: Page }, [400]),
    },
  }, async (req) => {
    const q = req.query;
    const limit = pageSize(q.limit);
    const after = decodeCursor(q.cursor, 2);
    if (after && Number.isNaN(new Date(after[0]!).getTime())) throw GatewayError.field('cursor', MESSAGES.notValid);
    const entries = await listAudit(ctx.db, {
      userId: q.user_id, action: q.action, objectType: q.object_type, objectId: q.object_id,
      from: instant('from', q.from), to: instant('to', q.to), after: after && [after[0]!, after[1]!], limit, ...(q.mode ? { mode: q.mode } : {}),
    });
    return { entries: entries.map(present), next_cursor: nextCursor(entries, limit, (e) => [e.at.toISOString(), e.id]) };
  });
}
