/**
 * A merchant's web site for browser tests of S2S redirects: `/pay` posts the redirect the gateway answered
 * (as the docs tell merchants to) from an auto-submitting form, and `/return` is the term_url_3ds / return
 * address, whose visits are kept in `returns`.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

export interface MerchantSite {
  origin: string;
  returns: string[];
  /** The redirect to post from /pay: set it from the gateway's answer before the browser opens /pay. */
  redirect?: { url: string; params: Record<string, string> };
  close(): Promise<void>;
}

export async function merchantSite(): Promise<MerchantSite> {
  const site: MerchantSite = { origin: '', returns: [], close: async () => {} };
  const server: Server = createServer((req, res) => {
    if (req.url?.startsWith('/return')) {
      site.returns.push(req.url);
      res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Back at the shop</title><p id="returned">Thank you</p>');
      return;
    }
    const r = site.redirect;
    const inputs = Object.entries(r?.params ?? {}).map(([k, v]) => `<input type="hidden" name="${escape(k)}" value="${escape(v)}">`).join('');
    res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Redirecting</title><form id="f" method="post" action="${escape(r?.url ?? '')}">${inputs}</form><script>document.getElementById('f').submit()</script>`);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  site.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  site.close = () => new Promise((resolve) => {
    server.closeAllConnections();
    server.close(() => resolve());
  });
  return site;
}
