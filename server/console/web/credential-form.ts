import { $, field } from './dom.js';

// The two forms that take an email and a password and answer a console
// token: logging in (POST /api/svcpagos/login) and registering an account
// (POST /console/register). The token opens the console on that account;
// the password never stays in the form; a refusal shows the server's words.

export interface CredentialForm {
  /** The form's id; its fields are `<id>-email` and `<id>-password`, its status line `<id>-result`. */
  id: string;
  path: string;
  /** How a failure begins: "Not logged in", "Not registered". */
  failure: string;
}

export function wireCredentialForm(form: CredentialForm, openWith: (consoleToken: string) => Promise<void>): void {
  $(form.id).addEventListener('submit', async (event) => {
    event.preventDefault();
    const password = field(`${form.id}-password`);
    const result = $(`${form.id}-result`);
    try {
      const response = await fetch(form.path, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: field(`${form.id}-email`).value.trim(), password: password.value }),
      });
      const body = (await response.json().catch(() => ({}))) as { message?: string; console_token?: string };
      password.value = '';
      if (!response.ok || !body.console_token)
        return void (result.textContent = `${form.failure}: ${body.message ?? `HTTP ${response.status}`}`);
      result.textContent = '';
      await openWith(body.console_token);
    } catch (error) {
      result.textContent = `${form.failure}: ${(error as Error).message}`;
    }
  });
}
