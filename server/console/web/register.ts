import { $, field } from './dom.js';

// Registering an account from the console, as POST /console/register does
// from a shell: the answer's console token opens the console on the new
// account, whose Keys panel then shows its API token and webhook secret
// (masked until revealed). The password never stays in the form.

/** Wires the form; `openWith` opens the console with the new account's console token. */
export function wireRegister(openWith: (consoleToken: string) => Promise<void>): void {
  $('register').addEventListener('submit', async (event) => {
    event.preventDefault();
    const password = field('register-password');
    const result = $('register-result');
    try {
      const response = await fetch('/console/register', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: field('register-email').value.trim(), password: password.value }),
      });
      const body = (await response.json().catch(() => ({}))) as { message?: string; console_token?: string };
      password.value = '';
      if (!response.ok || !body.console_token)
        return void (result.textContent = `Not registered: ${body.message ?? `HTTP ${response.status}`}`);
      result.textContent = '';
      await openWith(body.console_token);
    } catch (error) {
      result.textContent = `Not registered: ${(error as Error).message}`;
    }
  });
}
