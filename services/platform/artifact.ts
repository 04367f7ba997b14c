/**
 * `artifact_uri` of a circuit workload: where its QASM is when it is not inline. `data:` URIs
 * (RFC 2397, plain or base64) are read directly; `http:` and `https:` URIs are fetched at
 * submission with a 10 s timeout and a 256 KiB cap, so that the job, its hash and its
 * evidence pin the text that was actually run. Any other scheme is refused.
 */
import { platformError } from './errors.ts';

export const MAX_ARTIFACT_BYTES = 256 * 1024;

export async function readArtifact(uri: string): Promise<string> {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw platformError('invalid_artifact_uri', 'artifact_uri is not a URI', { artifact_uri: uri });
  }
  if (url.protocol === 'data:') return readDataUri(uri);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw platformError('invalid_artifact_uri', `artifact_uri scheme '${url.protocol.replace(/:$/, '')}' is not supported (data, http, https)`, { artifact_uri: uri });
  }
  let response: Response;
  try {
    response = await fetch(url, { signal: AbortSignal.timeout(10_000), redirect: 'follow' });
  } catch (err) {
    throw platformError('artifact_unavailable', `artifact_uri could not be fetched: ${(err as Error).message}`, { artifact_uri: uri });
  }
  if (!response.ok) throw platformError('artifact_unavailable', `artifact_uri answered HTTP ${response.status}`, { artifact_uri: uri });
  const reader = response.body?.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  if (reader) {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      size += value.byteLength;
      if (size > MAX_ARTIFACT_BYTES) {
        await reader.cancel();
        throw platformError('artifact_unavailable', `the artifact is larger than ${MAX_ARTIFACT_BYTES} bytes`, { artifact_uri: uri });
      }
      chunks.push(value);
    }
  }
  return Buffer.concat(chunks).toString('utf8');
}

function readDataUri(uri: string): string {
  const comma = uri.indexOf(',');
  if (comma < 0) throw platformError('invalid_artifact_uri', 'a data: URI needs a comma before its data', { artifact_uri: uri.slice(0, 100) });
  const meta = uri.slice(5, comma);
  const data = uri.slice(comma + 1);
  let bytes: Buffer;
  if (meta.split(';').includes('base64')) {
    if (!/^[A-Za-z0-9+/]*={0,2}$/.test(data)) throw platformError('invalid_artifact_uri', 'the data: URI is not valid base64', {});
    bytes = Buffer.from(data, 'base64');
  } else {
    try {
      bytes = Buffer.from(decodeURIComponent(data), 'utf8');
    } catch {
      throw platformError('invalid_artifact_uri', 'the data: URI has a bad percent-escape', {});
    }
  }
  if (bytes.byteLength > MAX_ARTIFACT_BYTES) throw platformError('artifact_unavailable', `the artifact is larger than ${MAX_ARTIFACT_BYTES} bytes`, {});
  return bytes.toString('utf8');
}
