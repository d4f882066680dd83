// GET /console: a small web console with no dependency. Its script is
// typed modules (web/), bundled into one and served as /console/app.js.
// It talks to the console API with the token pasted into it (and, for the
// control plane and the POS side, to the API with the account's own API
// token, which the console API hands it). Every value shown is set as
// text, never as HTML: the trace holds whatever anyone posted to the
// captura receiver. Nothing is redrawn wholesale: new trace entries are
// added as rows, other lists are updated row by row, so a selection, the
// focus and the scroll position survive the live updates.

// Colours pass WCAG AA in both schemes: light text #1a1a1a, muted #555,
// links and focus #0b57d0 on white; dark text #ececec, muted #b0b0b0,
// links and focus #8ab4f8 on #121212.
const style = `
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; --fg: #1a1a1a; --bg: #fff; --muted: #555; --accent: #0b57d0; --line: #767676; --ok: #1b5e20; --bad: #b71c1c; --panel: #f3f6fb; }
  @media (prefers-color-scheme: dark) { :root { --fg: #ececec; --bg: #121212; --muted: #b0b0b0; --accent: #8ab4f8; --line: #8a8a8a; --ok: #81c784; --bad: #ef9a9a; --panel: #1d2430; } }
  body { margin: 0; padding: .75rem; line-height: 1.4; color: var(--fg); background: var(--bg); }
  main { max-width: 80rem; margin: 0 auto; display: grid; gap: 1rem; }
  section { border: 1px solid var(--line); border-radius: .5rem; padding: .75rem; min-width: 0; }
  h1 { font-size: 1.4rem; margin: 0; } h2 { font-size: 1.1rem; margin: 0 0 .5rem; } h3 { font-size: 1rem; margin: .75rem 0 .25rem; }
  label { font-weight: 600; margin-right: .4rem; }
  input, select { font-size: 1rem; padding: .35rem; max-width: 100%; box-sizing: border-box; color: var(--fg); background: var(--bg); border: 1px solid var(--line); border-radius: .3rem; }
  #token { width: min(24rem, 100%); }
  button { font-size: .95rem; padding: .3rem .7rem; cursor: pointer; color: var(--fg); background: var(--panel); border: 1px solid var(--line); border-radius: .3rem; }
  button:focus-visible, input:focus-visible, select:focus-visible, a:focus-visible, [tabindex]:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
  a { color: var(--accent); }
  .bar { display: flex; flex-wrap: wrap; gap: .5rem; align-items: center; margin: 0 0 .5rem; }
  .scroll { overflow-x: auto; position: relative; }
  table { border-collapse: collapse; width: 100%; font-size: .9rem; }
  th, td { text-align: left; padding: .25rem .4rem; border-bottom: 1px solid var(--line); vertical-align: top; }
  code, pre { font-family: ui-monospace, monospace; font-size: .85rem; word-break: break-all; white-space: pre-wrap; margin: 0; }
  /* A summary breaks between its fields, and inside one only when it cannot fit a line alone. */
  code.summary { word-break: normal; overflow-wrap: break-word; }
  /* A URL breaks after a slash (each one is followed by a <wbr>), inside a part only when that part cannot fit a line. */
  code.url { word-break: normal; overflow-wrap: anywhere; white-space: normal; }
  #drawer-resend-url { width: min(48rem, 100%); }
  time { white-space: nowrap; }
  .badge { display: inline-block; padding: 0 .4rem; border-radius: .3rem; border: 2px solid; font-weight: 600; }
  .badge.ok { color: var(--ok); border-color: var(--ok); } .badge.bad { color: var(--bad); border-color: var(--bad); } .badge.wait { color: var(--muted); border-color: var(--line); }
  tr.drawer > td { padding: .5rem 0; } .attempt { border-top: 1px solid var(--line); padding-top: .4rem; } h4 { margin: .3rem 0; }
  pre { background: var(--panel); padding: .5rem; border-radius: .3rem; }
  .muted, .todo { color: var(--muted); } .done, .ok { color: var(--ok); } .bad, #error { color: var(--bad); }
  .panel { background: var(--panel); }
  [hidden] { display: none !important; }
  .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  dl { display: grid; grid-template-columns: max-content 1fr; gap: .2rem .75rem; margin: 0; } dt { font-weight: 600; } dd { margin: 0; overflow-wrap: break-word; min-width: 0; }
  tr.new { animation: flash 1.5s ease-out; } @keyframes flash { from { background: var(--panel); } }
  @media (prefers-reduced-motion: reduce) { tr.new { animation: none; } }
  @media (min-width: 60rem) { .two { display: grid; grid-template-columns: 1fr 1fr; gap: 1rem; } }
`;

export const consolePage = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Simulator console</title>
<style>${style}</style>
</head>
<body>
<main>
<header>
  <nav aria-label="Simulator pages"><a href="/">Home</a> · <a href="/fidelidad">Fidelidad</a> · <a href="/openapi.json">OpenAPI</a></nav>
  <h1>Simulator console</h1>
  <div id="sign-in">
  <form id="relogin" class="bar">
    <label for="relogin-email">Email</label>
    <input id="relogin-email" name="email" type="email" autocomplete="username" required>
    <label for="relogin-password">Password</label>
    <input id="relogin-password" name="password" type="password" autocomplete="current-password" required>
    <button type="submit" id="relogin-submit">Log in</button>
    <span id="relogin-result" role="status"></span>
  </form>
  <form id="login" class="bar">
    <span class="muted">or paste the</span>
    <label for="token">Console token</label>
    <input id="token" name="token" type="password" autocomplete="off" spellcheck="false" placeholder="ct_…" required>
    <button type="submit">Open</button>
  </form>
  <form id="register" class="bar">
    <span class="muted">New here? Register an account:</span>
    <label for="register-email">New email</label>
    <input id="register-email" name="email" type="email" autocomplete="username" required>
    <label for="register-password">New password</label>
    <input id="register-password" name="password" type="password" autocomplete="new-password" minlength="8" required>
    <button type="submit">Register</button>
    <span id="register-result" role="status"></span>
  </form>
  </div>
  <p id="error" role="alert"></p>
  <div class="bar" id="live-bar" hidden>
    <button type="button" id="pause" aria-pressed="false">Pause live updates</button>
    <span id="live-state" class="muted">Live: new events appear as they happen.</span>
    <span>Account clock: <strong id="clock">—</strong></span>
    <button type="button" data-advance="60000">+1 min</button>
    <button type="button" data-advance="3600000">+1 h</button>
    <button type="button" data-advance="86400000">+1 day</button>
    <button type="button" id="advance-next">To the next due</button>
    <span id="clock-result" role="status"></span>
    <button type="button" id="sign-out">Sign out</button>
  </div>
</header>
<div class="two">
<section aria-labelledby="keys-title"><h2 id="keys-title">Keys</h2><div id="keys">—</div></section>
<section aria-labelledby="progress-title"><h2 id="progress-title">Progress</h2><ol id="progress"></ol>
  <h3>Relay</h3><p id="relay-state" role="status">—</p></section>
</div>
<section aria-labelledby="sessions-title"><h2 id="sessions-title">Sessions</h2>
  <form id="session-filter" class="bar">
    <label for="session-status">Status</label>
    <select id="session-status"><option value="">any</option><option>pending</option><option>paid</option><option>failed</option><option>expired</option></select>
    <label for="session-accreditation">Accreditation</label>
    <select id="session-accreditation"><option value="">any</option><option>none</option><option>scheduled</option><option>accredited</option><option>failed</option></select>
    <label for="session-find">Session id starts with</label>
    <input id="session-find" placeholder="ses_…" spellcheck="false" size="24" aria-describedby="session-find-hint">
    <span id="session-find-hint" class="muted">(instead of the filters)</span>
    <button type="submit">Show</button>
  </form>
  <div class="scroll" role="region" aria-label="Sessions table, scrollable" tabindex="0">
  <table><thead><tr><th scope="col">Session</th><th scope="col">Status</th><th scope="col">Amount</th><th scope="col">Accreditation</th><th scope="col">Created</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody id="sessions"></tbody></table>
  </div>
  <div class="bar"><button type="button" id="sessions-prev">Newer</button><span id="sessions-page" aria-live="polite">page 1</span><button type="button" id="sessions-next">Older</button></div>
</section>
<section id="session-panel" class="panel" aria-labelledby="session-title" hidden>
  <h2 id="session-title" tabindex="-1">Session</h2>
  <dl id="session-fields"></dl>
  <h3>Control plane</h3>
  <div class="bar" id="session-controls"></div>
  <p id="session-result" role="status"></p>
  <h3>Its events</h3>
  <div class="scroll" role="region" aria-label="The session's events" tabindex="0">
  <table><thead><tr><th scope="col">At</th><th scope="col">Type</th><th scope="col">Details</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody id="session-events"></tbody></table>
  </div>
</section>
<section aria-labelledby="scenarios-title"><h2 id="scenarios-title">Scenarios</h2>
  <form id="scenario-form" class="bar">
    <label for="scenario-name">Scenario</label>
    <select id="scenario-name"></select>
    <button type="submit" id="scenario-run">Run on this account</button>
  </form>
  <div id="scenario-about"></div>
  <p id="scenario-result" role="status"></p>
  <p id="scenario-race" role="status"></p>
  <ol id="scenario-steps" aria-label="The run's steps"></ol>
</section>
<section aria-labelledby="trace-title"><h2 id="trace-title">Trace</h2>
  <form id="trace-filter" class="bar">
    <label for="trace-type">Type</label>
    <select id="trace-type"><option value="">any</option></select>
    <label for="trace-result">Attempts</label>
    <select id="trace-result"><option value="">any</option><option value="failed">failed (no 2xx)</option><option value="succeeded">delivered (2xx)</option></select>
    <label for="trace-session">Session id</label>
    <input id="trace-session" placeholder="ses_…" spellcheck="false" size="24">
    <label for="trace-search">Find id</label>
    <input id="trace-search" placeholder="evt_… or trc_…" spellcheck="false" size="24">
    <button type="submit">Apply</button>
  </form>
  <div class="bar"><button type="button" id="resend-failed" hidden>Resend every failed event</button><span id="resend-failed-result" role="status"></span></div>
  <p id="trace-news" class="visually-hidden" aria-live="polite"></p>
  <div class="scroll" role="region" aria-label="Trace entries, scrollable" tabindex="0">
  <table><thead><tr><th scope="col">At</th><th scope="col">Type</th><th scope="col">Details</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead><tbody id="trace"></tbody></table>
  </div>
</section>
<div id="event-home">
<section id="event-panel" class="panel" aria-labelledby="event-title" hidden>
  <div class="bar"><h2 id="event-title" tabindex="-1">Event</h2><button type="button" id="event-close">Close</button></div>
  <div id="event-body"></div>
  <form id="verify" class="bar" hidden>
    <label for="verify-secret">Verify the signature with your secret</label>
    <input id="verify-secret" type="password" autocomplete="off" placeholder="whsec_…" size="30">
    <button type="submit">Verify</button>
    <span id="verify-result" role="status"></span>
  </form>
</section>
</div>
<section aria-labelledby="pos-title"><h2 id="pos-title">POS: terminals, orders, settlements</h2>
  <div class="bar"><button type="button" id="pos-load">Show the POS side</button><span id="pos-result" role="status"></span></div>
  <div id="pos"></div>
</section>
</main>
<script type="module" src="/console/app.js"></script>
</body>
</html>`;
