/**
 * Conditional requests on configuration saved whole (domain/entity-tags.ts): its read answers an `ETag`, its save
 * takes `If-Match` (412 with nothing written when the configuration was saved by someone else since it was read)
 * and answers the saved configuration's `ETag`. The service compares the tags under the row's lock.
 */
import type { FastifyReply } from 'fastify';
import { Type, type TSchema } from '@sinclair/typebox';
import { entityTag } from '../../domain/entity-tags.ts';
import { errorBody, GatewayError } from '../../domain/errors.ts';
import { errorSchema } from './errors.ts';

const ETAG = {
  ETag: { type: 'string', description: 'The tag of the configuration answered: send it back in If-Match to save only over this configuration.', example: '"Yk5nJm0vQ2ZfQ0l4Zk9pV2tJZ3B"' },
};

/** The view with its response's ETag header described. */
export const tagged = (view: TSchema): TSchema => ({ ...view, headers: ETAG });

/** The save's If-Match header. */
export const IfMatchHeaders = Type.Object({
  'if-match': Type.Optional(Type.String({
    maxLength: 1024,
    description: 'The ETag of the read the save builds on: the save is refused with 412 (nothing written) if the configuration was saved by someone else since. `*` or no header: saved whatever is stored.',
    examples: ['"Yk5nJm0vQ2ZfQ0l4Zk9pV2tJZ3B"'],
  })),
});

export const PreconditionFailed = {
  412: errorSchema('If-Match names another ETag: the configuration was saved by someone else since it was read; nothing was written', errorBody(new GatewayError('configurationChanged'))),
};

/** Answers the view with its ETag header (`tag`: the configuration's own, where the view holds more than it). */
export function withEntityTag<T>(reply: FastifyReply, view: T, tag = entityTag(view)): T {
  reply.header('etag', tag);
  return view;
}
