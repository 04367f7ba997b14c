/**
 * Reads the Cranfield collection (SMART format): 1,400 abstracts, 225 queries and graded
 * judgements. Query ids are renumbered 1..225 in file order, as the judgement files use.
 * Judgements come from the TREC-format file, whose grades run 1 (least) to 4 (most relevant);
 * its grade 5 lines are the original file's -1 entries (one odd document per query, not a
 * judgement of relevance) and are left out, which is how BM25 scores the usual 0.37 nDCG@10.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InputDoc } from '../retrieval/search-index.ts';

export interface Query {
  query_id: string;
  text: string;
}

/** query_id → doc_id → grade (> 0 is relevant). */
export type Qrels = Map<string, Map<string, number>>;

function records(text: string): { id: string; fields: Map<string, string> }[] {
  const out: { id: string; fields: Map<string, string> }[] = [];
  let current: { id: string; fields: Map<string, string> } | undefined;
  let field = '';
  for (const line of text.split('\n')) {
    const head = /^\.([A-Z])(?:\s+(\S+))?/.exec(line);
    if (head) {
      if (head[1] === 'I') {
        current = { id: head[2] ?? '', fields: new Map() };
        out.push(current);
      } else field = head[1];
      continue;
    }
    if (current && field) current.fields.set(field, `${current.fields.get(field) ?? ''}${line}\n`);
  }
  return out;
}

const clean = (s: string | undefined): string => (s ?? '').replace(/\s+/g, ' ').trim();

export function loadCranfield(dir: string): { docs: InputDoc[]; queries: Query[]; qrels: Qrels } {
  const docs = records(readFileSync(join(dir, 'cran.all.1400'), 'utf8')).map((r) => ({
    doc_id: String(Number(r.id)),
    title: clean(r.fields.get('T')),
    text: clean(r.fields.get('W')),
  }));
  const queries = records(readFileSync(join(dir, 'cran.qry'), 'utf8')).map((r, i) => ({
    query_id: String(i + 1),
    text: clean(r.fields.get('W')),
  }));
  const qrels: Qrels = new Map();
  for (const line of readFileSync(join(dir, 'QRelsCorrectedforTRECeval'), 'utf8').split('\n')) {
    const [q, , d, g] = line.trim().split(/\s+/);
    if (!q || !d || g === undefined) continue;
    const grade = Number(g);
    if (!(grade > 0 && grade <= 4)) continue;
    if (!qrels.has(q)) qrels.set(q, new Map());
    qrels.get(q)?.set(String(Number(d)), grade);
  }
  return { docs, queries, qrels };
}
