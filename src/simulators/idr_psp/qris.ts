/**
 * The QRIS payload of a simulated dynamic QR: an EMVCo Merchant-Presented Mode (MPM) string,
 * as the provider puts in qr_string. Every data object is ID (2 digits), length (2 digits,
 * in characters) and value; the string ends with the CRC (ID 63) over everything before it,
 * "6304" included. Scannable and well-formed, but not payable: no real acquirer is behind it.
 */

/** Globally unique identifier of the national QRIS merchant template (ID 51). */
export const QRIS_GUI = 'ID.CO.QRIS.WWW';
/** The acquirer's own template (ID 26): GoPay, the simulated acquirer. */
export const ACQUIRER_GUI = 'COM.GO-JEK.WWW';
/** ISO 4217 numeric code of the rupiah. */
export const CURRENCY_IDR = '360';
export const MERCHANT_NAME = 'PAYGATE TEST MERCHANT';
export const MERCHANT_CITY = 'JAKARTA';
/** Merchant category code: 5999, miscellaneous retail. */
export const MCC = '5999';

/** One data object; the length is the value's length in characters, at most 99. */
export function tlv(id: string, value: string): string {
  if (!/^\d{2}$/.test(id)) throw new Error(`EMV QR data object ID must be 2 digits: ${id}`);
  if (value.length < 1 || value.length > 99) {
    throw new Error(`EMV QR data object ${id} must hold 1 to 99 characters`);
  }
  return id + String(value.length).padStart(2, '0') + value;
}

/**
 * CRC-16/CCITT-FALSE (polynomial 0x1021, initial 0xFFFF, no reflection, no final XOR) over the
 * UTF-8 bytes, as 4 uppercase hex digits: the checksum of ID 63.
 */
export function crc16(s: string): string {
  let crc = 0xffff;
  for (const byte of Buffer.from(s, 'utf8')) {
    crc ^= byte << 8;
    for (let i = 0; i < 8; i++) {
      crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
    }
  }
  return crc.toString(16).toUpperCase().padStart(4, '0');
}

/** Appends "6304" and the CRC computed over the payload including it. */
export function withCrc(payloadWithoutCrc: string): string {
  const body = payloadWithoutCrc + '6304';
  return body + crc16(body);
}

export interface QrisInput {
  /** The acquirer's merchant PAN (ID 26 sub-ID 01): 9360 + issuer code + digits, 16 to 19. */
  merchantPan: string;
  /** The merchant's id at QRIS (ID 51 sub-ID 02). */
  merchantId: string;
  /** Whole rupiah. */
  amount: number;
  /** The transaction's reference label (ID 62 sub-ID 05), at most 25 characters. */
  reference: string;
}

/** A dynamic (point of initiation 12) QRIS with the amount in ID 54. */
export function qrisPayload(input: QrisInput): string {
  if (!Number.isSafeInteger(input.amount) || input.amount <= 0) {
    throw new Error('QRIS amount must be a positive whole number of rupiah');
  }
  const amount = String(input.amount);
  // ID 54 holds at most 13 characters.
  if (amount.length > 13) throw new Error('QRIS amount has more than 13 digits');
  return withCrc(
    tlv('00', '01') +
      tlv('01', '12') +
      tlv('26', tlv('00', ACQUIRER_GUI) + tlv('01', input.merchantPan) + tlv('03', 'UMI')) +
      tlv('51', tlv('00', QRIS_GUI) + tlv('02', input.merchantId) + tlv('03', 'UMI')) +
      tlv('52', MCC) +
      tlv('53', CURRENCY_IDR) +
      tlv('54', amount) +
      tlv('58', 'ID') +
      tlv('59', MERCHANT_NAME.slice(0, 25)) +
      tlv('60', MERCHANT_CITY.slice(0, 15)) +
      tlv('62', tlv('05', input.reference.slice(0, 25))),
  );
}
