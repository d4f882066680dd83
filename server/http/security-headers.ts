import { createHash } from 'node:crypto';
import type { Middleware } from 'koa';
import type { AppState } from './context.js';

// The headers every answer carries, set in one place after the answer is
// made (errors included), so no route can forget them:
// - every answer: nosniff, and no-store (API answers carry tokens, secrets
//   and money records; a sandbox's answers are never worth caching);
// - pages: a Content-Security-Policy allowing only their own inline script
//   and style (by hash, computed from the page itself, so an edit of a page
//   never needs a second edit here) and scripts the page loads from this
//   origin, forms to this origin only, no framing but by `frameAncestors`;
//   and no Referer (a payment link carries the session id).

/** Sources a page may be framed by (CSP frame-ancestors); the payment page's embedding sites. */
export const DEFAULT_FRAME_ANCESTORS = "'self'";

const INLINE = /<(script|style)(\s[^>]*)?>([\s\S]*?)<\/\1>/g;
const SOURCED = /\ssrc=/;

const sha256 = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

/** The policy for one page: its inline scripts and styles by hash, the scripts it loads from its own origin, nothing else from anywhere. */
export function pagePolicy(html: string, frameAncestors: string): string {
  const hashes: Record<'script' | 'style', Set<string>> = { script: new Set(), style: new Set() };
  for (const [, tag, attributes, content] of html.matchAll(INLINE)) {
    if (tag === 'script' && SOURCED.test(attributes ?? '')) hashes.script.add("'self'");
    else hashes[tag as 'script' | 'style'].add(sha256(content!));
  }
  const list = (set: Set<string>) => (set.size > 0 ? [...set].join(' ') : "'none'");
  return [
    "default-src 'none'",
    `script-src ${list(hashes.script)}`,
    `style-src ${list(hashes.style)}`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "form-action 'self'",
    "base-uri 'none'",
    `frame-ancestors ${frameAncestors}`,
  ].join('; ');
}

export function securityHeaders(options: { frameAncestors?: string } = {}): Middleware<AppState> {
  const frameAncestors = options.frameAncestors ?? DEFAULT_FRAME_ANCESTORS;
  return async (ctx, next) => {
    await next();
    // Straight onto the response: this runs on every request, the hottest routes included.
    const res = ctx.res;
    res.setHeader('X-Content-Type-Options', 'nosniff');
    if (!res.hasHeader('Cache-Control')) res.setHeader('Cache-Control', 'no-store');
    const type = res.getHeader('Content-Type');
    if (typeof type === 'string' && type.startsWith('text/html') && typeof ctx.body === 'string') {
      ctx.set('Content-Security-Policy', pagePolicy(ctx.body, frameAncestors));
      ctx.set('Referrer-Policy', 'no-referrer');
    }
  };
}
