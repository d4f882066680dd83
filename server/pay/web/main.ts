// The payment page's script (served as /pay/app.js, one module built from
// here by scripts/build-web.mjs). Everything in it is an enhancement: without
// it the payer still pays (every method's fields are in the form, the server
// checks those of the method chosen) and a link follows leg 2.
//
// On the form: only the chosen method's fields show (and are required), the
// countdown ticks and, at the due date, the form is disabled with the reason.
// On the status page while leg 2 runs: it reloads itself by GET every 2 s.
// On both: each instant shown in UTC gets the payer's local time beside it.

import { formatLeft } from '../time-left.js';

/** Every element of `selector` on the page, typed. */
const all = <E extends Element>(selector: string): E[] => [...document.querySelectorAll<E>(selector)];

function showMethod(method: string): void {
  for (const section of all<HTMLFieldSetElement>('[data-fields]')) {
    const on = section.dataset.fields === method;
    section.hidden = !on;
    for (const input of section.querySelectorAll('input')) input.required = on;
  }
}

function followMethodChoice(): void {
  const checked = document.querySelector<HTMLInputElement>('[data-method]:checked');
  if (checked) showMethod(checked.value);
  for (const radio of all<HTMLInputElement>('[data-method]'))
    radio.addEventListener('change', () => showMethod(radio.value));
}

function countDown(): void {
  const countdown = document.getElementById('countdown');
  if (!countdown) return;
  // The server's clock may be a simulated one: count from its now, not the browser's.
  const offset = Number(countdown.dataset.now) - Date.now();
  const tick = () => {
    const left = Number(countdown.dataset.due) - (Date.now() + offset);
    countdown.textContent = formatLeft(left);
    if (left > 0) return;
    // Past the due date the server refuses the payment: say so, and disable the form instead of letting it fail.
    const expired = document.getElementById('expired');
    if (expired) expired.hidden = false;
    for (const control of all<HTMLInputElement | HTMLButtonElement>('#pay input, #pay button')) control.disabled = true;
    clearInterval(timer);
  };
  const timer = setInterval(tick, 1000);
  tick();
}

function localTimes(): void {
  for (const element of all<HTMLElement>('[data-local]'))
    element.textContent = `, ${new Date(Number(element.dataset.local)).toLocaleString()} your time`;
}

/**
 * While leg 2 runs, the status page follows it by GET (a reload of the POST's
 * answer would post the form again). Without a script its link does the same,
 * at the payer's pace (an automatic refresh would take the timing out of the
 * payer's hands, WCAG 2.2.1).
 */
function followLeg2(): void {
  const link = document.querySelector<HTMLAnchorElement>('a[data-follow]');
  if (link) setTimeout(() => location.replace(link.href), 2000);
}

followMethodChoice();
// After a refusal, the reason has the focus (autofocus does it too; not every browser honours it on a paragraph).
document.getElementById('error-summary')?.focus();
countDown();
localTimes();
followLeg2();
