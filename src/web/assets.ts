/**
 * Static assets of the hosted pages, read once at import from src/web/assets/. Serve them at
 * /assets/<name> with the given content type and ETag (answer 304 to a matching If-None-Match).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

export interface Asset {
  contentType: string;
  body: Buffer;
  /** Strong ETag, quoted, derived from the content. */
  etag: string;
}

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const FILES = ['checkout.css', 'checkout.js', 'apm.css', 'apm.js', 'shop.js', 'wallet.js'] as const;

function load(name: string): Asset {
  const body = readFileSync(new URL(`./assets/${name}`, import.meta.url));
  const ext = name.slice(name.lastIndexOf('.'));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
  return { contentType: TYPES[ext] ?? 'application/octet-stream', body, etag };
}

/** The script of the native 3-D Secure 2 page (connectors' pages). */
const CONNECTOR_FILES = ['threeds2.js'] as const;

export const ASSETS: Record<string, Asset> = Object.fromEntries([...FILES, ...CONNECTOR_FILES].map((name) => [name, load(name)]));

/** Headers for an asset response. URLs are not versioned, so caches revalidate (cheap with the ETag). */
export function assetHeaders(asset: Asset): Record<string, string> {
  return {
    'content-type': asset.contentType,
    etag: asset.etag,
    'cache-control': 'public, max-age=300, must-revalidate',
    'x-content-type-options': 'nosniff',
  };
}
