/**
 * Scheduled reports (issue 30), the pure part: the kinds a merchant user may subscribe, the permission each needs
 * (the same as its export's), the cadences and their periods in UTC (a day; a week from Monday; a calendar month),
 * and how long after a period's end its report is due (a grace for writes still in flight at midnight).
 */
import type { MerchantPermission } from './merchant-roles.ts';

export const REPORT_KINDS = ['payments', 'refunds', 'callbacks', 'disputes', 'fees'] as const;
export type ReportKind = (typeof REPORT_KINDS)[number];
export const REPORT_CADENCES = ['daily', 'weekly', 'monthly'] as const;
export type ReportCadence = (typeof REPORT_CADENCES)[number];
export const REPORT_DELIVERIES = ['email', 'download'] as const;
export type ReportDelivery = (typeof REPORT_DELIVERIES)[number];

/** Each kind needs what its export needs. */
export const REPORT_PERMISSION: Readonly<Record<ReportKind, MerchantPermission>> = {
  payments: 'payments.export', refunds: 'payments.export', disputes: 'payments.export', callbacks: 'callbacks.read', fees: 'money.read',
};

/** A report is due this long after its period's end. */
export const REPORT_GRACE_MS = 10 * 60_000;
export const DEFAULT_KEEP_DAYS = 30;
export const MAX_KEEP_DAYS = 90;

const DAY = 86_400_000;

/** The first period end strictly after `at`: the next UTC midnight, Monday 00:00 UTC, or the 1st of a month. */
export function nextPeriodEnd(cadence: ReportCadence, at: Date): Date {
  const day = Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate());
  switch (cadence) {
    case 'daily': return new Date(day + DAY);
    case 'weekly': {
      const toMonday = (8 - new Date(day).getUTCDay()) % 7 || 7; // Sunday 0 -> 1 day, Monday -> 7 days
      return new Date(day + toMonday * DAY);
    }
    case 'monthly': return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
  }
}

/** The start of the period ending at `end` (a period end of its cadence). */
export function periodStart(cadence: ReportCadence, end: Date): Date {
  switch (cadence) {
    case 'daily': return new Date(end.getTime() - DAY);
    case 'weekly': return new Date(end.getTime() - 7 * DAY);
    case 'monthly': return new Date(Date.UTC(end.getUTCFullYear(), end.getUTCMonth() - 1, 1));
  }
}
