/**
 * The platform's floor for a POST: an app built like every service (same factory, error
 * formatter and body limit) whose route validates the body against a one-string schema and
 * returns a constant. Measured with the same body as a real route, it shows how much of that
 * route's cost is HTTP, body parsing and validation rather than its own work.
 */
import { Type } from 'typebox';
import { createServiceApp } from '../../../platform/http/app.ts';
import { formatLicensingError } from '../../../services/licensing/errors.ts';

export async function startPostFloor(field: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = await createServiceApp({ docs: { title: 'floor', version: '0', description: 'benchmark floor' }, formatError: formatLicensingError, bodyLimit: 256 * 1024 });
  app.post('/floor', { schema: { body: Type.Object({ [field]: Type.String() }) } }, async () => ({ valid: true, code: 'VALID' }));
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return { url: `http://127.0.0.1:${port}/floor`, close: () => app.close() };
}
