// Job client for the quantum API benchmark, in a child process of its own so that its HTTP
// and JSON work runs beside the server instead of on the server's event loop: `concurrency`
// clients each submit a circuit (POST) and, in mode `job`, wait for its result
// (GET .../results?wait=60), `runs` times in all, over keep-alive connections of node:http.
// A submission refused for the account's limit of unfinished jobs (429) is sent again 5 ms
// later, as a client facing a full queue would, and counted.
// With `warmup`, that many jobs go first, untimed, in this same process and on the same
// connections; the client then says `{ warmed: true }` and waits for any message before the
// timed runs, so the parent can start its own counting there. With `paced`, each timed job
// waits for the parent: the client says `{ ready: i }` and starts job i on the parent's next
// message (the parent runs its baseline in between, so that each job has a baseline run
// beside it under the same load). A client's first few hundred
// requests run on code V8 has not optimised yet: timed from a fresh process, they added
// about a millisecond to every Bell job.
// Replies with each job's time (ms), the submitted ids, the refusals, and this process's CPU time.
import { Agent, request } from 'node:http';

const { base, headers, body, runs, concurrency, mode, warmup = 0, paced = false } = await new Promise((resolve) => process.once('message', resolve));
// Pacing waits on the parent's next message, which every waiting client would take at once.
if (paced && concurrency !== 1) throw new Error('a paced job client runs one job at a time (concurrency 1)');
const agent = new Agent({ keepAlive: true, maxSockets: concurrency });

function send(method, path, payload) {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, agent, headers: payload ? { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) } : headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(payload);
  });
}

const parentSays = () => new Promise((resolve) => process.once('message', resolve));

/** Runs `count` jobs with `concurrency` clients (with `pace`, each after the parent's go); returns each one's time (ms) and the submitted ids. */
async function jobs(count, pace = false) {
  const times = [];
  const ids = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < count) {
        const i = next++;
        if (pace) {
          process.send({ ready: i });
          await parentSays();
        }
        const t = performance.now();
        let s = await send('POST', '/v2/circuits', body);
        while (s.status === 429) {
          refused++;
          await new Promise((resolve) => setTimeout(resolve, 5));
          s = await send('POST', '/v2/circuits', body);
        }
        if (s.status !== 201) throw new Error(`submit: ${s.status} ${JSON.stringify(s.body)}`);
        ids.push(s.body.job_id);
        if (mode === 'job') {
          const r = await send('GET', `/v2/jobs/${s.body.job_id}/results?wait=60`);
          if (r.status !== 200) throw new Error(`results: ${r.status} ${JSON.stringify(r.body)}`);
        }
        times.push(performance.now() - t);
      }
    }),
  );
  return { times, ids };
}

let refused = 0;
if (warmup > 0) {
  await jobs(warmup);
  refused = 0;
  process.send({ warmed: true });
  await parentSays();
}
const cpu = process.cpuUsage();
const t0 = performance.now();
const { times, ids } = await jobs(runs, paced);
const wall = performance.now() - t0;
const used = process.cpuUsage(cpu);
process.send({ times, ids, refused, wallMs: wall, cpuMs: (used.user + used.system) / 1000 }, () => process.exit(0));
