/**
 * Tables as retrievable documents (the dataset hub's table upload): one document per row,
 * "column: value" pairs in column order under the table's name as title, so that BM25 and
 * the embedder see both the header words and the cell values.
 *
 * @example tableRowsAsDocs('engines', ['name', 'thrust_kn'], [['J79', 52.8]])
 * // [{ doc_id: 'engines:0', title: 'engines', text: 'name: J79; thrust_kn: 52.8' }]
 */
import { invalid } from '../errors.ts';
import type { InputDoc } from './search-index.ts';

export function tableRowsAsDocs(tableName: string, columns: readonly string[], rows: readonly (readonly unknown[])[]): InputDoc[] {
  if (typeof tableName !== 'string' || tableName === '' || /[\n\r]/.test(tableName)) throw invalid('table_name must be a non-empty string on one line');
  if (!Array.isArray(columns) || columns.length === 0 || columns.some((c) => typeof c !== 'string')) throw invalid('columns must be a non-empty list of strings');
  if (!Array.isArray(rows)) throw invalid('rows must be a list of lists');
  return rows.map((row, i) => {
    if (!Array.isArray(row) || row.length !== columns.length) throw invalid(`row ${i} must have ${columns.length} values`);
    const cells = columns.map((c, j) => `${c}: ${row[j] === null || row[j] === undefined ? '' : typeof row[j] === 'object' ? JSON.stringify(row[j]) : String(row[j])}`);
    return { doc_id: `${tableName}:${i}`, title: tableName, text: cells.join('; ') };
  });
}
