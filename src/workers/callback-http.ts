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
  /**
   * The whole POST, answer included, within this many milliseconds; past it the request is destroyed with a
   * `TimeoutError`. A timer of its own rather than an AbortSignal: a signal per POST (a timer, a controller, listeners
   * on the request and its socket) cost about 2 % of a node's CPU when it delivered a callback per SALE.
   */
  timeoutMs: number;
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
    const deadline = performance.now() + post.timeoutMs;
    return send(url, post, agents, post.timeoutMs).catch((err: NodeJS.ErrnoException & { reusedSocket?: boolean }) => {
      // A kept-alive socket the merchant's server closed as we reused it: the request never reached it (nothing was
      // answered), so it goes once more on a fresh connection, in the time left, rather than waiting for the retry schedule.
      const left = deadline - performance.now();
      if (err.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && left > 0) return send(url, post, agents, left);
      throw err;
    });
  }

  /** Closes the kept-alive connections. */
  close(): void {
    for (const agent of [this.agents.http, this.agents.https, this.allowedUrlAgents.http, this.allowedUrlAgents.https]) agent.destroy();
  }
}

/** The error of a POST that ran out of time (the name an AbortSignal's timeout gives it too). */
export function timeoutError(ms: number): Error {
  return Object.assign(new Error(`no answer within ${Math.round(ms)} ms`), { name: 'TimeoutError' });
}

/** One POST on the agents' sockets; a failure before any answer says whether the socket was a reused one. */
function send(url: URL, post: CallbackPost, agents: { http: http.Agent; https: https.Agent }, timeoutMs: number): Promise<CallbackAnswer> {
  const secure = url.protocol === 'https:';
  return new Promise((resolve, reject) => {
    let answered = false;
    let timedOut: Error | undefined;
    const ok = (answer: CallbackAnswer) => {
      clearTimeout(timer);
      resolve(answer);
    };
    // Whatever the destroyed request or its answer report once the time is up, the POST ran out of time.
    const fail = (err: Error) => {
      clearTimeout(timer);
      reject(timedOut ?? (answered ? err : Object.assign(err, { reusedSocket: req.reusedSocket })));
    };
    const req = (secure ? https : http).request(url, {
      method: 'POST',
      headers: { ...post.headers, 'content-length': String(Buffer.byteLength(post.body)) },
      agent: secure ? agents.https : agents.http,
    }, (res) => {
      answered = true;
      readAnswer(res, post.maxResponseBytes).then(ok, fail);
    });
    // Destroying the request destroys its answer too, so a late or endless answer ends here as well.
    const timer = setTimeout(() => req.destroy((timedOut = timeoutError(timeoutMs))), timeoutMs);
    req.on('error', fail);
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
