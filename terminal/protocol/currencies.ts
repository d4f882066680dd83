// The currencies every dialect names, once: ISO 4217's alphabetic code (what
// the server's orders carry, and nexo's Currency), its numeric code (ZVT's
// bitmap 49) and its exponent (how many minor units make a major one: nexo
// carries amounts in major units, the server and ZVT in minor ones).

export interface Currency {
  alpha: string;
  numeric: number;
  exponent: number;
}

const TABLE: readonly Currency[] = [
  { alpha: 'AUD', numeric: 36, exponent: 2 },
  { alpha: 'BRL', numeric: 986, exponent: 2 },
  { alpha: 'CAD', numeric: 124, exponent: 2 },
  { alpha: 'CHF', numeric: 756, exponent: 2 },
  { alpha: 'CLP', numeric: 152, exponent: 0 },
  { alpha: 'CZK', numeric: 203, exponent: 2 },
  { alpha: 'DKK', numeric: 208, exponent: 2 },
  { alpha: 'EUR', numeric: 978, exponent: 2 },
  { alpha: 'GBP', numeric: 826, exponent: 2 },
  { alpha: 'HKD', numeric: 344, exponent: 2 },
  { alpha: 'HUF', numeric: 348, exponent: 2 },
  { alpha: 'ISK', numeric: 352, exponent: 0 },
  { alpha: 'JPY', numeric: 392, exponent: 0 },
  { alpha: 'KWD', numeric: 414, exponent: 3 },
  { alpha: 'MXN', numeric: 484, exponent: 2 },
  { alpha: 'NOK', numeric: 578, exponent: 2 },
  { alpha: 'NZD', numeric: 554, exponent: 2 },
  { alpha: 'PLN', numeric: 985, exponent: 2 },
  { alpha: 'RON', numeric: 946, exponent: 2 },
  { alpha: 'SEK', numeric: 752, exponent: 2 },
  { alpha: 'SGD', numeric: 702, exponent: 2 },
  { alpha: 'USD', numeric: 840, exponent: 2 },
];

const byAlpha = new Map(TABLE.map((currency) => [currency.alpha, currency]));
const byNumeric = new Map(TABLE.map((currency) => [currency.numeric, currency]));

export const currencyOf = (alpha: string): Currency | undefined => byAlpha.get(alpha);
export const currencyOfNumeric = (numeric: number): Currency | undefined => byNumeric.get(numeric);

/** The euro: the currency a ZVT terminal takes (PA00P015 §1.4: 0978). */
export const EUR: Currency = byAlpha.get('EUR')!;
/** The Chilean peso: what a Transbank POS Integrado sells in (whole pesos). */
export const CLP: Currency = byAlpha.get('CLP')!;

/** Minor units (the server's amounts) as major units (nexo's), exactly as far as a decimal goes. */
export function toMajorUnits(minor: number, currency: Currency): number {
  return Number((minor / 10 ** currency.exponent).toFixed(currency.exponent));
}

/** Major units as minor units; undefined when the amount has more decimals than the currency. */
export function toMinorUnits(major: number, currency: Currency): number | undefined {
  const minor = Math.round(major * 10 ** currency.exponent);
  return Math.abs(minor - major * 10 ** currency.exponent) < 1e-6 ? minor : undefined;
}
