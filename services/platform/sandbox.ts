/**
 * The sandbox of CPU_JOB and GPU_JOB commands: a child process started without a shell
 * (the argument vector goes to execve as is), in a fresh private temporary directory that is
 * its working directory and HOME and is removed afterwards, with a minimal environment (PATH,
 * HOME, TMPDIR, LANG, and for GPU jobs CUDA_VISIBLE_DEVICES), and the job's limits as kernel
 * resource limits set by `prlimit` before the program starts: memory_gb as the address space
 * of a CPU job, and as the data segment (heap and private mappings) of a GPU job, because the
 * CUDA driver reserves far more address space than it uses (checked on an H200: cuInit fails
 * with out of memory under an address-space limit of 8 GiB, and works under a data limit of
 * 1 GiB, which still stops a 6 GiB allocation); CPU time = cpus x wall-clock limit, file size
 * 1 GiB, 256 open files, no core dumps. `taskset` pins it to `cpus` CPUs. It runs in its own process group: the wall-clock
 * limit and a cancel kill the whole group (SIGTERM, then SIGKILL after a 2 s grace). Output
 * is captured up to 256 KiB per stream. A GPU job runs on the CPU when the host has no GPU
 * (`gpu_available: false` in its usage).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

export const OUTPUT_CAP_BYTES = 256 * 1024;
const GRACE_MS = 2000;

export interface SandboxSpec {
  argv: string[];
  setup: string[] | null;
  cpus: number;
  memoryGb: number;
  gpus: number;
  timeoutMs: number;
}

export interface SandboxOutcome {
  exit_code: number | null;
  signal: string | null;
  timed_out: boolean;
  cancelled: boolean;
  /** Set when the program could not be started at all (not found, not executable). */
  spawn_error: string | null;
  /** `setup` when the setup command failed and the command did not run. */
  failed_phase: 'setup' | 'command' | null;
  stdout: string;
  stderr: string;
  stdout_truncated: boolean;
  stderr_truncated: boolean;
  wall_ms: number;
  gpu_available: boolean;
}

function which(program: string): string | null {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/usr/local/bin']) if (existsSync(join(dir, program))) return join(dir, program);
  return null;
}

const PRLIMIT = which('prlimit');
const TASKSET = which('taskset');

/** True when the kernel limits can be applied; without prlimit compute jobs are refused. */
export function sandboxAvailable(): boolean {
  return PRLIMIT !== null;
}

// Facts of the host, read once per process on first use: every app of the process runs on the same host.
let gpuCount: number | null = null;
/** Where the NVIDIA tools are (e.g. /usr/local/nvidia/bin): on a GPU job's PATH. */
let nvidiaBin: string | null = null;

/** GPUs of this host, as the NVIDIA driver lists them (0 without one). */
export function hostGpus(): number {
  if (gpuCount !== null) return gpuCount;
  gpuCount = 0;
  if (existsSync('/dev/nvidia0')) {
    const smi = spawnSync('nvidia-smi', ['-L'], { encoding: 'utf8', timeout: 5000 });
    gpuCount = smi.status === 0 ? smi.stdout.split('\n').filter((l) => l.startsWith('GPU ')).length : 0;
    const where = spawnSync('sh', ['-c', 'command -v nvidia-smi'], { encoding: 'utf8', timeout: 5000 });
    if (where.status === 0 && where.stdout.trim()) nvidiaBin = dirname(where.stdout.trim());
  }
  return gpuCount;
}

class Capture {
  chunks: Buffer[] = [];
  size = 0;
  truncated = false;
  add(b: Buffer): void {
    const room = OUTPUT_CAP_BYTES - this.size;
    if (room <= 0) {
      this.truncated = true;
      return;
    }
    if (b.byteLength > room) this.truncated = true;
    const part = b.byteLength > room ? b.subarray(0, room) : b;
    this.chunks.push(part);
    this.size += part.byteLength;
  }
  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }
}

/** A running sandboxed job: `done` resolves with its outcome; `cancel()` stops it. */
export interface SandboxRun {
  done: Promise<SandboxOutcome>;
  cancel(): void;
}

export function runSandboxed(spec: SandboxSpec): SandboxRun {
  const dir = mkdtempSync(join(tmpdir(), 'lattice-job-'));
  const gpus = Math.min(spec.gpus, hostGpus());
  const path = gpus > 0 && nvidiaBin ? `${nvidiaBin}:/usr/local/bin:/usr/bin:/bin` : '/usr/local/bin:/usr/bin:/bin';
  const env: Record<string, string> = { PATH: path, HOME: dir, TMPDIR: dir, LANG: 'C.UTF-8' };
  // Empty on a host without GPUs: CUDA programs then see none and run on the CPU.
  if (spec.gpus > 0) env.CUDA_VISIBLE_DEVICES = gpus > 0 ? Array.from({ length: gpus }, (_, i) => i).join(',') : '';
  const started = performance.now();
  let current: ReturnType<typeof spawn> | null = null;
  let cancelled = false;
  let timedOut = false;
  const killGroup = (signal: NodeJS.Signals) => {
    if (current?.pid && current.exitCode === null && current.signalCode === null) {
      try {
        process.kill(-current.pid, signal);
      } catch {
        // already gone
      }
    }
  };
  const stop = () => {
    killGroup('SIGTERM');
    setTimeout(() => killGroup('SIGKILL'), GRACE_MS).unref();
  };
  const deadline = setTimeout(() => {
    timedOut = true;
    killGroup('SIGKILL');
  }, spec.timeoutMs);

  const limited = (argv: string[]): [string, string[]] => {
    const cpuSeconds = Math.max(1, Math.ceil((spec.cpus * spec.timeoutMs) / 1000));
    const bytes = Math.floor(spec.memoryGb * 2 ** 30);
    const pin = TASKSET && spec.cpus < availableParallelism() ? [TASKSET, '-c', `0-${spec.cpus - 1}`] : [];
    const memory = spec.gpus > 0 ? `--data=${bytes}` : `--as=${bytes}`;
    return [PRLIMIT!, [memory, `--cpu=${cpuSeconds}`, `--fsize=${2 ** 30}`, '--nofile=256', '--core=0', '--', ...pin, ...argv]];
  };

  const out = new Capture();
  const err = new Capture();
  const runOne = (argv: string[]) =>
    new Promise<{ code: number | null; signal: string | null; spawnError: string | null }>((resolve) => {
      const [file, args] = limited(argv);
      const child = spawn(file, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'], shell: false });
      current = child;
      child.stdout!.on('data', (b: Buffer) => out.add(b));
      child.stderr!.on('data', (b: Buffer) => err.add(b));
      child.on('error', (e) => resolve({ code: null, signal: null, spawnError: e.message }));
      child.on('close', (code, signal) => resolve({ code, signal, spawnError: null }));
    });

  const done = (async (): Promise<SandboxOutcome> => {
    try {
      let phase: 'setup' | 'command' = 'command';
      let r = { code: null as number | null, signal: null as string | null, spawnError: null as string | null };
      if (spec.setup) {
        r = await runOne(spec.setup);
        if (r.code !== 0) phase = 'setup';
      }
      if (!spec.setup || (r.code === 0 && !cancelled && !timedOut)) r = await runOne(spec.argv);
      // prlimit reports a program it cannot execute with exit status 126/127 and a message.
      const errText = err.text();
      const notRun = (r.code === 127 || r.code === 126) && /(prlimit|taskset): failed to execute/.test(errText);
      return {
        exit_code: r.code,
        signal: r.signal,
        timed_out: timedOut,
        cancelled,
        spawn_error: r.spawnError ?? (notRun ? errText.trim().replace(/^(prlimit|taskset): /, '') : null),
        failed_phase: r.code === 0 ? null : phase,
        stdout: out.text(),
        stderr: errText,
        stdout_truncated: out.truncated,
        stderr_truncated: err.truncated,
        wall_ms: performance.now() - started,
        gpu_available: gpus > 0,
      };
    } finally {
      clearTimeout(deadline);
      rmSync(dir, { recursive: true, force: true });
    }
  })();

  return {
    done,
    cancel() {
      if (cancelled) return;
      cancelled = true;
      stop();
    },
  };
}
