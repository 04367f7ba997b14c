/** POST /api/v1/v2/validate — validates a license artifact; an invalid license is still a 200. */
import { countLicenseValidation } from '../../../platform/observability/families.ts';
import { Type } from 'typebox';
import { ApiError } from '../../../platform/http/errors.ts';
import type { ServiceApp } from '../../../platform/http/app.ts';
import type { LicensingDeps } from '../deps.ts';
import { DetailError } from '../errors.ts';
import { Fingerprint, ValidationResult, bearerSecurity } from './schemas.ts';

// No maxLength on the artifacts: the service's 256 KiB body limit bounds them, and a length
// check walks every character of a 6 KB token on each request (a measurable share of it).
// A null artifact means "not given", as clients that serialise every field send it.
const Body = Type.Object({
  artifact_compact: Type.Optional(Type.Union([Type.String({ description: 'Compact token (preferred).' }), Type.Null()])),
  artifact_json: Type.Optional(Type.Union([Type.String({ description: 'The JSON artifact, as a string.' }), Type.Null()])),
  device_fingerprint: Type.Optional(Type.Union([Fingerprint, Type.Null()])),
});

export function registerValidate(app: ServiceApp, deps: LicensingDeps): void {
  app.post(
    '/api/v1/v2/validate',
    {
      preValidation: deps.bearerAuth,
      schema: {
        tags: ['Variant A: artifacts'],
        summary: 'Validate a license artifact',
        security: bearerSecurity,
        body: Body,
        response: { 200: ValidationResult, '4xx': DetailError },
      },
    },
    async (req) => {
      const text = req.body.artifact_compact ?? req.body.artifact_json;
      if (text == null) throw new ApiError(400, 'missing_artifact', 'Must provide artifact_json or artifact_compact');
      const result = await deps.artifactValidator.validate(text, req.body.device_fingerprint, deps.ctx.now());
      countLicenseValidation('licensing', 'a', result.status);
      return result;
    },
  );
}
