import QRCode from 'qrcode';

/**
 * The provider's generate-qr-code image: a PNG QR code of the QRIS string, as a wallet app
 * scans it from the buyer's screen. Error correction M and a 4-module quiet zone, the
 * defaults EMVCo QR payloads are printed with; 8 pixels a module keeps it readable on screen.
 */
export function qrPng(payload: string): Promise<Buffer> {
  return QRCode.toBuffer(payload, {
    type: 'png',
    errorCorrectionLevel: 'M',
    margin: 4,
    scale: 8,
  });
}
