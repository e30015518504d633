import { Decimal } from './money.js';

const ONES = ['', 'One', 'Two', 'Three', 'Four', 'Five', 'Six', 'Seven', 'Eight', 'Nine', 'Ten', 'Eleven', 'Twelve', 'Thirteen', 'Fourteen', 'Fifteen'];
const TEENS = ['Sixteen', 'Seventeen', 'Eighteen', 'Nineteen'];
const TENS = ['', '', 'Twenty', 'Thirty', 'Forty', 'Fifty', 'Sixty', 'Seventy', 'Eighty', 'Ninety'];

function belowHundred(n: number): string {
  if (n < 16) return ONES[n];
  if (n < 20) return TEENS[n - 16];
  return TENS[Math.floor(n / 10)] + (n % 10 ? `-${ONES[n % 10]}` : '');
}

function belowThousand(n: number): string {
  const hundreds = Math.floor(n / 100);
  const rest = n % 100;
  return [hundreds ? `${ONES[hundreds]} Hundred` : '', rest ? belowHundred(rest) : ''].filter(Boolean).join(' ');
}

/** A whole number in the Indian system: crore (10^7), lakh (10^5), thousand, hundred; above 99 crore the crores are counted the same way. */
export function indianNumberWords(n: bigint): string {
  if (n === 0n) return 'Zero';
  const parts: string[] = [];
  const crores = n / 10_000_000n;
  let rest = Number(n % 10_000_000n);
  if (crores > 0n) parts.push(`${indianNumberWords(crores)} Crore`);
  const lakhs = Math.floor(rest / 100_000);
  rest %= 100_000;
  const thousands = Math.floor(rest / 1000);
  rest %= 1000;
  if (lakhs) parts.push(`${belowHundred(lakhs)} Lakh`);
  if (thousands) parts.push(`${belowHundred(thousands)} Thousand`);
  if (rest) parts.push(belowThousand(rest));
  return parts.join(' ');
}

/** An INR amount in words as printed on invoices: "Rupees One Lakh Twenty Thousand and Fifty Paise Only". */
export function rupeesInWords(amount: Decimal | string | number): string {
  const value = new Decimal(amount).toDecimalPlaces(2);
  if (value.isNegative()) throw new RangeError('amount must not be negative');
  const [whole, fraction] = value.toFixed(2).split('.');
  const paise = Number(fraction);
  const rupees = `Rupees ${indianNumberWords(BigInt(whole))}`;
  return `${rupees}${paise ? ` and ${belowHundred(paise)} Paise` : ''} Only`;
}
