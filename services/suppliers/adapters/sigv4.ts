/**
 * AWS Signature Version 4 for supplier C's API and its result store, by AWS's own signer
 * (`@smithy/signature-v4`), which tracks the protocol's corner cases (path normalisation,
 * repeated query keys, headers it must not sign). Returns the headers to add
 * (`authorization`, `x-amz-date`, `x-amz-content-sha256` for the store, `x-amz-security-token`
 * when a session token is used).
 */

/**
 * The signer's packages, loaded on the first signature: only supplier C's calls need them, and
 * loading them cost every `lattice serve` start about 30 ms.
 */
let signerPackages: Promise<[typeof import('@smithy/hash-node'), typeof import('@smithy/signature-v4')]> | null = null;

export interface Credentials {
  accessKeyId: string;
  secretAccessKey: string;
  sessionToken?: string | null;
}

const SIGNED_OUTPUT = ['authorization', 'x-amz-date', 'x-amz-content-sha256', 'x-amz-security-token'] as const;

export async function signRequest(
  req: { method: string; url: string; headers?: Record<string, string>; body?: string },
  creds: Credentials,
  o: { region: string; service: string; now: Date },
): Promise<Record<string, string>> {
  const u = new URL(req.url);
  const query: Record<string, string | string[]> = {};
  for (const [k, v] of u.searchParams) {
    const had = query[k];
    query[k] = had === undefined ? v : [...(Array.isArray(had) ? had : [had]), v];
  }
  const [{ Hash }, { SignatureV4 }] = await (signerPackages ??= Promise.all([import('@smithy/hash-node'), import('@smithy/signature-v4')]));
  const signer = new SignatureV4({
    service: o.service,
    region: o.region,
    credentials: { accessKeyId: creds.accessKeyId, secretAccessKey: creds.secretAccessKey, sessionToken: creds.sessionToken ?? undefined },
    sha256: Hash.bind(null, 'sha256'),
    // The path arrives percent-encoded once (by URL); S3 signs it as is, every other service
    // encodes each segment a second time (an ARN's `%3A` is signed as `%253A`).
    uriEscapePath: o.service !== 's3',
    // S3 takes the payload's hash as a signed header; the other services sign without it.
    applyChecksum: o.service === 's3',
  });
  const signed = await signer.sign(
    {
      method: req.method.toUpperCase(),
      protocol: u.protocol,
      hostname: u.hostname,
      port: u.port ? Number(u.port) : undefined,
      path: u.pathname || '/',
      query,
      headers: { ...req.headers, host: u.host },
      body: req.body,
    },
    { signingDate: o.now },
  );
  const out: Record<string, string> = {};
  for (const name of SIGNED_OUTPUT) {
    const value = signed.headers[name];
    if (value !== undefined) out[name] = value;
  }
  return out;
}
