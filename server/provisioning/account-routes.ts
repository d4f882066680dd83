import type { AppContext } from '../http/context.js';
import type { OperationHandlers } from '../http/operation.js';
import { hookUrls, type Account } from '../accounts/account.js';
import type { AccountService } from '../accounts/account-service.js';

export function accountHandlers(accounts: AccountService, publicUrl: (ctx: AppContext) => string): OperationHandlers {
  const registration = (ctx: AppContext, account: Account) => ({
    account_id: account.account_id,
    merchant_id: account.merchant_id,
    key: { token: account.keys[0]!.token, webhook_secret: account.keys[0]!.webhook_secret },
    ...(account.console_token ? { console_token: account.console_token } : {}),
    hooks: hookUrls(publicUrl(ctx), account.account_id),
  });

  return {
    registerAccount: async ({ body }, ctx) => {
      const account = await accounts.register(body, true);
      ctx.status = 201;
      ctx.body = registration(ctx, account);
    },
    registerAccountLegacy: async ({ body }, ctx) => {
      const account = await accounts.register(body, false);
      ctx.status = 201;
      ctx.body = registration(ctx, account);
    },
    login: async ({ body }, ctx) => {
      ctx.body = await accounts.login(body);
    },
    getConsoleKeys: ({ account }, ctx) => {
      ctx.body = {
        account_id: account.account_id,
        merchant_id: account.merchant_id,
        keys: account.keys,
        hooks: hookUrls(publicUrl(ctx), account.account_id),
      };
    },
    refreshToken: async ({ body }, ctx) => {
      ctx.set('x-svc-sim', 'fuera-de-contrato');
      ctx.body = await accounts.refresh(body.refreshToken);
    },
  };
}
