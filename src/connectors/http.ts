/**
 * The small HTTP port every connector talks through: keep-alive connections per origin (Node's agents), a
 * timeout per call, the answer read whole. It knows nothing of any acquirer. Connector base URLs are set by the
 * operator per MID and are therefore not passed through the outbound-URL (SSRF) validator that merchant
 * URLs go through.
 */
import http from 'node:http';
import https from 'node:https';

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

export interface HttpPort {
  send(req: HttpRequest): Promise<HttpResponse>;
}

const MAX_BODY = 4 * 1024 * 1024;

export class NodeHttpPort implements HttpPort {
  private readonly httpAgent = new http.Agent({ keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' });
  private readonly httpsAgent = new https.Agent({ keepAlive: true, keepAliveMsecs: 30_000, maxSockets: 64, maxFreeSockets: 16, scheduling: 'lifo' });

  send(req: HttpRequest): Promise<HttpResponse> {
    const url = new URL(req.url);
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
