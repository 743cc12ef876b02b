/**
 * A file the gateway serves to browsers (the hosted pages' assets, the hosted-fields SDK, its frame's script and
 * stylesheet), read once at import with a strong ETag derived from its content.
 *
 * What scripts of different pages have in common lives once, in src/web/shared/: a line `/* @shared name.js *\/` of a
 * script stands for the file shared/name.js, put in its place as it is. Each page still loads one script of its own
 * (a merchant's page the SDK, a field frame field.js, a hosted page checkout.js), with no build step.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface StaticFile {
  contentType: string;
  body: Buffer;
  /** Strong ETag, quoted, derived from the content. */
  etag: string;
}

const SHARED = /^[ \t]*\/\* @shared ([a-z0-9-]+\.js) \*\/[ \t]*$/gm;

function withShared(text: string): string {
  return text.replace(SHARED, (_line, name: string) => readFileSync(new URL(`./shared/${name}`, import.meta.url), 'utf8').replace(/\n$/, ''));
}

/** The file at `url` (a script with its shared parts in place). */
export function loadStatic(url: URL, contentType: string): StaticFile {
  const read = readFileSync(url);
  const body = contentType.startsWith('text/javascript') ? Buffer.from(withShared(read.toString('utf8'))) : read;
  return { contentType, body, etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"` };
}
