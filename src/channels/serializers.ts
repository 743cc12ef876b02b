/**
 * Response serializers compiled once per process, and each only when its route first answers. Fastify compiles a
 * fast-json-stringify function for every route's response schema each time a server is built (0.3 to 0.5 s of
 * CPU for the gateway's routes, most of which a given process never answers: a test file, a node behind a
 * router that sends it one channel); here the route gets a stand-in that compiles on its first answer, and a
 * process that builds several servers (the main and APM listeners, a restart in place, the tests' many gateways)
 * reuses the functions of equal schemas. A compiled serializer depends only on its schema's JSON (routes share no
 * external schemas), and it keeps no state.
 */
import { createRequire } from 'node:module';
import type { FastifyServerOptions } from 'fastify';

type SerializerFactory = NonNullable<NonNullable<FastifyServerOptions['schemaController']>['compilersFactory']>['buildSerializer'] & {};
type Serializer = ReturnType<ReturnType<SerializerFactory>>;

// Fastify's own default factory, found through fastify (whose dependency it is) rather than named in ours.
const fastifyRequire = createRequire(createRequire(import.meta.url).resolve('fastify'));
const { SerializerSelector } = fastifyRequire('@fastify/fast-json-stringify-compiler') as { SerializerSelector: () => SerializerFactory };
const defaultFactory = SerializerSelector();

const compiled = new Map<string, Serializer>();

/** Fastify's `schemaController.compilersFactory.buildSerializer`: the default compiler behind a per-process cache, on first use. */
export const cachedSerializerFactory: SerializerFactory = (externalSchemas, serializerOpts) => {
  const compile = defaultFactory(externalSchemas, serializerOpts);
  const context = JSON.stringify([externalSchemas ?? null, serializerOpts ?? null]);
  return (route) => {
    let serializer: Serializer | undefined;
    const lookup = (): Serializer => {
      const key = `${context}\0${JSON.stringify(route.schema)}`;
      let found = compiled.get(key);
      if (!found) {
        found = compile(route);
        compiled.set(key, found);
      }
      return found;
    };
    return ((data: unknown) => (serializer ??= lookup())(data)) as Serializer;
  };
};
