/**
 * A one-line progress bar for long jobs (indexing, training), drawn on a terminal stream and
 * redrawn in place; on a non-terminal (CI logs, pipes) it prints a line every tenth of the
 * way instead, so logs stay short.
 */
export interface Progress {
  update(done: number, note?: string): void;
  finish(note?: string): void;
}

export function progressBar(label: string, total: number, stream: NodeJS.WriteStream = process.stderr): Progress {
  const tty = Boolean(stream.isTTY);
  const width = 28;
  let lastTenth = -1;
  const started = Date.now();
  const line = (done: number, note?: string): string => {
    const frac = total > 0 ? Math.min(1, done / total) : 1;
    const filled = Math.round(frac * width);
    const secs = ((Date.now() - started) / 1000).toFixed(1);
    return `${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${done}/${total} ${secs}s${note ? `  ${note}` : ''}`;
  };
  return {
    update(done, note) {
      if (tty) stream.write(`\r\x1b[2K${line(done, note)}`);
      else {
        const tenth = total > 0 ? Math.floor((10 * done) / total) : 10;
        if (tenth !== lastTenth) {
          lastTenth = tenth;
          stream.write(`${line(done, note)}\n`);
        }
      }
    },
    finish(note) {
      if (tty) stream.write(`\r\x1b[2K${line(total, note)}\n`);
      else if (lastTenth !== 10 || note) stream.write(`${line(total, note)}\n`);
    },
  };
}
