/**
 * A role table: each role and the permissions it holds, read in one place. The operators' roles (admin-roles.ts)
 * and the merchant users' (merchant-roles.ts) are two tables of this one shape.
 */
export interface RoleTable<R extends string, P extends string> {
  isRole(value: unknown): value is R;
  mayDo(role: R, permission: P): boolean;
  /** Everything a role may do, in the table's order. */
  permissionsOf(role: R): P[];
}

export function roleTable<R extends string, P extends string>(
  roles: readonly R[],
  permissions: readonly P[],
  grants: Readonly<Record<R, readonly P[]>>,
): RoleTable<R, P> {
  const byRole: ReadonlyMap<R, ReadonlySet<P>> = new Map(roles.map((role) => [role, new Set(grants[role])]));
  const mayDo = (role: R, permission: P) => byRole.get(role)?.has(permission) ?? false;
  return {
    isRole: (value): value is R => typeof value === 'string' && (roles as readonly string[]).includes(value),
    mayDo,
    permissionsOf: (role) => permissions.filter((p) => mayDo(role, p)),
  };
}
