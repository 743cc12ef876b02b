/**
 * Plain SVG charts for the home (no library: a few bars and a line). Each chart is a figure whose picture is
 * summarized for screen readers and whose numbers are also in a table under "Figures as a table". The heights
 * are display scaling only: amounts arrive as decimal strings and stay exact wherever they are printed.
 */
import { useId, type ReactNode } from 'react';
import { useShared } from './locale';

const W = 600;
const H = 160;
const PAD = 4;

export interface Series {
  /** One label per point (a day), shown in the table and on hover. */
  labels: string[];
  current: number[];
  previous: number[];
}

function Legend() {
  const { say } = useShared();
  return (
    <p className="legend" aria-hidden="true">
      <span className="key key-current" /> {say('chart.thisPeriod')} <span className="key key-previous" /> {say('chart.previousPeriod')}
    </p>
  );
}

/** Bars for the range, a dashed line for the previous period beside it (day i beside day i). */
export function DailyChart({ title, series, format, summary, previousLabels }: {
  title: string; series: Series; format: (n: number) => string; summary: string; previousLabels: string[];
}) {
  const { say } = useShared();
  const id = useId();
  const max = Math.max(1, ...series.current, ...series.previous);
  const n = Math.max(1, series.current.length);
  const slot = (W - 2 * PAD) / n;
  const y = (v: number) => H - PAD - (v / max) * (H - 2 * PAD);
  const line = series.previous.map((v, i) => `${(PAD + slot * (i + 0.5)).toFixed(1)},${y(v).toFixed(1)}`).join(' ');
  return (
    <figure className="chart card" aria-labelledby={`${id}-t`}>
      <figcaption id={`${id}-t`}><strong>{title}</strong> <small>{summary}</small></figcaption>
      <Legend />
      <svg viewBox={`0 0 ${W} ${H}`} role="img" aria-label={`${title}: ${summary}`} preserveAspectRatio="none">
        <line x1={0} x2={W} y1={H - PAD} y2={H - PAD} className="axis" />
        {series.current.map((v, i) => (
          <rect key={i} x={PAD + slot * i + slot * 0.15} width={Math.max(1, slot * 0.7)} y={y(v)} height={Math.max(0, H - PAD - y(v))} className="bar">
            <title>{say('chart.point', { day: series.labels[i] ?? '', value: format(v), previousDay: previousLabels[i] ?? '', previousValue: format(series.previous[i] ?? 0) })}</title>
          </rect>
        ))}
        {n > 1 && <polyline points={line} className="previous" fill="none" vectorEffect="non-scaling-stroke" />}
      </svg>
      <p className="chart-scale"><small>{series.labels[0]}</small><small>{say('chart.top', { value: format(max) })}</small><small>{series.labels.at(-1)}</small></p>
      <FiguresTable head={[say('chart.day'), say('chart.thisPeriod'), say('chart.previousDay'), say('chart.previousPeriod')]}>
        {series.labels.map((label, i) => (
          <tr key={label}><th scope="row">{label}</th><td>{format(series.current[i] ?? 0)}</td><td>{previousLabels[i]}</td><td>{format(series.previous[i] ?? 0)}</td></tr>
        ))}
      </FiguresTable>
    </figure>
  );
}

/** Horizontal bars per label, this period's above the previous one's. */
export function CompareBars({ title, rows, empty, format }: { title: string; rows: { label: string; current: number; previous: number }[]; empty: string; format?: (n: number) => string }) {
  const { say } = useShared();
  const id = useId();
  const max = Math.max(1, ...rows.flatMap((r) => [r.current, r.previous]));
  return (
    <figure className="chart card" aria-labelledby={`${id}-t`}>
      <figcaption id={`${id}-t`}><strong>{title}</strong></figcaption>
      {rows.length === 0 ? <p className="state">{empty}</p> : (
        <>
          <Legend />
          <ul className="hbars">
            {rows.map((r) => (
              <li key={r.label}>
                <span className="hbar-label">{r.label || say('chart.noReason')}</span>
                <span className="hbar-track" aria-hidden="true">
                  <span className="hbar bar" style={{ width: `${(r.current / max) * 100}%` }} />
                  <span className="hbar previous-bar" style={{ width: `${(r.previous / max) * 100}%` }} />
                </span>
                <span className="hbar-value">{format ? format(r.current) : r.current} <small>({say('chart.previous', { value: format ? format(r.previous) : r.previous })})</small></span>
              </li>
            ))}
          </ul>
        </>
      )}
    </figure>
  );
}

function FiguresTable({ head, children }: { head: string[]; children: ReactNode }) {
  const { say } = useShared();
  return (
    <details className="figures-table">
      <summary>{say('chart.asTable')}</summary>
      <table>
        <thead><tr>{head.map((h) => <th key={h} scope="col">{h}</th>)}</tr></thead>
        <tbody>{children}</tbody>
      </table>
    </details>
  );
}

/** A headline figure with the previous period's beside it and the change between them. */
export function Tile({ label, current, previous, change }: { label: string; current: string; previous: string; change?: string }) {
  const { say } = useShared();
  return (
    <div className="tile">
      <dt>{label}</dt>
      <dd><strong>{current}</strong> <small>{say('chart.previous', { value: previous })}{change ? ` · ${change}` : ''}</small></dd>
    </div>
  );
}
