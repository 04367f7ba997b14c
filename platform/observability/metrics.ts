/**
 * The Prometheus metrics of the process. Each service has a registry of its own (every series
 * carries `service="<id>"`), so that a service's `/metrics` shows its own figures; the process
 * figures (event-loop lag, heap, CPU, handles) live in one shared registry that every service's
 * `/metrics` appends, since all services of a process share them.
 *
 * A metric family is declared once per service and looked up by name afterwards, so that the
 * code counting an event (a validation, a model call) needs no handle passed down to it, and
 * several test instances of one service in one process count into the same series.
 *
 * Labels never carry ids, keys or path parameters: routes are counted by their template, and
 * the service families use small closed sets (result, model, state, outcome).
 */
import client, { Counter, Gauge, Histogram, Registry } from 'prom-client';

const processRegistry = new Registry();
client.collectDefaultMetrics({ register: processRegistry, eventLoopMonitoringPrecision: 20 });

const registries = new Map<string, Registry>();

/** The registry of one service, created on first use. */
export function serviceRegistry(service: string): Registry {
  let registry = registries.get(service);
  if (!registry) {
    registry = new Registry();
    registry.setDefaultLabels({ service });
    registries.set(service, registry);
  }
  return registry;
}

export const METRICS_CONTENT_TYPE = processRegistry.contentType;

/** The text `/metrics` of `service` answers: its own families, then the process's. */
export async function metricsText(service: string): Promise<string> {
  const [own, proc] = await Promise.all([serviceRegistry(service).metrics(), processRegistry.metrics()]);
  return `${own}\n${proc}`;
}

type Family = Counter<string> | Gauge<string> | Histogram<string>;

function family<T extends Family>(service: string, name: string, make: (registers: Registry[]) => T): T {
  const registry = serviceRegistry(service);
  return (registry.getSingleMetric(name) as T | undefined) ?? make([registry]);
}

export function counter(service: string, name: string, help: string, labelNames: readonly string[] = []): Counter<string> {
  return family(service, name, (registers) => new Counter({ name, help, labelNames, registers }));
}

export function gauge(service: string, name: string, help: string, labelNames: readonly string[] = []): Gauge<string> {
  return family(service, name, (registers) => new Gauge({ name, help, labelNames, registers }));
}

/**
 * A gauge read at scrape time: `collect` sets its values (e.g. from one SQL query), so that a
 * figure kept in the database (a queue's length, open holds) is right on every scrape and
 * across a cluster without counting it twice. A failing read leaves the last values. Declaring
 * it again replaces the reader (a restarted service, a test's second instance of a service).
 */
export function sampledGauge(
  service: string,
  name: string,
  help: string,
  labelNames: readonly string[],
  collect: GaugeReader,
): void {
  registerSampledGauge(serviceRegistry(service), name, help, labelNames, collect);
}

/** A sampled gauge of the whole process (shown on every service's /metrics, without a service label). */
export function processSampledGauge(name: string, help: string, labelNames: readonly string[], collect: GaugeReader): void {
  registerSampledGauge(processRegistry, name, help, labelNames, collect);
}

type GaugeReader = (set: (labels: Record<string, string>, value: number) => void, reset: () => void) => Promise<void> | void;

function registerSampledGauge(registry: Registry, name: string, help: string, labelNames: readonly string[], collect: GaugeReader): void {
  if (registry.getSingleMetric(name)) registry.removeSingleMetric(name);
  new Gauge({
    name,
    help,
    labelNames,
    registers: [registry],
    async collect() {
      try {
        await collect(
          (labels, value) => this.set(labels, value),
          () => this.reset(),
        );
      } catch {
        // The store may be closing or briefly unreachable: the scrape still answers.
      }
    },
  });
}

export function histogram(
  service: string,
  name: string,
  help: string,
  labelNames: readonly string[] = [],
  buckets?: number[],
): Histogram<string> {
  return family(service, name, (registers) => new Histogram({ name, help, labelNames, registers, ...(buckets ? { buckets } : {}) }));
}

/** Request latency buckets in seconds: from a cached answer (ms) to a long model call. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];

export function httpRequests(service: string): Counter<string> {
  return counter(service, 'lattice_http_requests_total', 'HTTP requests answered, by route template, method and status', ['route', 'method', 'status']);
}

export function httpDuration(service: string): Histogram<string> {
  return histogram(
    service,
    'lattice_http_request_duration_seconds',
    'Time from the request to its answer, by route template, method and status class',
    ['route', 'method', 'status_class'],
    LATENCY_BUCKETS,
  );
}
