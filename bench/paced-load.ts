/**
 * Open-loop load at a fixed rate, for latency "at N req/s". autocannon's rate option is a per-connection quota
 * per second: every connection sends back to back until its quota is spent, then idles until the next second,
 * so its latency at "half load" is the latency of full load in bursts. Here requests leave evenly spaced, each
 * at its scheduled time whatever the server is doing, and latency counts from that scheduled time, so a slow
 * answer cannot hide the requests it delays (no coordinated omission).
 */
import http from 'node:http';
import { performance } from 'node:perf_hooks';

export interface PacedLoadOptions {
  url: string;
  body: string;
  contentType: string;
  /** Requests per second, evenly spaced. */
  rate: number;
  seconds: number;
  /** Most connections open at once (requests beyond wait for a free one, and that wait counts as latency). */
  connections: number;
}

export interface PacedLoadResult {
  sent: number;
  completed: number;
  /** Completed requests per second over the run. */
  rps: number;
  p50: number;
  p99: number;
  max: number;
  errors: number;
  non2xx: number;
}

const percentile = (sorted: Float64Array, p: number): number =>
  sorted.length === 0 ? Number.NaN : (sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number);

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const { url, body, contentType, rate, seconds, connections } = options;
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  const total = Math.round(rate * seconds);
  const spacing = 1000 / rate;
  const latencies = new Float64Array(total);
  const headers = { 'content-type': contentType, 'content-length': Buffer.byteLength(body) };
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let non2xx = 0;
  const start = performance.now();

  const fire = (scheduledAt: number) =>
    new Promise<void>((resolve) => {
      const request = http.request(url, { method: 'POST', agent, headers }, (response) => {
        if (response.statusCode === undefined || response.statusCode < 200 || response.statusCode > 299) non2xx += 1;
        response.resume();
        response.on('end', () => {
          latencies[completed++] = performance.now() - scheduledAt;
          resolve();
        });
      });
      request.on('error', () => {
        errors += 1;
        resolve();
      });
      request.end(body);
    });

  const inFlight: Promise<void>[] = [];
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / spacing) + 1);
      while (sent < due) inFlight.push(fire(start + sent++ * spacing));
      if (sent < total) setTimeout(tick, 1);
      else done();
    };
    tick();
  });
  await Promise.all(inFlight);
  const elapsed = (performance.now() - start) / 1000;
  agent.destroy();
  const sorted = latencies.slice(0, completed).sort();
  return {
    sent,
    completed,
    rps: completed / elapsed,
    p50: percentile(sorted, 50),
    p99: percentile(sorted, 99),
    max: sorted[sorted.length - 1] ?? Number.NaN,
    errors,
    non2xx,
  };
}
