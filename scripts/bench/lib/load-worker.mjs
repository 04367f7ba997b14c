// Load generator for the HTTP benchmarks: runs autocannon in a child process (its own core;
// autocannon takes a worker thread for one of its own), cycling through the request bodies.
import autocannon from 'autocannon';

const { url, method, headers, bodies, duration, connections } = await new Promise((resolve) => process.once('message', resolve));
let next = 0;
const result = await autocannon({
  url,
  method,
  headers,
  duration,
  connections,
  pipelining: 1,
  requests: [
    {
      method,
      headers,
      setupRequest(req) {
        if (!bodies) return req;
        const body = bodies[next++ % bodies.length];
        return { ...req, body };
      },
    },
  ],
});
process.send({
  rps: result.requests.average,
  p99: result.latency.p99,
  p50: result.latency.p50,
  errors: result.errors + result.timeouts,
  non2xx: result.non2xx,
  total: result.requests.total,
}, () => process.exit(0));
