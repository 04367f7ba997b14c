/**
 * HTTP calls to a supplier's API with a timeout, JSON in and out, and the supplier's
 * failures in interface 2's words: unreachable -> PROVIDER_UNAVAILABLE, refused credentials
 * -> SUPPLIER_NOT_CONFIGURED, any other non-2xx -> BACKEND_ERROR with the supplier's message.
 */
import { supplierError } from '../errors.ts';

export interface HttpCall {
  method: string;
  url: string;
  headers?: Record<string, string>;
  body?: string;
  timeoutMs?: number;
}

export async function callSupplier(supplier: string, c: HttpCall): Promise<{ status: number; text: string }> {
  let res: Response;
  try {
    res = await fetch(c.url, { method: c.method, headers: c.headers, body: c.body, signal: AbortSignal.timeout(c.timeoutMs ?? 15_000), redirect: 'error' });
  } catch (err) {
    throw supplierError('PROVIDER_UNAVAILABLE', `${supplier} could not be reached: ${(err as Error).message}`, { supplier });
  }
  const text = await res.text();
  if (res.status === 401 || res.status === 403) {
    throw supplierError('SUPPLIER_NOT_CONFIGURED', `${supplier} refused the configured credentials (HTTP ${res.status})`, { supplier });
  }
  if (res.status >= 400) {
    const message = /^\s*[{[]/.test(text) ? extractMessage(text) : text.slice(0, 300);
    throw supplierError(res.status >= 500 ? 'PROVIDER_UNAVAILABLE' : 'BACKEND_ERROR', `${supplier} answered HTTP ${res.status}: ${message}`, { supplier, supplier_status: res.status });
  }
  return { status: res.status, text };
}

function extractMessage(text: string): string {
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const m = body.message ?? body.detail ?? body.error ?? body.errors;
    return typeof m === 'string' ? m : JSON.stringify(m ?? body).slice(0, 300);
  } catch {
    return text.slice(0, 300);
  }
}

export async function jsonCall<T>(supplier: string, c: HttpCall): Promise<T> {
  const { text } = await callSupplier(supplier, { ...c, headers: { accept: 'application/json', ...(c.body ? { 'content-type': 'application/json' } : {}), ...c.headers } });
  if (!text) return {} as T;
  try {
    return JSON.parse(text) as T;
  } catch {
    throw supplierError('BACKEND_ERROR', `${supplier} answered with a body that is not JSON`, { supplier });
  }
}
