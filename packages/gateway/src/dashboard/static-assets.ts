/**
 * The dashboard page's files, shipped in the package: `web/static/` (the HTML and the style
 * sheet) and `dist/web/` (the page's ES modules, compiled from `web/src/` by the package build).
 * Nothing is fetched from elsewhere, so the page works offline. Only names found in those two
 * folders are served (read once, kept in memory), under a Content Security Policy that allows
 * this origin's own scripts, styles and API and nothing else: no inline script, no frames.
 */
import { promises as fs } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { fileURLToPath } from 'node:url';
import * as path from 'node:path';

const STATIC_DIR = fileURLToPath(new URL('../../web/static/', import.meta.url));
const SCRIPTS_DIR = fileURLToPath(new URL('../../dist/web/', import.meta.url));

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.svg': 'image/svg+xml',
};

const PAGE_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export const SECURITY_HEADERS = {
  'content-security-policy': PAGE_POLICY,
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
} as const;

interface Asset {
  body: Buffer;
  contentType: string;
}

async function readFolder(folder: string, pattern: RegExp): Promise<Map<string, Asset>> {
  const assets = new Map<string, Asset>();
  let names: string[];
  try {
    names = await fs.readdir(folder);
  } catch {
    return assets;
  }
  for (const name of names) {
    const contentType = CONTENT_TYPES[path.extname(name)];
    if (!pattern.test(name) || !contentType) continue;
    assets.set(name, { body: await fs.readFile(path.join(folder, name)), contentType });
  }
  return assets;
}

let loaded: Promise<Map<string, Asset>> | undefined;

/** `index.html` and every asset by its name under `/assets/`. */
function assets(): Promise<Map<string, Asset>> {
  loaded ??= (async () => {
    const all = await readFolder(STATIC_DIR, /^[a-z0-9-]+\.(html|css|svg)$/);
    for (const [name, asset] of await readFolder(SCRIPTS_DIR, /^[a-z0-9-]+\.js$/)) {
      all.set(name, asset);
    }
    return all;
  })();
  return loaded;
}

/**
 * Serves `/` and `/assets/<name>`; false when the path names no asset. `page` rewrites the HTML
 * of `/` (the first view's figures): that answer holds the person's figures, so it is never
 * stored by a cache.
 */
export async function serveAsset(
  pathname: string,
  response: ServerResponse,
  page?: (html: string) => string,
): Promise<boolean> {
  const isPage = pathname === '/' || pathname === '/index.html';
  const name = isPage ? 'index.html' : /^\/assets\/([a-z0-9-]+\.[a-z]+)$/.exec(pathname)?.[1];
  const asset = name ? (await assets()).get(name) : undefined;
  if (!asset) return false;
  const body = isPage && page ? Buffer.from(page(asset.body.toString('utf8'))) : asset.body;
  response
    .writeHead(200, {
      'content-type': asset.contentType,
      'cache-control': isPage && page ? 'no-store' : 'no-cache',
      ...SECURITY_HEADERS,
    })
    .end(body);
  return true;
}
