/** Worker thread of the statevector pool: runs its share of each step, meeting the others at a barrier. */
import { parentPort, workerData } from 'node:worker_threads';
import { barrier, share } from './parallel.ts';
import type { Step } from './steps.ts';
import { runStep, stepCount } from './steps.ts';

const ctrl = new Int32Array((workerData as { ctrl: SharedArrayBuffer }).ctrl);

parentPort!.on('message', (msg: { state: SharedArrayBuffer; steps: Step[]; party: number; parties: number }) => {
  const st = new Float64Array(msg.state);
  try {
    for (const s of msg.steps) {
      const [lo, hi] = share(stepCount(s, st.length), msg.party, msg.parties);
      runStep(st, s, lo, hi);
      barrier(ctrl, msg.parties);
    }
  } catch (err) {
    Atomics.add(ctrl, 3, 1);
    Atomics.notify(ctrl, 1);
    throw err;
  }
});

Atomics.add(ctrl, 2, 1);
Atomics.notify(ctrl, 2);
