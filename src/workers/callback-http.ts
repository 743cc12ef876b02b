/**
 * The callback POST, with the SSRF rule applied to the address actually connected to: the host is resolved
 * once, every address checked (callback-targets.ts), and the connection made to the checked address (a
 * custom `lookup` on the request), so a name that rebinds to an internal address between a check and the
 * connection cannot slip through. Redirects are never followed.
 */
import http from 'node:http';
import https from 'node:https';
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { isPrivateAddress } from '../domain/callback-policy.ts';
import { callbackUrlProblem, hostKey, isAllowedUrl, type CallbackTargetPolicy } from '../domain/callback-targets.ts';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to every address (injectable: tests play DNS). */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) => dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))));

export class CallbackTargetRefused extends Error {
  readonly code = 'CALLBACK_TARGET_REFUSED';
  constructor(host: string, why: string) {
    super(`callback target refused: ${host} ${why}`);
  }
}

/** A lookup that answers only addresses the policy allows for `hostname`, pinned for this connection. */
export function guardedLookup(policy: CallbackTargetPolicy, resolver: Resolver): LookupFunction {
  return ((hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const allowed = policy.allowedPrivateHosts.has(hostKey(hostname));
    resolver(hostname).then((addresses) => {
      const internal = addresses.find((a) => isPrivateAddress(a.address));
      if (addresses.length === 0) return callback(Object.assign(new Error(`no address for ${hostname}`), { code: 'ENOTFOUND' }));
      if (internal && !allowed) return callback(new CallbackTargetRefused(hostname, `resolves to an internal address (${internal.address})`));
      if (options?.all) return callback(null, addresses);
      const [first] = addresses as [ResolvedAddress];
      return callback(null, first.address, first.family);
    }, (err: Error) => callback(err));
  }) as LookupFunction;
}

export interface CallbackPost {
  url: string;
  headers: Record<string, string>;
  body: string;
  signal: AbortSignal;
  /** Read at most this many bytes of the answer (beyond: `(answer too long)`); 0 reads nothing. */
  maxResponseBytes: number;
}

export interface CallbackAnswer {
  status: number;
  body: string;
}

/**
 * POSTs callbacks to checked addresses, over keep-alive connections (a pooled socket was checked when it
 * connected, so reusing it keeps the pin). Rejects with CallbackTargetRefused for an internal target.
 */
export class CallbackHttpClient {
  private readonly policy: CallbackTargetPolicy;
  private readonly agents: { http: http.Agent; https: https.Agent };
  /** For the whole URLs the policy allows: their hosts may resolve inside; no other URL uses these sockets. */
  private readonly allowedUrlAgents: { http: http.Agent; https: https.Agent };

  constructor(policy: CallbackTargetPolicy, resolver: Resolver = systemResolver) {
    this.policy = policy;
    // The guarded lookup runs for every new connection to a name; address literals were checked before.
    this.agents = agentsWith(guardedLookup(policy, resolver));
    const urlHosts = [...policy.allowedUrls].map((u) => hostKey(new URL(u).hostname));
    this.allowedUrlAgents = agentsWith(guardedLookup({ ...policy, allowedPrivateHosts: new Set([...policy.allowedPrivateHosts, ...urlHosts]) }, resolver));
  }

  post(post: CallbackPost): Promise<CallbackAnswer> {
    const url = new URL(post.url);
    if (callbackUrlProblem(post.url, this.policy)) return Promise.reject(new CallbackTargetRefused(url.host, 'is not a public address'));
    const agents = isAllowedUrl(post.url, this.policy) ? this.allowedUrlAgents : this.agents;
    return send(url, post, agents).catch((err: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      // A kept-alive socket the merchant's server closed as we reused it: the request never reached it (nothing was
      // answered), so it goes once more on a fresh connection rather than waiting for the retry schedule.
      if (err.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !post.signal.aborted) return send(url, post, agents);
      throw err;
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    for (const agent of [this.agents.http, this.agents.https, this.allowedUrlAgents.http, this.allowedUrlAgents.https]) agent.destroy();
  }
}

/** One POST on the agents' sockets; a failure before any answer says whether the socket was a reused one. */
function send(url: URL, post: CallbackPost, agents: { http: http.Agent; https: https.Agent }): Promise<CallbackAnswer> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let answered = false;
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      signal: post.signal,
      agent: secure ? agents.https : agents.http,
    }, (res) => {
      answered = true;
      readAnswer(res, post.maxResponseBytes).then(resolve, reject);
    });
    req.on('error', (err) => reject(answered ? err : Object.assign(err, { reusedSocket: req.reusedSocket })));
    req.end(post.body);
  });
}

function agentsWith(lookup: LookupFunction): { http: http.Agent; https: https.Agent } {
  return { http: new http.Agent({ keepAlive: true, lookup }), https: new https.Agent({ keepAlive: true, lookup }) };
}

function readAnswer(res: http.IncomingMessage, maxBytes: number): Promise<CallbackAnswer> {
  const status = res.statusCode ?? 0;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let total = 0;
    let done = false;
    res.on('data', (chunk: Buffer) => {
      if (done || maxBytes === 0) return; // read and dropped: the socket stays reusable
      total += chunk.length;
      if (total > maxBytes) {
        done = true;
        res.destroy();
        resolve({ status, body: '(answer too long)' });
      } else chunks.push(chunk);
    });
    res.on('end', () => done || resolve({ status, body: Buffer.concat(chunks).toString('utf8') }));
    res.on('error', (err) => done || reject(err));
    res.on('close', () => done || reject(new Error('the answer was cut off')));
  });
}
