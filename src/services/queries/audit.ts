/** The audit trail as the admin API lists it (see payments.ts for why it is here). */
export { listAudit, type AuditActor, type AuditRecord } from '../../store/audit-repo.ts';
