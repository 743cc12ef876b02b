/**
 * Static assets of the hosted pages, read once at import from src/web/assets/. Serve them at
 * /assets/<name> with the given content type and ETag (answer 304 to a matching If-None-Match).
 */
import { loadStatic, type StaticFile } from './static-file.ts';

export type Asset = StaticFile;

const TYPES: Record<string, string> = {
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const FILES = ['checkout.css', 'checkout.js', 'apm.css', 'apm.js', 'shop.js', 'wallet.js'] as const;

function load(name: string): Asset {
  const ext = name.slice(name.lastIndexOf('.'));
  return loadStatic(new URL(`./assets/${name}`, import.meta.url), TYPES[ext] ?? 'application/octet-stream');
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
