/**
 * AWS Signature Version 4 for supplier C's API and its result store: the canonical request,
 * the string to sign and the derived signing key, as the public signing documentation gives
 * them. Returns the headers to add (`authorization`, `x-amz-date`, `x-amz-content-sha256`,
 * `x-amz-security-token` when a session token is used).
 */
import { createHash, createHmac } from 'node:crypto';

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | null;
}

const sha256 = (data: string) => createHash('sha256').update(data, 'utf8').digest('hex');
const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data, 'utf8').digest();

/** RFC 3986 encoding of one path segment or query component, as SigV4 wants it. */
function encode(s: string): string {
  return encodeURIComponent(s).replace(/[!'()*]/g, (ch) => `%${ch.charCodeAt(0).toString(16).toUpperCase()}`);
}

export function signRequest(
  req: { method: string; url: string; headers?: Record<string, string>; body?: string },
  creds: Credentials,
  o: { region: string; service: string; now: Date },
): Record<string, string> {
  const u = new URL(req.url);
  const amzDate = o.now.toISOString().replace(/[-:]/g, '').replace(/\.\d{3}/, '');
  const day = amzDate.slice(0, 8);
  const payloadHash = sha256(req.body ?? '');
  const headers: Record<string, string> = { ...lower(req.headers ?? {}), host: u.host, 'x-amz-date': amzDate };
  if (o.service === 's3') headers['x-amz-content-sha256'] = payloadHash;
  if (creds.sessionToken) headers['x-amz-security-token'] = creds.sessionToken;
  const names = Object.keys(headers).sort();
  const canonicalHeaders = names.map((n) => `${n}:${headers[n]!.trim().replace(/\s+/g, ' ')}\n`).join('');
  const signedHeaders = names.join(';');
  // The path arrives percent-encoded once (by URL); S3 signs it as is, every other service
  // encodes each segment a second time (an ARN's `%3A` is signed as `%253A`).
  const path = o.service === 's3' ? u.pathname : u.pathname.split('/').map((seg) => encode(seg)).join('/');
  const query = [...u.searchParams.entries()].map(([k, v]) => [encode(k), encode(v)]).sort(([a, x], [b, y]) => (a === b ? (x! < y! ? -1 : 1) : a! < b! ? -1 : 1)).map(([k, v]) => `${k}=${v}`).join('&');
  const canonical = [req.method.toUpperCase(), path || '/', query, canonicalHeaders, signedHeaders, payloadHash].join('\n');
  const scope = `${day}/${o.region}/${o.service}/aws4_request`;
  const toSign = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(canonical)].join('\n');
  const key = hmac(hmac(hmac(hmac(`AWS4${creds.secretAccessKey}`, day), o.region), o.service), 'aws4_request');
  const signature = createHmac('sha256', key).update(toSign, 'utf8').digest('hex');
  const out: Record<string, string> = {
    'x-amz-date': amzDate,
    authorization: `AWS4-HMAC-SHA256 Credential=${creds.accessKeyId}/${scope}, SignedHeaders=${signedHeaders}, Signature=${signature}`,
  };
  if (o.service === 's3') out['x-amz-content-sha256'] = payloadHash;
  if (creds.sessionToken) out['x-amz-security-token'] = creds.sessionToken;
  return out;
}

function lower(h: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(h).map(([k, v]) => [k.toLowerCase(), v]));
}
