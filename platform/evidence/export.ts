/**
 * Bundle exports: JSON (the bundle as issued, indented), CBOR (RFC 8949 with the deterministic
 * encoding of section 4.2: cbor2's `cde` option, i.e. preferred serialisation, definite lengths
 * and map keys sorted bytewise) and PDF (pdf.ts, loaded only when asked for). The same bundle
 * always exports to the same CBOR bytes, and decoding them gives back a bundle whose
 * canonical JSON, and so whose signature, is unchanged.
 */
import { bundleIdOf, type Bundle } from './profiles.ts';

export const EXPORT_FORMATS = ['json', 'cbor', 'pdf'] as const;
export type ExportFormat = (typeof EXPORT_FORMATS)[number];

export interface ExportedBundle {
  format: ExportFormat;
  contentType: string;
  /** A file name for Content-Disposition: `<bundle id>.<format>`. */
  filename: string;
  body: Buffer;
}

export function isExportFormat(value: unknown): value is ExportFormat {
  return typeof value === 'string' && (EXPORT_FORMATS as readonly string[]).includes(value);
}

/** A safe file name stem: the bundle's id when it is one, else `evidence`. */
function fileStem(bundle: Bundle): string {
  const id = bundleIdOf(bundle);
  return id && /^[A-Za-z0-9._-]{1,100}$/.test(id) ? id : 'evidence';
}

/** Deterministic CBOR of a bundle. */
export async function encodeBundleCbor(bundle: Bundle): Promise<Buffer> {
  const { encode } = await import('cbor2');
  return Buffer.from(encode(bundle, { cde: true }));
}

/** A bundle back from CBOR; refuses duplicate map keys and anything that is not a map at the top. */
export async function decodeBundleCbor(bytes: Uint8Array): Promise<Bundle> {
  const { decode } = await import('cbor2');
  const value = decode(bytes, { rejectDuplicateKeys: true }) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value) || value instanceof Map) {
    throw new TypeError('the CBOR document is not a map with text keys');
  }
  return value as Bundle;
}

export async function exportBundle(bundle: Bundle, format: ExportFormat): Promise<ExportedBundle> {
  const name = fileStem(bundle);
  switch (format) {
    case 'json':
      return { format, contentType: 'application/json', filename: `${name}.json`, body: Buffer.from(`${JSON.stringify(bundle, null, 2)}\n`) };
    case 'cbor':
      return { format, contentType: 'application/cbor', filename: `${name}.cbor`, body: await encodeBundleCbor(bundle) };
    case 'pdf': {
      const { renderBundlePdf } = await import('./pdf.ts');
      return { format, contentType: 'application/pdf', filename: `${name}.pdf`, body: await renderBundlePdf(bundle) };
    }
  }
}
