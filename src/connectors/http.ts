/**
 * The small HTTP port every connector talks through: keep-alive connections per origin (Node's agents), a
 * timeout per call, the answer read whole. It knows nothing of any acquirer. Every request is checked against
 * the connector target rule (domain/connector-targets.ts) before it is sent and again on the addresses its host
 * resolves to, the checked address pinned for the connection (a custom `lookup`), so a MID endpoint naming or
 * rebinding to an internal address receives nothing: the call fails with ConnectorTargetRefused.
 */
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/callback-policy.ts';
import { ANY_TARGET, allowsInternal, connectorUrlProblem, type ConnectorTargetPolicy } from '../domain/connector-targets.ts';

export interface HttpRequest {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  url: string;
  headers?: Record<string, string>;
  body?: string;
  /** Milliseconds for the whole exchange; the call then fails with HttpTimeout. */
  timeoutMs: number;
}

export interface HttpResponse {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** The acquirer did not answer in time: whether it acted is unknown, so the payment stays pending. */
export class HttpTimeout extends Error {
  constructor(readonly url: string, readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

/** The endpoint is refused by the connector target rule: nothing was sent, so nothing happened upstream. */
export class ConnectorTargetRefused extends Error {
  readonly code = 'CONNECTOR_TARGET_REFUSED';
  constructor(host: string, why: string) {
    super(`connector endpoint refused: ${host} ${why}`);
  }
}

export interface HttpPort {
  send(req: HttpRequest): Promise<HttpResponse>;
}

const MAX_BODY = 4 * 1024 * 1024;

/** Resolves a host name to every address (injectable: tests play DNS). */
export type HostResolver = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemResolver: HostResolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

/** A lookup that answers only public addresses (any, for a host the policy allows), pinned for the connection. */
function guardedLookup(policy: ConnectorTargetPolicy, resolver: HostResolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const allowed = allowsInternal(policy, new URL(`http://${hostname.includes(':') ? `[${hostname}]` : hostname}`));
    resolver(hostname).then((addresses) => {
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      const internal = addresses.find((a) => isPrivateAddress(a.address));
      if (internal && !allowed) return callback(new ConnectorTargetRefused(hostname, `resolves to an internal address (${internal.address})`));
      if (options?.all) return callback(null, addresses);
      const [first] = addresses as [{ address: string; family: number }];
      return callback(null, first.address, first.family);
    }, (err: Error) => callback(err));
  }) as LookupFunction;
}

export class NodeHttpPort implements HttpPort {
  private readonly httpAgent: http.Agent;
  private readonly httpsAgent: https.Agent;

  /** policy: the gateway's connector target rule; ANY_TARGET (the default) only for a connector a test builds by hand. */
  constructor(private readonly policy: ConnectorTargetPolicy = ANY_TARGET, resolver: HostResolver = systemResolver) {
    const lookup = policy === ANY_TARGET ? undefined : guardedLookup(policy, resolver);
    const options = { keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' as const, ...(lookup ? { lookup } : {}) };
    this.httpAgent = new http.Agent(options);
    this.httpsAgent = new https.Agent(options);
  }

  send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
    const problem = connectorUrlProblem(req.url, this.policy);
    if (problem) return Promise.reject(new ConnectorTargetRefused(url.host, problem));
    const secure = url.protocol === 'https:';
    const body = req.body === undefined ? undefined : Buffer.from(req.body, 'utf8');
    const headers: Record<string, string | number> = { ...req.headers };
    if (body) headers['content-length'] = body.length;
    return new Promise((resolve, reject) => {
      const request = (secure ? https : http).request(url, { method: req.method, headers, agent: secure ? this.httpsAgent : this.httpAgent }, (res) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (c: Buffer) => {
          size += c.length;
          if (size > MAX_BODY) request.destroy(new Error('answer too large'));
          else chunks.push(c);
        });
        res.on('end', () => {
          clearTimeout(timer);
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', (err) => {
          clearTimeout(timer);
          reject(err);
        });
      });
      const timer = setTimeout(() => request.destroy(new HttpTimeout(url.origin + url.pathname, req.timeoutMs)), req.timeoutMs);
      request.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      request.end(body);
    });
  }

  close(): void {
    this.httpAgent.destroy();
    this.httpsAgent.destroy();
  }
}
