// The part of the official Transbank POS SDK (no types of its own) that the
// tests drive our emulated POS with. Fields as the SDK parses them.
declare module 'transbank-pos-sdk' {
  interface Answer {
    functionCode: number;
    responseCode: number;
    responseMessage: string | null;
    successful: boolean;
  }
  interface WithTerminal extends Answer {
    commerceCode: number;
    terminalId: string;
  }
  export interface SaleAnswer extends WithTerminal {
    ticket: string;
    authorizationCode: string | null;
    amount: number;
    sharesNumber: string;
    sharesAmount: string;
    last4Digits: number | null;
    operationNumber: string;
    cardType: string;
    accountingDate: string;
    accountNumber: string;
    cardBrand: string;
    realDate: string;
    realTime: string;
    employeeId: string;
    tip: number | null;
    change?: string;
  }
  export interface DetailAnswer extends WithTerminal {
    ticket: string;
    authorizationCode: string | null;
    amount: string;
    last4Digits: number;
    operationNumber: string;
    cardType: string;
    cardBrand: string;
    realDate: string;
    realTime: string;
  }
  export interface RefundAnswer extends WithTerminal {
    authorizationCode: string;
    operationId: string;
  }
  export interface TotalsAnswer extends Answer {
    txCount: number;
    txTotal: number;
  }
  export interface Status {
    responseCode: number;
    responseMessage: string | null;
  }
  export class POSIntegrado {
    ackTimeout: number;
    posTimeout: number;
    setDebug(on: boolean): void;
    connect(path: string, baudRate?: number): Promise<boolean>;
    disconnect(): Promise<boolean>;
    isConnected(): boolean;
    poll(): Promise<boolean>;
    loadKeys(): Promise<WithTerminal>;
    sale(
      amount: number,
      ticket: string | number,
      sendStatus?: boolean,
      callback?: ((status: Status) => void) | null,
    ): Promise<SaleAnswer>;
    multicodeSale(
      amount: number,
      ticket: string | number,
      commerceCode?: string | null,
      sendStatus?: boolean,
      callback?: ((status: Status) => void) | null,
    ): Promise<SaleAnswer>;
    getLastSale(): Promise<SaleAnswer>;
    refund(operationNumber: string | number): Promise<RefundAnswer>;
    closeDay(): Promise<WithTerminal>;
    getTotals(): Promise<TotalsAnswer>;
    salesDetail(printOnPos?: boolean): Promise<DetailAnswer[] | boolean>;
    changeToNormalMode(): Promise<boolean>;
    send(payload: string, waitResponse?: boolean): Promise<string>;
  }
  /** The package is CommonJS: its classes come on the default export. */
  const sdk: { POSIntegrado: typeof POSIntegrado };
  export default sdk;
}
