/**
 * The store's health as the operations endpoints (`/ready`) and the error handler see it: migrations not yet
 * applied, and whether an error is the database being unreachable (see payments.ts for why they are here).
 */
export { pendingMigrations } from '../../store/migrate.ts';
export { isConnectionFailure } from '../../store/database.ts';
