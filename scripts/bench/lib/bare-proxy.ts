/**
 * The least a gateway can do, as a baseline for one: a node:http server that forwards each
 * request to one upstream URL over kept-alive connections and streams the answer back, with
 * no key check, no accounting and no parsing. What it loses against calling the upstream
 * directly is the cost of a second HTTP hop on the same machine, which no gateway avoids.
 */
import { Agent, createServer, request } from 'node:http';
import type { AddressInfo } from 'node:net';

export async function startBareProxy(target: string): Promise<{ url: string; close(): Promise<void> }> {
  const agent = new Agent({ keepAlive: true, maxSockets: 64 });
  const server = createServer((req, res) => {
    const { host: _host, ...headers } = req.headers;
    const up = request(target, { method: req.method, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    });
    up.on('error', () => {
      res.statusCode = 502;
      res.end();
    });
    req.pipe(up);
  });
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      agent.destroy();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
