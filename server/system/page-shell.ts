// The frame of the simulator's small static pages (the landing page,
// /fidelidad): one stylesheet with colours that pass WCAG AA in both
// schemes, no script. Every value put in a page goes through `escapeHtml`.

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

// Light: text #1a1a1a, links #0b57d0, muted #555 on white (17:1, 6.9:1, 7.5:1).
// Dark: text #ececec, links #8ab4f8, muted #b0b0b0 on #121212 (15:1, 8.7:1, 8.6:1).
/** The colours of every page, as custom properties, for both schemes, with explicit text and background. */
export const palette = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --fg: #1a1a1a; --bg: #fff; --link: #0b57d0; --muted: #555; --line: #767676; --ok: #1b5e20; --bad: #b71c1c; --panel: #f3f6fb; }
  @media (prefers-color-scheme: dark) { :root { --fg: #ececec; --bg: #121212; --link: #8ab4f8; --muted: #b0b0b0; --line: #8a8a8a; --ok: #81c784; --bad: #ef9a9a; --panel: #1d2430; } }
  html, body { color: var(--fg); background: var(--bg); }
  a { color: var(--link); }
`;

const style = `${palette}
  body { margin: 0; padding: 1rem; line-height: 1.5; }
  main { max-width: 60rem; margin: 0 auto; }
  a:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
  h1 { font-size: 1.5rem; } h2 { font-size: 1.15rem; margin-top: 1.5rem; }
  .muted { color: var(--muted); }
  .site-nav { font-size: .95rem; }
  code, pre { font-family: ui-monospace, monospace; font-size: .9rem; }
  /* A command keeps its lines whole (copied as it is), and scrolls sideways on a narrow screen. */
  pre { white-space: pre; overflow-x: auto; border: 1px solid var(--line); border-radius: .4rem; padding: .6rem; }
  pre:focus-visible { outline: 3px solid var(--link); outline-offset: 2px; }
  table { border-collapse: collapse; width: 100%; }
  th, td { text-align: left; vertical-align: top; padding: .4rem; border-bottom: 1px solid var(--line); overflow-wrap: break-word; }
  @media (max-width: 40rem) { table, thead, tbody, tr, th, td { display: block; } thead { position: absolute; left: -9999px; } td { border: 0; padding: .15rem 0; } tr { border-bottom: 1px solid var(--line); padding: .5rem 0; } }
`;

/** A whole page with its own stylesheet: `body` is HTML already escaped by the caller. */
export function htmlDocument(title: string, css: string, body: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${css}</style>
</head>
<body>
<main>
${body}
</main>
</body>
</html>
`;
}

/** The way between the simulator's pages, at the top of each. */
export const siteNav = `<nav aria-label="Simulator pages" class="site-nav"><a href="/">Home</a> · <a href="/console">Console</a> · <a href="/fidelidad">Fidelidad</a> · <a href="/openapi.json">OpenAPI</a></nav>`;

/** A page in the style of the simulator's static pages. */
export function pageShell(title: string, body: string): string {
  return htmlDocument(title, style, `${siteNav}\n${body}`);
}
