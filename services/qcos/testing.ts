/** Test helpers for qcos: the service on a fresh database with its workers warm, a client with a key, and circuits. */
import { jsonClient, type TestService } from '../../platform/testing/harness.ts';
import { startWarm } from '../../platform/testing/quantum.ts';
import { qcosService } from './service.ts';

export { BELL, ghz } from '../../platform/testing/quantum.ts';

export function startQcos(): Promise<TestService> {
  return startWarm(qcosService);
}

export function client(svc: TestService, key: string) {
  return jsonClient(svc.url, { 'x-api-key': key });
}
