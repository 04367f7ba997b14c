/**
 * The three documentation routes every service serves, generated from the same schemas that
 * validate its requests: `/openapi.json`, `/docs` (Swagger UI) and `/redoc` (ReDoc, served
 * from the installed package so it works without a network).
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';

export interface DocsInfo {
  title: string;
  description: string;
  version: string;
  /** OpenAPI security schemes the routes reference by name in `security`. */
  securitySchemes?: Record<string, Record<string, unknown>>;
}

const require = createRequire(import.meta.url);
let redocBundle: string | null = null;
function redocScript(): string {
  redocBundle ??= readFileSync(require.resolve('redoc/bundles/redoc.standalone.js'), 'utf8');
  return redocBundle;
}

export async function registerDocs(app: FastifyInstance, info: DocsInfo, prefix: string): Promise<void> {
  await app.register(swagger, {
    openapi: {
      openapi: '3.0.3',
      info: { title: info.title, description: info.description, version: info.version },
      // The schemes are OpenAPI objects the service spells out; the plugin's type is narrower.
      components: { securitySchemes: (info.securitySchemes ?? {}) as never },
    },
    refResolver: {
      // Shared schemas appear under their own $id instead of `def-0`.
      buildLocalReference: (json, _baseUri, _fragment, i) => String(json.$id ?? `def-${i}`),
    },
  });
  await app.register(swaggerUi, { routePrefix: `${prefix}/docs`, uiConfig: { deepLinking: true } });

  app.get(`${prefix}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
  app.get(`${prefix}/redoc`, { schema: { hide: true } }, async (_req, reply) => {
    reply.type('text/html; charset=utf-8');
    return `<!doctype html>
<html><head><meta charset="utf-8"><title>${info.title}</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body><redoc spec-url="${prefix}/openapi.json"></redoc>
<script src="${prefix}/redoc/redoc.standalone.js"></script></body></html>`;
  });
  app.get(`${prefix}/redoc/redoc.standalone.js`, { schema: { hide: true } }, async (_req, reply) => {
    reply.type('application/javascript; charset=utf-8').header('cache-control', 'public, max-age=86400');
    return redocScript();
  });
}
