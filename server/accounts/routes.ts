import type { OperationHandlers } from '../http/bind-operations.js';
import type { AppContext } from '../http/context.js';
import { hookUrls, type Account } from './account.js';
import type { AccountService, LoginInput, RegisterInput } from './account-service.js';

export function accountHandlers(accounts: AccountService, publicUrl: (ctx: AppContext) => string): OperationHandlers {
  const registration = (ctx: AppContext, account: Account) => ({
    account_id: account.account_id,
    merchant_id: account.merchant_id,
    key: { token: account.keys[0]!.token, webhook_secret: account.keys[0]!.webhook_secret },
    ...(account.console_token ? { console_token: account.console_token } : {}),
    hooks: hookUrls(publicUrl(ctx), account.account_id),
  });

  return {
    registerAccount: async (ctx) => {
      const account = await accounts.register(ctx.state.body as RegisterInput, true);
      ctx.status = 201;
      ctx.body = registration(ctx, account);
    },
    registerAccountLegacy: async (ctx) => {
      const account = await accounts.register(ctx.state.body as RegisterInput, false);
      ctx.status = 201;
      ctx.body = registration(ctx, account);
    },
    login: async (ctx) => {
      ctx.body = await accounts.login(ctx.state.body as LoginInput);
    },
    getConsoleKeys: async (ctx) => {
      const account = ctx.state.account!;
      ctx.body = {
        account_id: account.account_id,
        merchant_id: account.merchant_id,
        keys: account.keys,
        hooks: hookUrls(publicUrl(ctx), account.account_id),
      };
    },
    refreshToken: async (ctx) => {
      const { refreshToken } = ctx.state.body as { refreshToken: string };
      ctx.set('x-svc-sim', 'fuera-de-contrato');
      ctx.body = await accounts.refresh(refreshToken);
    },
  };
}
