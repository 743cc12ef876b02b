/** Ids shortened for people (issue 31 item 4): never two alike on one screen. */

/** The shortest prefix (8 characters at least) that tells `id` apart from every other id in `among`. */
export function shortIdOf(id: string, among: readonly string[]): string {
  let n = Math.min(8, id.length);
  while (n < id.length && among.some((o) => o !== id && o.slice(0, n) === id.slice(0, n))) n++;
  return id.slice(0, n);
}
