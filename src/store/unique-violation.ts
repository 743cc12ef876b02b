/** PostgreSQL's unique_violation (23505), on either driver: a concurrent insert took the value first. */
export function isUniqueViolation(err: unknown): boolean {
  return (err as { code?: unknown } | undefined)?.code === '23505';
}
