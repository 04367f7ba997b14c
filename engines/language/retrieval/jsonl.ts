// Reads JSON Lines files of documents or queries, naming the line of any bad record.
import { readFileSync } from 'node:fs';
import { LanguageError } from '../errors.ts';

export function readJsonl<T>(path: string, check: (value: unknown, line: number) => T): T[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw new LanguageError('invalid_request', `cannot read ${path}: ${(err as NodeJS.ErrnoException).code ?? String(err)}`);
  }
  const out: T[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line) return;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch {
      throw new LanguageError('invalid_request', `${path}:${i + 1}: not valid JSON`);
    }
    out.push(check(value, i + 1));
  });
  return out;
}

export function docRecord(path: string) {
  return (v: unknown, line: number): { doc_id: string; title?: string; text: string } => {
    const o = v as { doc_id?: unknown; title?: unknown; text?: unknown };
    const id = typeof o?.doc_id === 'number' ? String(o.doc_id) : o?.doc_id;
    if (typeof id !== 'string' || id === '') throw new LanguageError('invalid_request', `${path}:${line}: doc_id must be a non-empty string`);
    if (typeof o.text !== 'string') throw new LanguageError('invalid_request', `${path}:${line}: text must be a string`);
    if (o.title !== undefined && o.title !== null && typeof o.title !== 'string') throw new LanguageError('invalid_request', `${path}:${line}: title must be a string`);
    return { doc_id: id, text: o.text, ...(typeof o.title === 'string' ? { title: o.title } : {}) };
  };
}

export function queryRecord(path: string) {
  return (v: unknown, line: number): { query_id: string; text: string } => {
    const o = v as { query_id?: unknown; text?: unknown };
    const id = typeof o?.query_id === 'number' ? String(o.query_id) : o?.query_id;
    if (typeof id !== 'string' || id === '') throw new LanguageError('invalid_request', `${path}:${line}: query_id must be a non-empty string`);
    if (typeof o.text !== 'string') throw new LanguageError('invalid_request', `${path}:${line}: text must be a string`);
    return { query_id: id, text: o.text };
  };
}
