/**
 * The risk engine's counts for /metrics (issue 26 item 7): screened payments by action, and by rule the blocked,
 * reviewed and shadow-matched ones and the rules that failed. Per process, as the other gateway counters are.
 */
import type { RiskEvaluation } from '../../domain/risk/evaluate.ts';

export class RiskMetrics {
  readonly actions = new Map<string, number>();
  /** JSON [scope, name, what] -> count; what: block, review, require_3ds, allow, shadow, failed. */
  readonly byRule = new Map<string, number>();

  private bump(map: Map<string, number>, key: string): void {
    map.set(key, (map.get(key) ?? 0) + 1);
  }

  observe(e: RiskEvaluation): void {
    this.bump(this.actions, e.action);
    const decided = e.decided_by && 'rule' in e.decided_by ? e.decided_by.rule : undefined;
    if (decided) this.bump(this.byRule, JSON.stringify([decided.scope, decided.name, e.action]));
    for (const m of e.matched) if (m.mode === 'shadow') this.bump(this.byRule, JSON.stringify([m.scope, m.name, 'shadow']));
    for (const f of e.failed) this.bump(this.byRule, JSON.stringify([f.scope, f.name, 'failed']));
  }

  /** Prometheus text lines. */
  render(): string[] {
    const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, ' ');
    const lines = ['# HELP portcullis_risk_screened_total Payments screened by the risk engine, by outcome.', '# TYPE portcullis_risk_screened_total counter'];
    for (const [action, n] of this.actions) lines.push(`portcullis_risk_screened_total{action="${action}"} ${n}`);
    lines.push('# HELP portcullis_risk_rule_total Payments a risk rule decided (block, review, require_3ds, allow), matched in shadow, or failed on.', '# TYPE portcullis_risk_rule_total counter');
    for (const [key, n] of this.byRule) {
      const [scope, name, what] = JSON.parse(key) as [string, string, string];
      lines.push(`portcullis_risk_rule_total{scope="${esc(scope)}",rule="${esc(name)}",result="${what}"} ${n}`);
    }
    return lines;
  }
}

export const riskMetrics = new RiskMetrics();
