import { isDeepStrictEqual } from 'node:util';

/**
 * The fields of a change that differ, for an audit entry's before and after (unchanged fields are noise). Nested
 * values (a settings group, a list) compare by content, so a group sent again unchanged is not recorded.
 */
export function auditDiff(before: Record<string, unknown>, after: Record<string, unknown>) {
  const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].filter((k) => !isDeepStrictEqual(before[k], after[k]));
  return {
    before: Object.fromEntries(keys.map((k) => [k, before[k]])),
    after: Object.fromEntries(keys.map((k) => [k, after[k]])),
    changed: keys.length > 0,
  };
}
