/**
 * HTTP entity tags (RFC 9110, sections 8.8.3 and 13.1.1) for configuration that operators read, edit and save
 * whole (a merchant's routing rules, its money terms). The read answers the tag of what it read in `ETag`; a save
 * that sends it back in `If-Match` goes ahead only while the stored configuration still has that tag, checked
 * under the row's lock in the save's transaction (a compare-and-set), so two operators editing at once cannot
 * overwrite each other unseen. A save without `If-Match` replaces the configuration as before.
 */
import { createHash } from 'node:crypto';

/** JSON with every object's keys in code-point order: the same value read back from jsonb (which orders keys its own way) gives the same text. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => (v !== null && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

/** A strong tag of a configuration's value: its canonical JSON's digest, quoted as RFC 9110 writes tags. */
export function entityTag(value: unknown): string {
  return `"${createHash('sha256').update(canonicalJson(value)).digest('base64url').slice(0, 27)}"`;
}

/**
 * Whether an `If-Match` header lets a write go ahead on a configuration whose tag is `current`: `*` (any current
 * configuration), or a list of tags one of which is `current` by strong comparison (a weak tag, `W/"..."`, never
 * matches). A header that names no tag matches nothing.
 */
export function ifMatchHolds(header: string, current: string): boolean {
  const value = header.trim();
  if (value === '*') return true;
  return (value.match(/(?:W\/)?"[\x21\x23-\x7e\x80-\xff]*"/g) ?? []).some((tag) => tag === current);
}
