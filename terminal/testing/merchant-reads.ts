import type { merchantWithTerminal, TestServer } from '../../server/testing/test-server.js';

/** What a bridge test asks the server as the merchant: an order, the terminal's settlements in closing order, a void. */
export function merchantReads(server: TestServer, merchant: Awaited<ReturnType<typeof merchantWithTerminal>>) {
  const token = merchant.account.key.token;
  const order = async (orderId: string) =>
    (await server.api.get(`${merchant.merchantPath}/transactions/${orderId}`, { token })).body.data;
  const settlements = async () =>
    (
      await server.api.get(
        `${merchant.merchantPath}/pos-terminals/${merchant.serialNumber}/settlements?sort=closedAt`,
        { token },
      )
    ).body.data as Array<{
      batchNumber: string;
      transactionCount: number;
      closedAt: string;
      currencyReference: string;
    }>;
  const voidOrder = (orderId: string) =>
    server.api.post(`${merchant.merchantPath}/transactions/${orderId}/invalidation`, { token });
  return { order, settlements, voidOrder };
}
