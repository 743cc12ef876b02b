/** The portal's saved views (migration 122): a user's named payment searches. */
import type { Sql } from './database.ts';
import { isUniqueViolation } from './unique-violation.ts';

export interface SavedView {
  id: string;
  userId: string;
  name: string;
  query: Record<string, string>;
  createdAt: Date;
}

interface Row { id: string; user_id: string; name: string; query: Record<string, string> | string; created_at: Date | string }

const toView = (r: Row): SavedView => ({
  id: r.id, userId: r.user_id, name: r.name, query: typeof r.query === 'string' ? JSON.parse(r.query) : r.query, createdAt: new Date(r.created_at),
});

/** The user's views, by name. */
export async function savedViewsOf(sql: Sql, userId: string): Promise<SavedView[]> {
  return (await sql.query<Row>('SELECT * FROM portal_saved_views WHERE user_id = $1 ORDER BY lower(name), id', [userId])).map(toView);
}

export async function countSavedViews(sql: Sql, userId: string): Promise<number> {
  const [row] = await sql.query<{ n: number | string }>('SELECT count(*) AS n FROM portal_saved_views WHERE user_id = $1', [userId]);
  return Number(row?.n ?? 0);
}

/** Saves a view; undefined when the user has one of that name already (any case). */
export async function insertSavedView(sql: Sql, v: SavedView): Promise<SavedView | undefined> {
  try {
    const [row] = await sql.query<Row>('INSERT INTO portal_saved_views (id, user_id, name, query, created_at) VALUES ($1, $2, $3, $4, $5) RETURNING *',
      [v.id, v.userId, v.name, JSON.stringify(v.query), v.createdAt]);
    return row && toView(row);
  } catch (err) {
    if (isUniqueViolation(err)) return undefined;
    throw err;
  }
}

/** Deletes one of the user's views; false when the user has none of that id. */
export async function deleteSavedView(sql: Sql, userId: string, id: string): Promise<boolean> {
  return (await sql.query<{ id: string }>('DELETE FROM portal_saved_views WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId])).length > 0;
}
