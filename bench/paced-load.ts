/**
 * Open-loop load at a fixed rate, for latency "at N req/s". autocannon's rate option is a per-connection quota
 * per second: every connection sends back to back until its quota is spent, then idles until the next second,
 * so its latency at "half load" is the latency of full load in bursts. Here requests leave evenly spaced, each
 * at its scheduled time whatever the server is doing, and latency counts from that scheduled time, so a slow
 * answer cannot hide the requests it delays (no coordinated omission).
 *
 * The generator shares the machine with the server it measures, and its own stalls count as latency, so it is
 * kept lean, as wrk is: one prepared request buffer written on keep-alive sockets, and only the status line and
 * the framing of the answer read (Content-Length or chunked), with no HTTP client objects per request.
 */
import net from 'node:net';
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

const HEADER_END = Buffer.from('\r\n\r\n');

/** How far an HTTP/1.1 answer in `data` reaches: its status and length, or undefined while it is incomplete. */
export function parseAnswer(data: Buffer): { status: number; length: number; close: boolean } | undefined {
  const headerEnd = data.indexOf(HEADER_END);
  if (headerEnd < 0) return undefined;
  const head = data.toString('latin1', 0, headerEnd);
  const status = Number(head.slice(9, 12));
  const bodyStart = headerEnd + 4;
  const close = /\r\nconnection:\s*close/i.test(head);
  const contentLength = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (contentLength) {
    const length = bodyStart + Number(contentLength[1]);
    return data.length >= length ? { status, length, close } : undefined;
  }
  if (!/\r\ntransfer-encoding:\s*chunked/i.test(head)) return { status, length: bodyStart, close };
  let at = bodyStart;
  for (;;) {
    const lineEnd = data.indexOf('\r\n', at, 'latin1');
    if (lineEnd < 0) return undefined;
    const size = parseInt(data.toString('latin1', at, lineEnd), 16);
    at = lineEnd + 2 + size + 2;
    if (data.length < at) return undefined;
    if (size === 0) return { status, length: at, close };
  }
}

export async function pacedLoad(options: PacedLoadOptions): Promise<PacedLoadResult> {
  const { rate, seconds, connections } = options;
  const target = new URL(options.url);
  const body = Buffer.from(options.body);
  const request = Buffer.concat([
    Buffer.from(`POST ${target.pathname}${target.search} HTTP/1.1\r\nHost: ${target.host}\r\nContent-Type: ${options.contentType}\r\nContent-Length: ${body.length}\r\n\r\n`, 'latin1'),
    body,
  ]);
  const total = Math.round(rate * seconds);
  const spacing = 1000 / rate;
  const latencies = new Float64Array(total);
  let sent = 0;
  let completed = 0;
  let errors = 0;
  let non2xx = 0;
  let open = 0;
  const idle: Connection[] = [];
  const waiting: number[] = [];
  let allDone: () => void = () => {};
  const finished = new Promise<void>((resolve) => (allDone = resolve));
  const settle = () => {
    if (completed + errors === total) allDone();
  };

  class Connection {
    private readonly socket: net.Socket;
    private received: Buffer = Buffer.alloc(0);
    private scheduledAt = 0;
    private busy = false;
    private dead = false;

    constructor() {
      open += 1;
      this.socket = net.connect(Number(target.port), target.hostname);
      this.socket.setNoDelay(true);
      this.socket.on('data', (chunk) => this.onData(chunk));
      this.socket.on('error', () => this.drop());
      this.socket.on('close', () => this.drop());
    }

    send(scheduledAt: number): void {
      this.scheduledAt = scheduledAt;
      this.busy = true;
      this.socket.write(request);
    }

    private onData(chunk: Buffer): void {
      this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
      const answer = parseAnswer(this.received);
      if (!answer) return;
      this.received = this.received.subarray(answer.length);
      this.busy = false;
      latencies[completed++] = performance.now() - this.scheduledAt;
      if (answer.status < 200 || answer.status > 299) non2xx += 1;
      settle();
      if (answer.close) this.socket.destroy();
      else release(this);
    }

    private drop(): void {
      if (this.dead) return;
      this.dead = true;
      this.socket.destroy();
      const index = idle.indexOf(this);
      if (index >= 0) idle.splice(index, 1);
      open -= 1;
      if (this.busy) {
        this.busy = false;
        errors += 1;
        settle();
      }
      const next = waiting.shift();
      if (next !== undefined) new Connection().send(next);
    }

    close(): void {
      this.socket.destroy();
    }
  }

  const release = (connection: Connection) => {
    const next = waiting.shift();
    if (next === undefined) idle.push(connection);
    else connection.send(next);
  };

  const fire = (scheduledAt: number) => {
    const connection = idle.pop();
    if (connection) connection.send(scheduledAt);
    else if (open < connections) new Connection().send(scheduledAt);
    else waiting.push(scheduledAt);
  };

  const start = performance.now();
  await new Promise<void>((done) => {
    const tick = () => {
      const due = Math.min(total, Math.floor((performance.now() - start) / spacing) + 1);
      while (sent < due) fire(start + sent++ * spacing);
      if (sent < total) setTimeout(tick, 1);
      else done();
    };
    tick();
  });
  if (total > 0) await finished;
  const elapsed = (performance.now() - start) / 1000;
  for (const connection of idle.splice(0)) connection.close();
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
